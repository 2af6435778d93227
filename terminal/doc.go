// Package terminal holds the typed errors that end a stream whose task
// reached an unsuccessful final state: failed, rejected, canceled, or
// auth-required (which a2astream treats as an end, because credentials arrive
// out of band).
//
// Each error carries the full assembled task, so callers can read its status
// message, artifacts and history after the fact:
//
//	var failed *terminal.FailedError
//	if errors.As(err, &failed) {
//		log.Printf("agent gave up: %s", failed.Task.Status.Message.Text())
//	}
//
// Every type implements [Error], so errors.As with a terminal.Error target
// catches all four.
//
// # Structured failures
//
// Some agents say why a task ended in fields a program can branch on, not
// only in text. [Error]'s Failure method returns them as a [Failure]: the
// error's type, code and message (stream.EndingOf gives the same, from any
// error a stream ends in). [ReadStructured] reads the tRPC-Agent-Go convention
// (error_type, error_code and error_message in the metadata of the status
// update, mirrored in the status message's), which every error of this
// package reads unless it was built with [FromTaskWith] and another
// [Reader]:
//
//	var te terminal.Error
//	if errors.As(err, &te) {
//		if f, ok := te.Failure(); ok && f.Code == "REMOTE_VALIDATION_FAILED" {
//			// fix the input, then send again
//		}
//	}
package terminal
