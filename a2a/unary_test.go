package a2a_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestDecodeTaskCaptures(t *testing.T) {
	t.Parallel()
	const (
		u = a2a.RoleUser
		g = a2a.RoleAgent
	)
	tests := []struct {
		file      string
		id        string
		state     a2a.TaskState
		status    string   // status message text
		artifacts []string // each artifact's concatenated text
		history   []a2a.Role
	}{
		{"a2a-go-get-bare.json", "01a2012b-afbe-768f-baf9-2b213262dd58", a2a.StateInputRequired, "need more input", []string{"chunk-1 chunk-2"}, []a2a.Role{u, g}},
		{"a2a-go-get-completed.json", "01a2012b-974f-761f-b805-9c1314c44506", a2a.StateCompleted, "done", []string{"chunk-1 chunk-2", "result for follow-up: more input"}, []a2a.Role{u, g, u, g}},
		{"a2a-go-get-executor-error.json", "01a2012b-a614-744e-880a-19a0bf75cd89", a2a.StateWorking, "working", nil, []a2a.Role{u}},
		{"a2a-go-get-failed.json", "01a2012b-a12e-7f14-9794-613797d52f27", a2a.StateFailed, "scripted failure", []string{"chunk-1 "}, []a2a.Role{u, g}},
		{"a2a-go-get-input-required.json", "01a2012b-974f-761f-b805-9c1314c44506", a2a.StateInputRequired, "need more input", []string{"chunk-1 chunk-2"}, []a2a.Role{u, g}},
		{"a2a-go-cancel.json", "01a2012b-b4b9-7eba-9a82-5fcedd0e1c1a", a2a.StateCanceled, "canceled", nil, []a2a.Role{u, g}},
		// js 0.3.14 answers tasks/get without historyLength with "history": [].
		{"js-0.3.14-get-completed.json", "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", a2a.StateCompleted, "done", []string{"chunk-1 chunk-2", "result for follow-up: more input"}, nil},
		{"js-0.3.14-get-executor-error.json", "2f7b5633-5245-4cf7-9afc-6a16e9d68efa", a2a.StateWorking, "working", nil, nil},
		{"js-0.3.14-get-failed.json", "c54439c6-82d5-4b03-ab2b-3660448d6dc1", a2a.StateFailed, "scripted failure", []string{"chunk-1 "}, nil},
		{"js-0.3.14-get-input-required.json", "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", a2a.StateInputRequired, "need more input", []string{"chunk-1 chunk-2"}, nil},
		{"js-0.3.14-cancel.json", "6e8f9a93-30cd-4a18-952b-c96c0117dc93", a2a.StateCanceled, "", nil, []a2a.Role{u, g}},
		{"js-1.3.0-compat03-get-completed.json", "6a799648-30b9-4e70-87fa-d9d210d16cc3", a2a.StateCompleted, "done", []string{"chunk-1 chunk-2", "result for follow-up: more input"}, []a2a.Role{u, g, g, u, g}},
		{"js-1.3.0-compat03-get-executor-error.json", "1f34fc7a-45b1-48db-929c-ed3cb0515911", a2a.StateFailed, "Agent execution error: scripted executor error", nil, []a2a.Role{u, g, g}},
		{"js-1.3.0-compat03-get-failed.json", "a755e2d3-b891-4ec9-85d4-477df2c57a32", a2a.StateFailed, "scripted failure", []string{"chunk-1 "}, []a2a.Role{u, g, g}},
		{"js-1.3.0-compat03-get-input-required.json", "6a799648-30b9-4e70-87fa-d9d210d16cc3", a2a.StateInputRequired, "need more input", []string{"chunk-1 chunk-2"}, []a2a.Role{u, g, g}},
		{"js-1.3.0-compat03-cancel.json", "44f82c01-11b8-4d04-89c0-0e77d7208a17", a2a.StateCanceled, "", nil, []a2a.Role{u, g}},
		{"js-1.3.0-get-completed.json", "45cca664-8eb5-41df-a5b8-4751ba90c17b", a2a.StateCompleted, "done", []string{"chunk-1 chunk-2", "result for follow-up: more input"}, []a2a.Role{u, g, g, u, g}},
		{"js-1.3.0-get-executor-error.json", "badde3ff-7f81-4ca6-9d76-d4b1fca5e6fb", a2a.StateFailed, "Agent execution error: scripted executor error", nil, []a2a.Role{u, g, g}},
		{"js-1.3.0-get-failed.json", "b21828b4-8293-4721-984c-ac472ac20740", a2a.StateFailed, "scripted failure", []string{"chunk-1 "}, []a2a.Role{u, g, g}},
		{"js-1.3.0-get-input-required.json", "45cca664-8eb5-41df-a5b8-4751ba90c17b", a2a.StateInputRequired, "need more input", []string{"chunk-1 chunk-2"}, []a2a.Role{u, g, g}},
		{"js-1.3.0-cancel.json", "3c78f78e-dfcb-4d45-8966-9b201de16389", a2a.StateCanceled, "", nil, []a2a.Role{u, g}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			env := decodeEnvelope(t, readCapture(t, tc.file))
			require.NotNil(t, env.Result)
			task, err := a2a.Codec{}.DecodeTask(env.Result)
			require.NoError(t, err)
			if task.ID != tc.id {
				t.Errorf("ID = %v; want %v", task.ID, tc.id)
			}
			if task.ContextID == "" {
				t.Errorf("ContextID = %q; want non-empty", task.ContextID)
			}
			if task.Status.State != tc.state {
				t.Errorf("state = %v; want %v", task.Status.State, tc.state)
			}
			if got := task.Status.Message.Text(); got != tc.status {
				t.Errorf("status message text = %q; want %q", got, tc.status)
			}
			if task.Status.Timestamp.IsZero() {
				t.Errorf("status timestamp is zero; want the server's")
			}
			var arts []string
			for _, a := range task.Artifacts {
				arts = append(arts, a.Text())
			}
			if strings.Join(arts, "|") != strings.Join(tc.artifacts, "|") || len(arts) != len(tc.artifacts) {
				t.Errorf("artifact texts = %q; want %q", arts, tc.artifacts)
			}
			var roles []a2a.Role
			for _, m := range task.History {
				roles = append(roles, m.Role)
			}
			if len(roles) != len(tc.history) {
				t.Fatalf("history roles = %v; want %v", roles, tc.history)
			}
			for i := range roles {
				if roles[i] != tc.history[i] {
					t.Errorf("history roles = %v; want %v", roles, tc.history)
				}
			}
			if a := task.Artifact("no-such-id"); a != nil {
				t.Errorf("Artifact(unknown) = %v; want nil", a)
			}
			for i := range task.Artifacts {
				if got := task.Artifact(task.Artifacts[i].ID); got != &task.Artifacts[i] {
					t.Errorf("Artifact(%q) = %p; want %p", task.Artifacts[i].ID, got, &task.Artifacts[i])
				}
			}
		})
	}
}

func TestUnaryErrorCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		code   int
		reason string
	}{
		{"js-0.3.14-get-bare.json", a2a.CodeTaskNotFound, ""},
		{"js-1.3.0-compat03-get-bare.json", a2a.CodeInvalidParams, ""},
		// Plain JSON bodies answering a 1.0 stream request.
		{"js-1.3.0-subscribe-unknown.txt", a2a.CodeTaskNotFound, "TASK_NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			env := decodeEnvelope(t, readCapture(t, tc.file))
			require.NotNil(t, env.Error)
			if env.Error.Code != tc.code {
				t.Errorf("code = %v; want %v", env.Error.Code, tc.code)
			}
			if got := env.Error.Reason(); got != tc.reason {
				t.Errorf("Reason() = %q; want %q", got, tc.reason)
			}
			var err error = env.Error
			if !errors.Is(err, &a2a.RPCError{Code: tc.code}) {
				t.Errorf("errors.Is(%v, code %d) = false; want true", err, tc.code)
			}
		})
	}
}

func TestStreamErrorCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		code   int
		data   string
		reason string
	}{
		{"a2a-go-stream-executor-error.txt", a2a.CodeInternalError, "", ""},
		{"a2a-go-resubscribe-unknown.txt", a2a.CodeTaskNotFound, `{"error":"task not found"}`, ""},
		{"js-0.3.14-resubscribe-unknown.txt", a2a.CodeTaskNotFound, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			events := readSSE(t, readCapture(t, tc.file))
			require.NotEmpty(t, events)
			env := decodeEnvelope(t, events[len(events)-1].data)
			require.NotNil(t, env.Error)
			if env.Error.Code != tc.code {
				t.Errorf("code = %v; want %v", env.Error.Code, tc.code)
			}
			if string(env.Error.Data) != tc.data {
				t.Errorf("data = %s; want %s", env.Error.Data, tc.data)
			}
			if got := env.Error.Reason(); got != tc.reason {
				t.Errorf("Reason() = %q; want %q", got, tc.reason)
			}
		})
	}
}

func TestAgentCardCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		url        string
		transport  string
		version    string
		interfaces []a2a.AgentInterface
	}{
		{"a2a-go-agent-card.json", "http://127.0.0.1:46335/", string(a2a.BindingJSONRPC), "0.3.0", nil},
		{"js-0.3.14-agent-card.json", "http://127.0.0.1:43713/", string(a2a.BindingJSONRPC), "0.3.0", nil},
		{"js-1.3.0-agent-card.json", "", "", "", []a2a.AgentInterface{
			{URL: "http://127.0.0.1:34201/", ProtocolBinding: string(a2a.BindingJSONRPC), ProtocolVersion: "1.0"},
		}},
		// A hybrid card: the 0.3 fields and both interfaces.
		{"js-1.3.0-compat03-agent-card.json", "http://127.0.0.1:45509/", string(a2a.BindingJSONRPC), "0.3", []a2a.AgentInterface{
			{URL: "http://127.0.0.1:45509/", ProtocolBinding: string(a2a.BindingJSONRPC), ProtocolVersion: "1.0"},
			{URL: "http://127.0.0.1:45509/", ProtocolBinding: string(a2a.BindingJSONRPC), ProtocolVersion: "0.3"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			var card a2a.AgentCard
			require.NoError(t, json.Unmarshal(readCapture(t, tc.file), &card))
			if card.URL != tc.url {
				t.Errorf("URL = %v; want %v", card.URL, tc.url)
			}
			if card.PreferredTransport != tc.transport {
				t.Errorf("PreferredTransport = %v; want %v", card.PreferredTransport, tc.transport)
			}
			if card.ProtocolVersion != tc.version {
				t.Errorf("ProtocolVersion = %v; want %v", card.ProtocolVersion, tc.version)
			}
			require.Len(t, card.SupportedInterfaces, len(tc.interfaces))
			for i := range tc.interfaces {
				if card.SupportedInterfaces[i] != tc.interfaces[i] {
					t.Errorf("SupportedInterfaces[%d] = %+v; want %+v", i, card.SupportedInterfaces[i], tc.interfaces[i])
				}
			}
			if s := card.Capabilities.Streaming; s == nil || !*s {
				t.Errorf("Capabilities.Streaming = %v; want true", s)
			}
			if card.Capabilities.PushNotifications {
				t.Errorf("Capabilities.PushNotifications = true; want false")
			}
			if card.Name == "" || card.Version != "0.0.1" {
				t.Errorf("Name, Version = %q, %q; want non-empty, 0.0.1", card.Name, card.Version)
			}
			// Every advertised version must be one this module speaks.
			versions := []string{card.ProtocolVersion}
			for _, in := range card.SupportedInterfaces {
				versions = append(versions, in.ProtocolVersion)
			}
			for _, s := range versions {
				if s == "" {
					continue
				}
				if _, ok := a2a.ParseVersion(s); !ok {
					t.Errorf("ParseVersion(%q) = false; want true", s)
				}
			}
		})
	}
}
