package a2a_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func decodeAs[T a2a.Event](tb testing.TB, in string) T {
	tb.Helper()
	ev, err := a2a.Codec{}.DecodeEvent([]byte(in))
	require.NoError(tb, err, in)
	x, ok := ev.(T)
	require.Truef(tb, ok, "DecodeEvent(%s) = %T", in, ev)
	return x
}

func TestLenientArtifactFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		in           string
		append, last bool
	}{
		{"0.3 both missing", `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]}}`, false, false},
		{"0.3 both set", `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]},"append":true,"lastChunk":true}`, true, true},
		{"1.0 both missing", `{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`, false, false},
		{"1.0 lastChunk only", `{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"lastChunk":true}}`, false, true},
		{"1.0 append null", `{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a"},"append":null}}`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := decodeAs[*a2a.ArtifactUpdate](t, tc.in)
			if u.Append != tc.append || u.LastChunk != tc.last {
				t.Errorf("append, lastChunk = %v, %v; want %v, %v", u.Append, u.LastChunk, tc.append, tc.last)
			}
			if u.Artifact.ID != "a" {
				t.Errorf("artifact ID = %v; want a", u.Artifact.ID)
			}
		})
	}
}

func TestLenientStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status string // the JSON of "status", or "" for none at all
		state  a2a.TaskState
		ts     time.Time
	}{
		{"no status", "", a2a.StateUnknown, time.Time{}},
		{"status null", `null`, a2a.StateUnknown, time.Time{}},
		{"missing state", `{}`, a2a.StateUnknown, time.Time{}},
		{"empty state", `{"state":""}`, a2a.StateUnknown, time.Time{}},
		{"unknown spelling", `{"state":"paused"}`, a2a.StateUnknown, time.Time{}},
		{"lower-case 1.0 name", `{"state":"task_state_working"}`, a2a.StateUnknown, time.Time{}},
		{"0.3 unknown", `{"state":"unknown"}`, a2a.StateUnknown, time.Time{}},
		{"unspecified", `{"state":"TASK_STATE_UNSPECIFIED"}`, a2a.StateUnknown, time.Time{}},
		{"british proto spelling", `{"state":"TASK_STATE_CANCELLED"}`, a2a.StateCanceled, time.Time{}},
		{"british kebab spelling", `{"state":"cancelled"}`, a2a.StateCanceled, time.Time{}},
		{"1.0 canceled", `{"state":"TASK_STATE_CANCELED"}`, a2a.StateCanceled, time.Time{}},
		{"auth required", `{"state":"TASK_STATE_AUTH_REQUIRED"}`, a2a.StateAuthRequired, time.Time{}},
		{"rejected", `{"state":"rejected"}`, a2a.StateRejected, time.Time{}},
		{"no timestamp", `{"state":"working"}`, a2a.StateWorking, time.Time{}},
		{"empty timestamp", `{"state":"working","timestamp":""}`, a2a.StateWorking, time.Time{}},
		{"bad timestamp", `{"state":"working","timestamp":"yesterday"}`, a2a.StateWorking, time.Time{}},
		{"millis", `{"state":"working","timestamp":"2026-11-22T02:53:03.507Z"}`, a2a.StateWorking, time.Date(2026, 11, 22, 2, 53, 3, 507e6, time.UTC)},
		{"nanos", `{"state":"working","timestamp":"2026-11-22T02:52:44.128482303Z"}`, a2a.StateWorking, time.Date(2026, 11, 22, 2, 52, 44, 128482303, time.UTC)},
		{"offset", `{"state":"working","timestamp":"2026-11-22T04:52:44+02:00"}`, a2a.StateWorking, time.Date(2026, 11, 22, 2, 52, 44, 0, time.UTC)},
		{"no zone (Python isoformat)", `{"state":"working","timestamp":"2026-11-22T02:52:44.5"}`, a2a.StateWorking, time.Date(2026, 11, 22, 2, 52, 44, 5e8, time.UTC)},
		{"past year 9999 in UTC", `{"state":"working","timestamp":"9999-12-31T23:00:00-02:00"}`, a2a.StateWorking, time.Time{}},
		{"unknown status fields", `{"state":"working","progress":0.5,"x":{"y":[1]}}`, a2a.StateWorking, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status := ""
			if tc.status != "" {
				status = `,"status":` + tc.status
			}
			for _, in := range []string{
				`{"kind":"status-update","taskId":"t","contextId":"c","final":false` + status + `}`,
				`{"statusUpdate":{"taskId":"t","contextId":"c"` + status + `}}`,
				`{"kind":"task","id":"t","contextId":"c"` + status + `}`,
			} {
				ev, err := a2a.Codec{}.DecodeEvent([]byte(in))
				require.NoError(t, err, in)
				var st a2a.TaskStatus
				switch x := ev.(type) {
				case *a2a.StatusUpdate:
					st = x.Status
				case *a2a.Task:
					st = x.Status
				default:
					t.Fatalf("DecodeEvent(%s) = %T", in, ev)
				}
				if st.State != tc.state {
					t.Errorf("%s: state = %v; want %v", in, st.State, tc.state)
				}
				if !st.Timestamp.Equal(tc.ts) {
					t.Errorf("%s: timestamp = %v; want %v", in, st.Timestamp, tc.ts)
				}
				if !st.Timestamp.IsZero() && st.Timestamp.Location() != time.UTC {
					t.Errorf("%s: timestamp location = %v; want UTC", in, st.Timestamp.Location())
				}
			}
		})
	}
}

