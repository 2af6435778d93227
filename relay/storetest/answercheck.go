package storetest

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/a2astream/a2astream/relay"
)

// answerFirstWins: the first answer to a prompt is kept; another key gets
// it back, the same key again gets it back too, and another prompt's
// answer is its own.
func (suite) answerFirstWins(t *testing.T, st relay.Store) {
	l := open(t, st, "task-1")
	first := relay.Answer{Prompt: 4, Key: "key-1", Text: "Lisbon"}
	got, err := l.PostAnswer(t.Context(), first)
	noError(t, err, "PostAnswer first")
	equal(t, got, first, "answer stored by the first post")
	got, err = open(t, st, "task-1").PostAnswer(t.Context(), relay.Answer{Prompt: 4, Key: "key-2", Text: "Porto"})
	noError(t, err, "PostAnswer with another key")
	equal(t, got, first, "answer returned to another key")
	got, err = l.PostAnswer(t.Context(), first)
	noError(t, err, "PostAnswer with the same key again")
	equal(t, got, first, "answer returned to the same key again")
	other := relay.Answer{Prompt: 9, Key: "key-2", Text: "Porto\nand \"Braga\""}
	got, err = l.PostAnswer(t.Context(), other)
	noError(t, err, "PostAnswer to another prompt")
	equal(t, got, other, "answer to another prompt")
	got, err = l.AwaitAnswer(t.Context(), 4)
	noError(t, err, "AwaitAnswer of an answered prompt")
	equal(t, got, first, "answer awaited after it was posted")
}

// loadAnswer: LoadAnswer returns false while no answer to the prompt is
// stored, then the first answer posted, with the winner's key, on every
// Open of the log; it does not wait.
func (suite) loadAnswer(t *testing.T, st relay.Store) {
	l := open(t, st, "task-1")
	got, ok, err := l.LoadAnswer(t.Context(), 4)
	noError(t, err, "LoadAnswer with none stored")
	equal(t, ok, false, "LoadAnswer found an answer with none stored (%+v)", got)

	first := relay.Answer{Prompt: 4, Key: "key-1", Text: "Lisbon"}
	_, err = l.PostAnswer(t.Context(), first)
	noError(t, err, "PostAnswer first")
	_, err = open(t, st, "task-1").PostAnswer(t.Context(), relay.Answer{Prompt: 4, Key: "key-2", Text: "Porto"})
	noError(t, err, "PostAnswer with another key")
	for _, r := range []relay.Log{l, open(t, st, "task-1")} {
		got, ok, err = r.LoadAnswer(t.Context(), 4)
		noError(t, err, "LoadAnswer(4)")
		equal(t, ok, true, "LoadAnswer(4) found the answer posted")
		equal(t, got, first, "answer loaded: the first posted, with its key")
	}
	got, ok, err = l.LoadAnswer(t.Context(), 5)
	noError(t, err, "LoadAnswer of another prompt")
	equal(t, ok, false, "LoadAnswer(5) found an answer to prompt 4's post (%+v)", got)
	got, ok, err = open(t, st, "task-2").LoadAnswer(t.Context(), 4)
	noError(t, err, "LoadAnswer of another stream")
	equal(t, ok, false, "LoadAnswer of task-2 found task-1's answer (%+v)", got)
}

// awaitAnswer: AwaitAnswer on one Open returns the answer posted on
// another, and ends with its context's error when none comes.
func (s suite) awaitAnswer(t *testing.T, st relay.Store) {
	driver := open(t, st, "task-1")
	handler := open(t, st, "task-1")
	type result struct {
		a   relay.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := driver.AwaitAnswer(t.Context(), 5)
		done <- result{a, err}
	}()
	if s.cfg.bubble {
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("AwaitAnswer returned %+v, %v before any answer", r.a, r.err)
		default:
		}
	}
	// An answer to another prompt does not end the wait.
	_, err := handler.PostAnswer(t.Context(), relay.Answer{Prompt: 4, Key: "k0", Text: "not this one"})
	noError(t, err, "PostAnswer to prompt 4")
	if s.cfg.bubble {
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("AwaitAnswer(5) returned %+v, %v after an answer to prompt 4", r.a, r.err)
		default:
		}
	}
	want := relay.Answer{Prompt: 5, Key: "k1", Text: "yes"}
	_, err = handler.PostAnswer(t.Context(), want)
	noError(t, err, "PostAnswer to prompt 5")
	r := <-done
	noError(t, r.err, "AwaitAnswer(5)")
	equal(t, r.a, want, "answer awaited")

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		a, err := driver.AwaitAnswer(ctx, 6)
		done <- result{a, err}
	}()
	if s.cfg.bubble {
		synctest.Wait()
	}
	cancel()
	isError(t, (<-done).err, context.Canceled, "AwaitAnswer(6) canceled")
}

// awaitCancel: AwaitCancel on one Open returns once another requested the
// cancel, at once when it was requested before, and ends with its
// context's error when none comes.
func (s suite) awaitCancel(t *testing.T, st relay.Store) {
	driver := open(t, st, "task-1")
	handler := open(t, st, "task-1")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- driver.AwaitCancel(ctx) }()
	if s.cfg.bubble {
		synctest.Wait()
	}
	cancel()
	isError(t, <-done, context.Canceled, "AwaitCancel with no request, canceled")

	go func() { done <- driver.AwaitCancel(t.Context()) }()
	if s.cfg.bubble {
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("AwaitCancel returned %v before any request", err)
		default:
		}
	}
	// Another stream's cancel does not end the wait.
	noError(t, open(t, st, "task-2").RequestCancel(t.Context()), "RequestCancel of task-2")
	if s.cfg.bubble {
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("AwaitCancel of task-1 returned %v after a cancel of task-2", err)
		default:
		}
	}
	noError(t, handler.RequestCancel(t.Context()), "RequestCancel")
	noError(t, <-done, "AwaitCancel after the request")
	noError(t, open(t, st, "task-1").AwaitCancel(t.Context()), "AwaitCancel of a new Open after the request")
	noError(t, handler.RequestCancel(t.Context()), "RequestCancel again")
}
