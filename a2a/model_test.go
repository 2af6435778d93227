package a2a_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestTaskStateClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		state                 a2a.TaskState
		terminal, interrupted bool
	}{
		{a2a.StateSubmitted, false, false},
		{a2a.StateWorking, false, false},
		{a2a.StateInputRequired, false, true},
		{a2a.StateAuthRequired, false, true},
		{a2a.StateCompleted, true, false},
		{a2a.StateCanceled, true, false},
		{a2a.StateFailed, true, false},
		{a2a.StateRejected, true, false},
		{a2a.StateUnknown, false, false},
		{"", false, false},
	}
	for _, tc := range tests {
		if got := tc.state.Terminal(); got != tc.terminal {
			t.Errorf("%q.Terminal() = %v; want %v", tc.state, got, tc.terminal)
		}
		if got := tc.state.Interrupted(); got != tc.interrupted {
			t.Errorf("%q.Interrupted() = %v; want %v", tc.state, got, tc.interrupted)
		}
	}
}

// TestStateEncoding checks each state's spelling in both versions, including
// model values that hold a wire spelling instead of the canonical one.
func TestStateEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		state    a2a.TaskState
		v03, v10 string
	}{
		{a2a.StateSubmitted, "submitted", "TASK_STATE_SUBMITTED"},
		{a2a.StateWorking, "working", "TASK_STATE_WORKING"},
		{a2a.StateInputRequired, "input-required", "TASK_STATE_INPUT_REQUIRED"},
		{a2a.StateAuthRequired, "auth-required", "TASK_STATE_AUTH_REQUIRED"},
		{a2a.StateCompleted, "completed", "TASK_STATE_COMPLETED"},
		{a2a.StateCanceled, "canceled", "TASK_STATE_CANCELED"},
		{a2a.StateFailed, "failed", "TASK_STATE_FAILED"},
		{a2a.StateRejected, "rejected", "TASK_STATE_REJECTED"},
		{a2a.StateUnknown, "unknown", "TASK_STATE_UNSPECIFIED"},
		{"", "unknown", "TASK_STATE_UNSPECIFIED"},
		{"bogus", "unknown", "TASK_STATE_UNSPECIFIED"},
		{"cancelled", "canceled", "TASK_STATE_CANCELED"},
		{"TASK_STATE_CANCELLED", "canceled", "TASK_STATE_CANCELED"},
		{"TASK_STATE_WORKING", "working", "TASK_STATE_WORKING"},
	}
	for _, tc := range tests {
		for v, want := range map[a2a.Version]string{a2a.V03: tc.v03, a2a.V10: tc.v10} {
			b, err := a2a.Codec{Version: v}.EncodeTask(&a2a.Task{ID: "t", Status: a2a.TaskStatus{State: tc.state}})
			require.NoError(t, err)
			var got struct {
				Status struct{ State string }
			}
			require.NoError(t, json.Unmarshal(b, &got))
			if got.Status.State != want {
				t.Errorf("state %q in %s = %v; want %v", tc.state, v, got.Status.State, want)
			}
		}
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want a2a.Version
		ok   bool
	}{
		{"0.3", a2a.V03, true},
		{"0.3.0", a2a.V03, true},
		{"0.3.14", a2a.V03, true},
		{"1.0", a2a.V10, true},
		{"1.0.0", a2a.V10, true},
		{"1.0.1", a2a.V10, true},
		{"", "", false},
		{"0.2.6", "", false},
		{"0.30", "", false},
		{"1", "", false},
		{"1.00", "", false},
		{"1.1", "", false},
		{"2.0", "", false},
		{"v1.0", "", false},
	}
	for _, tc := range tests {
		got, ok := a2a.ParseVersion(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if a2a.V03.String() != "0.3" || a2a.V10.String() != "1.0" {
		t.Errorf("String() = %v, %v; want 0.3, 1.0", a2a.V03, a2a.V10)
	}
}

func TestNewTextMessage(t *testing.T) {
	t.Parallel()
	m := a2a.NewTextMessage(a2a.RoleUser, "hello")
	id, err := uuid.Parse(m.ID)
	require.NoError(t, err, "message ID %q", m.ID)
	if id.Version() != 4 {
		t.Errorf("UUID version = %v; want 4", id.Version())
	}
	if m.Role != a2a.RoleUser {
		t.Errorf("role = %v; want %v", m.Role, a2a.RoleUser)
	}
	if m.Text() != "hello" || len(m.Parts) != 1 || !m.Parts[0].IsText() {
		t.Errorf("parts = %+v; want one text part hello", m.Parts)
	}
	if m.TaskID != "" || m.ContextID != "" || m.Metadata != nil {
		t.Errorf("task, context, metadata = %q, %q, %v; want empty", m.TaskID, m.ContextID, m.Metadata)
	}
	if other := a2a.NewTextMessage(a2a.RoleAgent, ""); other.ID == m.ID {
		t.Errorf("two messages share the ID %v; want fresh IDs", m.ID)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		parts []a2a.Part
		want  string
	}{
		{"none", nil, ""},
		{"one text", []a2a.Part{a2a.TextPart("a")}, "a"},
		{"one data", []a2a.Part{{Data: json.RawMessage(`{}`)}}, ""},
		{"mixed", []a2a.Part{
			a2a.TextPart("chunk-1 "),
			{Data: json.RawMessage(`{"x":1}`), Text: "ignored"},
			{URL: "https://x", Text: "ignored"},
			{Raw: []byte{}},
			a2a.TextPart("chunk-2"),
		}, "chunk-1 chunk-2"},
	}
	for _, tc := range tests {
		m := &a2a.Message{Parts: tc.parts}
		if got := m.Text(); got != tc.want {
			t.Errorf("%s: Message.Text() = %q; want %q", tc.name, got, tc.want)
		}
		a := &a2a.Artifact{Parts: tc.parts}
		if got := a.Text(); got != tc.want {
			t.Errorf("%s: Artifact.Text() = %q; want %q", tc.name, got, tc.want)
		}
	}
	var m *a2a.Message
	var a *a2a.Artifact
	if m.Text() != "" || a.Text() != "" {
		t.Errorf("Text() of nil = %q, %q; want empty", m.Text(), a.Text())
	}
}

type note struct{ N int }

func TestPartEqual(t *testing.T) {
	t.Parallel()
	base := a2a.Part{
		Text: "t", MediaType: "text/plain", Filename: "f",
		Metadata: map[string]any{"k": "v", "n": 1.0, "nested": map[string]any{"list": []any{1.0, "x", nil, true}}},
	}
	tests := []struct {
		name  string
		a, b  a2a.Part
		equal bool
	}{
		{"zero", a2a.Part{}, a2a.Part{}, true},
		{"same", base, base.Clone(), true},
		{"text", base, with(base, func(p *a2a.Part) { p.Text = "u" }), false},
		{"media type", base, with(base, func(p *a2a.Part) { p.MediaType = "text/html" }), false},
		{"file name", base, with(base, func(p *a2a.Part) { p.Filename = "g" }), false},
		{"url", a2a.Part{URL: "https://a"}, a2a.Part{URL: "https://b"}, false},
		{"data", a2a.Part{Data: json.RawMessage(`1`)}, a2a.Part{Data: json.RawMessage(`2`)}, false},
		{"data keys in another order", a2a.Part{Data: json.RawMessage(`{"a":1,"b":{"c":[1,2],"d":"x"}}`)},
			a2a.Part{Data: json.RawMessage(`{"b":{"d":"x","c":[1,2]},"a":1}`)}, true},
		{"data written otherwise", a2a.Part{Data: json.RawMessage(`{"n":1.50,"s":"\u00e9"}`)},
			a2a.Part{Data: json.RawMessage(` { "s" : "é" , "n" : 15e-1 } `)}, true},
		{"data in another array order", a2a.Part{Data: json.RawMessage(`[1,2]`)}, a2a.Part{Data: json.RawMessage(`[2,1]`)}, false},
		{"data beyond float64", a2a.Part{Data: json.RawMessage(`9007199254740993`)}, a2a.Part{Data: json.RawMessage(`9007199254740992`)}, false},
		{"data not JSON", a2a.Part{Data: json.RawMessage(`{"a":`)}, a2a.Part{Data: json.RawMessage(`{"a":`)}, true},
		{"data not JSON, other bytes", a2a.Part{Data: json.RawMessage(`{"a":1`)}, a2a.Part{Data: json.RawMessage(`{"a": 1`)}, false},
		{"data vs none", a2a.Part{Data: json.RawMessage(`1`)}, a2a.Part{}, false},
		{"empty data vs none", a2a.Part{Data: json.RawMessage{}}, a2a.Part{}, false},
		{"raw", a2a.Part{Raw: []byte("a")}, a2a.Part{Raw: []byte("b")}, false},
		{"empty raw vs none", a2a.Part{Raw: []byte{}}, a2a.Part{}, false},
		{"empty raw vs empty raw", a2a.Part{Raw: []byte{}}, a2a.Part{Raw: []byte{}}, true},
		{"nil vs empty metadata", a2a.Part{}, a2a.Part{Metadata: map[string]any{}}, true},
		{"metadata value", base, with(base, func(p *a2a.Part) { p.Metadata["k"] = "w" }), false},
		{"metadata key", base, with(base, func(p *a2a.Part) { p.Metadata["k2"] = "v" }), false},
		{"nested list element", base, with(base, func(p *a2a.Part) {
			p.Metadata["nested"].(map[string]any)["list"].([]any)[3] = false
		}), false},
		{"nested list length", base, with(base, func(p *a2a.Part) {
			m := p.Metadata["nested"].(map[string]any)
			m["list"] = append(m["list"].([]any), 1.0)
		}), false},
		{"nested map vs list", base, with(base, func(p *a2a.Part) { p.Metadata["nested"] = []any{} }), false},
		{"string vs number", a2a.Part{Metadata: map[string]any{"n": "1"}}, a2a.Part{Metadata: map[string]any{"n": 1.0}}, false},
		{"int vs float64", a2a.Part{Metadata: map[string]any{"n": 1}}, a2a.Part{Metadata: map[string]any{"n": 1.0}}, true},
		{"json.Number vs float64", a2a.Part{Metadata: map[string]any{"n": json.Number("1")}}, a2a.Part{Metadata: map[string]any{"n": 1.0}}, true},
		{"typed map vs decoded map", a2a.Part{Metadata: map[string]any{"m": map[string]string{"a": "b"}}},
			a2a.Part{Metadata: map[string]any{"m": map[string]any{"a": "b"}}}, true},
		{"struct vs decoded map", a2a.Part{Metadata: map[string]any{"s": note{N: 2}}},
			a2a.Part{Metadata: map[string]any{"s": map[string]any{"N": 2.0}}}, true},
		{"unencodable", a2a.Part{Metadata: map[string]any{"c": make(chan int)}}, a2a.Part{Metadata: map[string]any{"c": make(chan int)}}, false},
	}
	for _, tc := range tests {
		// Equal must not depend on which side is which.
		if got := tc.a.Equal(&tc.b); got != tc.equal {
			t.Errorf("%s: a.Equal(b) = %v; want %v", tc.name, got, tc.equal)
		}
		if got := tc.b.Equal(&tc.a); got != tc.equal {
			t.Errorf("%s: b.Equal(a) = %v; want %v", tc.name, got, tc.equal)
		}
	}
}

// with returns a deep copy of p changed by f.
func with(p a2a.Part, f func(*a2a.Part)) a2a.Part {
	c := p.Clone()
	f(&c)
	return c
}

func TestIsText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    a2a.Part
		want bool
	}{
		{a2a.Part{}, true},
		{a2a.TextPart("x"), true},
		{a2a.Part{Text: "x", MediaType: "text/plain", Filename: "f"}, true},
		{a2a.Part{Data: json.RawMessage(`{}`)}, false},
		{a2a.Part{URL: "https://x"}, false},
		{a2a.Part{Raw: []byte{}}, false},
	}
	for _, tc := range tests {
		if got := tc.p.IsText(); got != tc.want {
			t.Errorf("%+v.IsText() = %v; want %v", tc.p, got, tc.want)
		}
	}
}