func TestLenientMetadata(t *testing.T) {
	t.Parallel()
	// "metadata":{} is everywhere in js 1.3.0 output; it must read as nil.
	empty := `{"artifactUpdate":{"taskId":"t","contextId":"c","metadata":{ },` +
		`"artifact":{"artifactId":"a","metadata":{},"parts":[{"text":"x","metadata":{},"mediaType":"text/plain"}]}}}`
	u := decodeAs[*a2a.ArtifactUpdate](t, empty)
	if u.Metadata != nil || u.Artifact.Metadata != nil || u.Artifact.Parts[0].Metadata != nil {
		t.Errorf("metadata = %#v, %#v, %#v; want nil, nil, nil", u.Metadata, u.Artifact.Metadata, u.Artifact.Parts[0].Metadata)
	}
	if u.Artifact.Parts[0].MediaType != "text/plain" {
		t.Errorf("media type = %v; want text/plain", u.Artifact.Parts[0].MediaType)
	}

	task := decodeAs[*a2a.Task](t, `{"task":{"id":"t","contextId":"c","metadata":null,"status":{"state":"TASK_STATE_WORKING",`+
		`"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}],"metadata":{}}}}}`)
	if task.Metadata != nil || task.Status.Message.Metadata != nil {
		t.Errorf("metadata = %#v, %#v; want nil, nil", task.Metadata, task.Status.Message.Metadata)
	}

	full := decodeAs[*a2a.Message](t, `{"kind":"message","messageId":"m","role":"agent","parts":[],`+
		`"metadata":{"k":"v","nested":{"list":[1,"two",{}],"empty":{}}}}`)
	want := map[string]any{"k": "v", "nested": map[string]any{"list": []any{1.0, "two", map[string]any{}}, "empty": map[string]any{}}}
	require.Equal(t, want, full.Metadata)

	_, err := a2a.Codec{}.DecodeEvent([]byte(`{"kind":"message","messageId":"m","role":"agent","metadata":"not an object"}`))
	if err == nil {
		t.Errorf("DecodeEvent with string metadata: err = nil; want an error")
	}
}

