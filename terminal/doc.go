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
package terminal
