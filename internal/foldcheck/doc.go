// Package foldcheck is test support, imported only by _test.go files: it
// folds the deltas that stream or the ledger yields, one event at a time, as
// an application does, and fails the test when what was yielded breaks the
// invariant every sequence of deltas keeps:
//
//   - an append adds to an artifact the application already holds;
//   - a revision revises a message that was delivered, never shows the same
//     text again, and, when it extends the message, its Added continues the
//     text shown;
//   - no message ID is delivered twice;
//   - only deltas are yielded, never a Task;
//   - the fold's artifacts equal the producer's, order included, whenever
//     the test compares them ([Fold.RequireArtifacts]).
//
// A [Fold] in [Strict] mode makes every check; in [Loose] mode it skips the
// checks on messages, which messages without an ID or with data parts only
// do not fit. Its methods take a testing.TB and fail it through testify's
// require, so the package imports testify, which library code never does.
package foldcheck