func TestLenientUnknownFields(t *testing.T) {
	t.Parallel()
	in := `{"kind":"task","id":"t","contextId":"c","createdAt":"2026-01-01T00:00:00Z","status":{"state":"completed"},` +
		`"artifacts":[{"artifactId":"a","extensions":["x"],"parts":[{"kind":"text","text":"ok","future":true}]}],` +
		`"history":[{"kind":"message","messageId":"m","role":"user","referenceTaskIds":["o"],"extensions":[],"parts":[{"kind":"text","text":"q"}]}]}`
	task := decodeAs[*a2a.Task](t, in)
	want := &a2a.Task{
		ID: "t", ContextID: "c",
		Status:    a2a.TaskStatus{State: a2a.StateCompleted},
		Artifacts: []a2a.Artifact{{ID: "a", Parts: []a2a.Part{{Text: "ok"}}}},
		History:   []a2a.Message{{ID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "q"}}}},
	}
	require.Equal(t, want, task)
}

func TestLenientParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		part string
		want a2a.Part
	}{
		{"0.3 text", `{"kind":"text","text":"hi"}`, a2a.Part{Text: "hi"}},
		{"0.3 data", `{"kind":"data","data":{"a":1}}`, a2a.Part{Data: json.RawMessage(`{"a":1}`)}},
		{"0.3 data spaced", `{"kind":"data","data": { "a" : [ 1 , 2 ] } }`, a2a.Part{Data: json.RawMessage(`{"a":[1,2]}`)}},
		{"0.3 file bytes", `{"kind":"file","file":{"name":"f.txt","mimeType":"text/plain","bytes":"aGk="}}`, a2a.Part{Raw: []byte("hi"), MediaType: "text/plain", Filename: "f.txt"}},
		{"0.3 file uri", `{"kind":"file","file":{"uri":"https://x/y"}}`, a2a.Part{URL: "https://x/y"}},
		{"0.3 file with neither", `{"kind":"file","file":{"name":"empty"}}`, a2a.Part{Raw: []byte{}, Filename: "empty"}},
		{"0.3 empty bytes", `{"kind":"file","file":{"bytes":""}}`, a2a.Part{Raw: []byte{}}},
		{"1.0 text", `{"text":"hi","mediaType":"text/plain"}`, a2a.Part{Text: "hi", MediaType: "text/plain"}},
		{"1.0 text with null data", `{"text":"hi","data":null}`, a2a.Part{Text: "hi"}},
		{"1.0 data scalar", `{"data":42}`, a2a.Part{Data: json.RawMessage(`42`)}},
		{"1.0 data keeps html", `{"data":{"h":"<b>&amp;</b>"}}`, a2a.Part{Data: json.RawMessage(`{"h":"<b>&amp;</b>"}`)}},
		{"1.0 url", `{"url":"https://x/a.pdf","mediaType":"application/pdf","filename":"a.pdf"}`, a2a.Part{URL: "https://x/a.pdf", MediaType: "application/pdf", Filename: "a.pdf"}},
		{"1.0 raw std", `{"raw":"+/8="}`, a2a.Part{Raw: []byte{0xfb, 0xff}}},
		{"1.0 raw std unpadded", `{"raw":"+/8"}`, a2a.Part{Raw: []byte{0xfb, 0xff}}},
		{"1.0 raw url-safe", `{"raw":"-_8="}`, a2a.Part{Raw: []byte{0xfb, 0xff}}},
		{"1.0 raw url-safe unpadded", `{"raw":"-_8"}`, a2a.Part{Raw: []byte{0xfb, 0xff}}},
		{"1.0 raw null", `{"raw":null,"text":"t"}`, a2a.Part{Text: "t"}},
		{"empty object", `{}`, a2a.Part{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := `{"messageId":"m","role":"ROLE_AGENT","parts":[` + tc.part + `]}`
			m, err := a2a.Codec{}.DecodeMessage([]byte(in))
			require.NoError(t, err)
			require.Len(t, m.Parts, 1)
			require.Equal(t, tc.want, m.Parts[0])
		})
	}

	_, err := a2a.Codec{}.DecodeEvent([]byte(`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"raw":"*not base64*"}]}}`))
	if err == nil {
		t.Errorf("DecodeEvent with bad base64: err = nil; want an error")
	}
}

