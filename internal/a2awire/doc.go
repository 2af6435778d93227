// Package a2awire holds the few pieces of the A2A wire that package a2a
// shares with package chain, which writes the chain of agents into the data
// of an A2A error object and reads it back, so that the two read and write
// that data alike from one copy:
//
//   - members of JSON kept raw, read so that a member of an unexpected type
//     is skipped rather than fatal ([IsObject], [String], [Int32]), and JSON
//     written without HTML escaping ([Marshal]);
//   - the spellings of task states in either version ([State]);
//   - retry delays: the bound every hint passes through ([Bound], [Max]),
//     and delays in seconds and as protobuf Durations ([Seconds],
//     [ProtoDuration]);
//   - the google.rpc details of A2A 1.0 errors: their type URLs, the
//     ErrorInfo domain of A2A's errors, and how each error code is written
//     over HTTP+JSON ([Rest]).
//
// Package a2a is the public face of all of it. This package imports nothing
// of the module, so that a2a may import it.
package a2awire