func richMessage() *a2a.Message {
	return &a2a.Message{
		ID: "m", TaskID: "t", ContextID: "c", Role: a2a.RoleAgent,
		Parts: []a2a.Part{
			{Text: "hi", Metadata: map[string]any{"a": map[string]any{"b": []any{"c"}}}},
			{Data: json.RawMessage(`{"x":1}`)},
			{Raw: []byte("raw")},
		},
		Metadata: map[string]any{"list": []any{map[string]any{"k": "v"}}},
	}
}

func richTask() *a2a.Task {
	return &a2a.Task{
		ID: "t", ContextID: "c",
		Status:    a2a.TaskStatus{State: a2a.StateWorking, Message: richMessage(), Timestamp: time.Unix(1, 0).UTC()},
		Artifacts: []a2a.Artifact{{ID: "a", Name: "n", Parts: richMessage().Parts, Metadata: map[string]any{"k": "v"}}},
		History:   []a2a.Message{*richMessage(), *richMessage()},
		Metadata:  map[string]any{"k": []any{1.0}},
	}
}

// mutateMessage changes every reference-typed field reachable from m in
// place (never by replacing a slice or map held by m itself).
func mutateMessage(m *a2a.Message) {
	m.Parts[0].Text = "changed"
	m.Parts[0].Metadata["a"].(map[string]any)["b"].([]any)[0] = "changed"
	m.Parts[1].Data[1] = 'X'
	m.Parts[2].Raw[0] = 'X'
	m.Metadata["list"].([]any)[0].(map[string]any)["k"] = "changed"
}