func TestLenientRoles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role string
		want a2a.Role
	}{
		{"user", a2a.RoleUser},
		{"agent", a2a.RoleAgent},
		{"ROLE_USER", a2a.RoleUser},
		{"ROLE_AGENT", a2a.RoleAgent},
		{"ROLE_UNSPECIFIED", ""},
		{"system", ""},
	}
	for _, tc := range tests {
		m, err := a2a.Codec{}.DecodeMessage([]byte(`{"messageId":"m","role":"` + tc.role + `","parts":[]}`))
		require.NoError(t, err)
		if m.Role != tc.want {
			t.Errorf("role %q = %q; want %q", tc.role, m.Role, tc.want)
		}
	}
}

func TestFinalIgnoredIn10(t *testing.T) {
	t.Parallel()
	u := decodeAs[*a2a.StatusUpdate](t, `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"final":true}}`)
	if u.Final {
		t.Errorf("Final = true; want false (1.0 has no final)")
	}
	u = decodeAs[*a2a.StatusUpdate](t, `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`)
	if !u.Final {
		t.Errorf("Final = false; want true (0.3)")
	}
}

func TestDecodeEventErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		unknown bool // the error wraps ErrUnknownResult
	}{
		{"two wrapper members", `{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}},"statusUpdate":{"taskId":"t","status":{}}}`, true},
		{"all four wrapper members", `{"task":{},"message":{},"statusUpdate":{},"artifactUpdate":{}}`, true},
		{"empty object", `{}`, true},
		{"null", `null`, true},
		{"wrapper member null", `{"task":null}`, true},
		{"unknown wrapper", `{"taskStatusUpdate":{"taskId":"t"}}`, true},
		{"unknown kind", `{"kind":"push-notification","taskId":"t"}`, true},
		{"kind of a part", `{"kind":"text","text":"hi"}`, true},
		{"array", `[{"kind":"task"}]`, false},
		{"string", `"task"`, false},
		{"number", `42`, false},
		{"truncated", `{"kind":"task","id":"t"`, false},
		{"empty input", ``, false},
		{"kind not a string", `{"kind":1}`, false},
		{"parts not a list", `{"kind":"message","messageId":"m","parts":{"kind":"text"}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := a2a.Codec{}.DecodeEvent([]byte(tc.in))
			if err == nil {
				t.Fatalf("DecodeEvent(%s) = %T, nil; want an error", tc.in, ev)
			}
			if got := errors.Is(err, a2a.ErrUnknownResult); got != tc.unknown {
				t.Errorf("errors.Is(%v, ErrUnknownResult) = %v; want %v", err, got, tc.unknown)
			}
		})
	}
}

func TestDecodeTaskErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
	}{
		{"0.3 message", `{"kind":"message","messageId":"m","role":"agent","parts":[]}`},
		{"0.3 status update", `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}`},
		{"0.3 artifact update", `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a"}}`},
		{"1.0 status update", `{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}`},
		{"1.0 wrapper", `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`},
		{"no id", `{"kind":"task","contextId":"c","status":{"state":"working"}}`},
		{"not an object", `["task"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			task, err := a2a.Codec{}.DecodeTask([]byte(tc.in))
			if err == nil {
				t.Errorf("DecodeTask(%s) = %+v, nil; want an error", tc.in, task)
			}
		})
	}

	_, err := a2a.Codec{}.DecodeMessage([]byte(`{"kind":"task","id":"t"}`))
	if !errors.Is(err, a2a.ErrUnknownResult) {
		t.Errorf("DecodeMessage(task) error = %v; want ErrUnknownResult", err)
	}
	_, err = a2a.Codec{}.DecodeMessage([]byte(`{`))
	if err == nil {
		t.Errorf("DecodeMessage({) error = nil; want an error")
	}
}
