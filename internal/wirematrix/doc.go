// Package wirematrix is test support, imported only by _test.go files: the
// scenarios of the library's guarantees that every wire must keep, defined
// once and run on each wire by whoever can build a client for it. stream's
// tests run them on the four HTTP wires (JSON-RPC and HTTP+JSON, A2A 0.3
// and 1.0); the grpc module's tests run them on gRPC 0.3 and 1.0, through
// grpc/a2agrpctest, which the library's module cannot import. Six wires,
// one definition.
//
// A [Wire] says how to make an a2atest agent that speaks the wire and a
// stream client that reaches it; each scenario ([CutAnywhere],
// [HumanInTheLoop], [HumanInTheLoopAcrossDrops],
// [ResumeFromACheckpoint]) takes a *testing.T and a Wire and runs its
// subtests, each in a testing/synctest bubble, where the agent's pauses
// take no wall time.
//
// It imports stream, a2atest, internal/foldcheck and testify's require,
// which library code never does; internal/archtest checks that only test
// files import it.
package wirematrix