func TestClone(t *testing.T) {
	t.Parallel()
	t.Run("message", func(t *testing.T) {
		t.Parallel()
		orig := richMessage()
		c := orig.Clone()
		require.Equal(t, orig, c)
		mutateMessage(c)
		require.Equal(t, richMessage(), orig)
		var nilMsg *a2a.Message
		require.Nil(t, nilMsg.Clone())
	})
	t.Run("task", func(t *testing.T) {
		t.Parallel()
		orig := richTask()
		c := orig.Clone()
		require.Equal(t, orig, c)
		mutateMessage(c.Status.Message)
		mutateMessage(&c.History[0])
		c.History[1].Parts[0].Text = "changed"
		c.Artifacts[0].Parts[2].Raw[0] = 'X'
		c.Artifacts[0].Parts[1].Data[1] = 'X'
		c.Artifacts[0].Metadata["k"] = "changed"
		c.Artifacts[0].Name = "changed"
		c.Metadata["k"].([]any)[0] = 2.0
		require.Equal(t, richTask(), orig)
		var nilTask *a2a.Task
		require.Nil(t, nilTask.Clone())
	})
	t.Run("nil fields stay nil", func(t *testing.T) {
		t.Parallel()
		c := (&a2a.Task{ID: "t"}).Clone()
		require.Equal(t, &a2a.Task{ID: "t"}, c)
		p := (&a2a.Part{Raw: []byte{}, Data: json.RawMessage{}}).Clone()
		if p.Raw == nil || p.Data == nil {
			t.Errorf("Clone of empty Raw, Data = %#v, %#v; want empty, not nil", p.Raw, p.Data)
		}
	})
	t.Run("clone leaves the original alone", func(t *testing.T) {
		t.Parallel()
		orig := a2a.Part{Raw: []byte("r"), Data: json.RawMessage(`{}`), Metadata: map[string]any{"k": "v"}}
		raw, data := orig.Raw, orig.Data
		c := orig.Clone()
		c.Raw[0], c.Data[0], c.Metadata["k"] = 'x', '[', "w"
		require.Equal(t, "r", string(orig.Raw))
		require.Equal(t, "{}", string(orig.Data))
		require.Equal(t, "v", orig.Metadata["k"])
		require.Same(t, &raw[0], &orig.Raw[0], "the original keeps its own slices")
		require.Same(t, &data[0], &orig.Data[0])

		art := a2a.Artifact{ID: "a", Parts: []a2a.Part{{Text: "x"}}}
		parts := art.Parts
		ca := art.Clone()
		ca.Parts[0].Text = "y"
		require.Equal(t, "x", art.Parts[0].Text)
		require.Same(t, &parts[0], &art.Parts[0])
	})
}

