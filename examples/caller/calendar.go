package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

// calendar is the demo calendar agent of this example: it takes a question
// from anyone, asks for credentials (auth-required), and lets a caller
// follow the task (subscribe, get-task, cancel) only with the Authorization
// header demo.Token; it answers every other call with 401. A caller that
// signs in continues the same task and reads the answer, and the question
// is sent once. (demo.SecuredAgent, which the chat example uses, wants the
// header on the send itself.)
type calendar struct {
	// agent is the agent behind the sign-in check: the calls that passed
	// it reached it.
	agent *a2atest.Agent
}

// newCalendar returns the demo calendar agent. It reads the calendar once
// asked to, in a short pause after auth-required: a caller that signed in
// reads the answer, any other one gets only 401s.
func newCalendar() *calendar {
	return &calendar{agent: a2atest.NewAgent(a2atest.WithName("demo calendar"), a2atest.WithScript(
		a2atest.Working("Opening your calendar…"),
		a2atest.AskAuth("Sign in to the calendar to continue."),
		a2atest.Pause(calendarPause),
		a2atest.Chunk("free", "Free slots: Tue 10:00, Thu 15:00", false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))}
}

func (c *calendar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.Header.Get("Authorization") != demo.Token && !isSend(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="calendar"`)
		http.Error(w, "sign in first", http.StatusUnauthorized)
		return
	}
	c.agent.ServeHTTP(w, r)
}

// calendarPause is how long the calendar agent takes to read the calendar
// once it asked for credentials.
const calendarPause = demo.Delay

// isSend reports whether r is a JSON-RPC call that sends a message, of
// A2A 0.3 or 1.0. It leaves r's body as it found it.
func isSend(r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var call struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &call) != nil {
		return false
	}
	switch call.Method {
	case "SendStreamingMessage", "SendMessage", "message/stream", "message/send":
		return true
	}
	return false
}