func TestRPCError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    *a2a.RPCError
		text   string
		reason string
	}{
		{&a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "Task not found: x"}, "a2a: json-rpc error -32001 (task not found): Task not found: x", ""},
		{&a2a.RPCError{Code: a2a.CodeVersionNotSupported}, "a2a: json-rpc error -32009 (version not supported)", ""},
		{&a2a.RPCError{Code: -1, Message: "odd"}, "a2a: json-rpc error -1: odd", ""},
		{&a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "m", Data: json.RawMessage(
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]`)},
			"a2a: json-rpc error -32004 (unsupported operation): m", "UNSUPPORTED_OPERATION"},
		{&a2a.RPCError{Code: a2a.CodeTaskNotFound, Data: json.RawMessage(
			` [ "not an object", {"@type":"type.googleapis.com/google.rpc.DebugInfo"}, {"reason":"TASK_NOT_FOUND"} ]`)},
			"a2a: json-rpc error -32001 (task not found)", "TASK_NOT_FOUND"},
		// 0.3 data is free-form: a2a-go sends an object.
		{&a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found", Data: json.RawMessage(`{"error":"task not found","reason":"X"}`)},
			"a2a: json-rpc error -32001 (task not found): task not found", ""},
		{&a2a.RPCError{Code: a2a.CodeInternalError, Data: json.RawMessage(`null`)}, "a2a: json-rpc error -32603 (internal error)", ""},
		{&a2a.RPCError{Code: a2a.CodeInternalError, Data: json.RawMessage(`[]`)}, "a2a: json-rpc error -32603 (internal error)", ""},
		{&a2a.RPCError{Code: a2a.CodeInternalError, Data: json.RawMessage(`[1,`)}, "a2a: json-rpc error -32603 (internal error)", ""},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.text {
			t.Errorf("Error() = %v; want %v", got, tc.text)
		}
		if got := tc.err.Reason(); got != tc.reason {
			t.Errorf("%s: Reason() = %v; want %v", tc.err.Data, got, tc.reason)
		}
	}

	var err error = fmt.Errorf("stream: %w", &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "gone"})
	if !errors.Is(err, &a2a.RPCError{Code: a2a.CodeTaskNotFound}) {
		t.Errorf("errors.Is(wrapped -32001, -32001) = false; want true")
	}
	if errors.Is(err, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation}) {
		t.Errorf("errors.Is(wrapped -32001, -32004) = true; want false")
	}
	if errors.Is(err, a2a.ErrUnknownResult) {
		t.Errorf("errors.Is(wrapped -32001, ErrUnknownResult) = true; want false")
	}
	var rpc *a2a.RPCError
	require.True(t, errors.As(err, &rpc))
	if rpc.Message != "gone" {
		t.Errorf("errors.As message = %v; want gone", rpc.Message)
	}
}

func TestRPCErrorBoundsTheMessage(t *testing.T) {
	t.Parallel()
	const prefix = "a2a: json-rpc error -32603 (internal error): "
	tests := []struct {
		name    string
		message string
		quoted  string // what Error quotes after the prefix
	}{
		{"1 MB", strings.Repeat("x", 1<<20), strings.Repeat("x", 256) + "…"},
		{"256 bytes, whole", strings.Repeat("x", 256), strings.Repeat("x", 256)},
		{"257 bytes", strings.Repeat("x", 257), strings.Repeat("x", 256) + "…"},
		{"a 2-byte rune across the bound", strings.Repeat("x", 255) + "éé", strings.Repeat("x", 255) + "…"},
		{"a 2-byte rune ending on the bound", strings.Repeat("x", 254) + "éé", strings.Repeat("x", 254) + "é…"},
		{"a 4-byte rune across the bound", strings.Repeat("x", 254) + "🙂🙂", strings.Repeat("x", 254) + "…"},
		{"a 3-byte rune across the bound", strings.Repeat("x", 255) + "€", strings.Repeat("x", 255) + "…"},
		{"all multi-byte", strings.Repeat("€", 1000), strings.Repeat("€", 85) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &a2a.RPCError{Code: a2a.CodeInternalError, Message: tc.message}
			got := e.Error()
			require.Equal(t, prefix+tc.quoted, got)
			require.True(t, utf8.ValidString(got), "cut on a UTF-8 boundary")
			require.LessOrEqual(t, len(got), len(prefix)+256+len("…"))
			require.Equal(t, tc.message, e.Message, "the field keeps the message whole")
		})
	}

	// Invalid UTF-8 (a hand-built error; decoded messages are valid): still
	// bounded, and no panic.
	junk := &a2a.RPCError{Code: -1, Message: strings.Repeat("\x80", 1000)}
	require.LessOrEqual(t, len(junk.Error()), len("a2a: json-rpc error -1: ")+256+len("…"))

	// A decoded 1 MB message: the same.
	big := strings.Repeat("y", 1<<20)
	raw, err := json.Marshal(map[string]any{"code": a2a.CodeInternalError, "message": big})
	require.NoError(t, err)
	var decoded a2a.RPCError
	require.NoError(t, json.Unmarshal(raw, &decoded))
	require.Equal(t, big, decoded.Message)
	require.Equal(t, prefix+big[:256]+"…", decoded.Error())
}

func TestUnknownKindIsCutOnARuneBoundary(t *testing.T) {
	t.Parallel()
	kind := "a" + strings.Repeat("é", 100) // byte 64 is inside an é
	_, err := a2a.Codec{}.DecodeTask([]byte(`{"kind":"` + kind + `","id":"t"}`))
	require.ErrorIs(t, err, a2a.ErrUnknownResult)
	require.Contains(t, err.Error(), `"a`+strings.Repeat("é", 31)+`…"`)
}

func TestRPCErrorJSON(t *testing.T) {
	t.Parallel()
	in := `{"code":-32001,"message":"nope","data":[{"reason":"TASK_NOT_FOUND"}]}`
	var e a2a.RPCError
	require.NoError(t, json.Unmarshal([]byte(in), &e))
	if e.Code != a2a.CodeTaskNotFound || e.Message != "nope" || e.Reason() != "TASK_NOT_FOUND" {
		t.Errorf("decoded %+v; want code -32001, message nope, reason TASK_NOT_FOUND", e)
	}
	b, err := json.Marshal(&e)
	require.NoError(t, err)
	if string(b) != in {
		t.Errorf("json.Marshal = %s; want %s", b, in)
	}
	b, err = json.Marshal(&a2a.RPCError{Code: a2a.CodeInternalError, Message: "x"})
	require.NoError(t, err)
	if want := `{"code":-32603,"message":"x"}`; string(b) != want {
		t.Errorf("json.Marshal = %s; want %s", b, want)
	}
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	var (
		nilTask   *a2a.Task
		nilMsg    *a2a.Message
		nilStatus *a2a.StatusUpdate
		nilArt    *a2a.ArtifactUpdate
	)
	tests := []struct {
		name string
		f    func() ([]byte, error)
	}{
		{"nil event", func() ([]byte, error) { return a2a.Codec{Version: a2a.V03}.EncodeEvent(nil) }},
		{"nil task event", func() ([]byte, error) { return a2a.Codec{Version: a2a.V03}.EncodeEvent(nilTask) }},
		{"nil message event", func() ([]byte, error) { return a2a.Codec{Version: a2a.V10}.EncodeEvent(nilMsg) }},
		{"nil status event", func() ([]byte, error) { return a2a.Codec{Version: a2a.V10}.EncodeEvent(nilStatus) }},
		{"nil artifact event", func() ([]byte, error) { return a2a.Codec{Version: a2a.V03}.EncodeEvent(nilArt) }},
		{"nil task", func() ([]byte, error) { return a2a.Codec{Version: a2a.V10}.EncodeTask(nil) }},
		{"nil message", func() ([]byte, error) { return a2a.Codec{Version: a2a.V03}.EncodeMessage(nil) }},
		{"event in 0.2", func() ([]byte, error) { return a2a.Codec{Version: "0.2"}.EncodeEvent(&a2a.Task{}) }},
		{"task in empty version", func() ([]byte, error) { return a2a.Codec{Version: ""}.EncodeTask(&a2a.Task{}) }},
		{"message in 0.3.0", func() ([]byte, error) { return a2a.Codec{Version: "0.3.0"}.EncodeMessage(&a2a.Message{}) }},
		{"unencodable metadata", func() ([]byte, error) {
			return a2a.Codec{Version: a2a.V10}.EncodeEvent(&a2a.Task{Metadata: map[string]any{"c": make(chan int)}})
		}},
	}
	for _, tc := range tests {
		b, err := tc.f()
		if err == nil {
			t.Errorf("%s: = %s, nil; want an error", tc.name, b)
		}
	}
}
