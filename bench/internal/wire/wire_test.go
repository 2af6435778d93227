package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/a2astream/a2astream/a2a"
)

// events splits rendered SSE text into the results of its data lines.
func results(t *testing.T, b []byte) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, line := range bytes.Split(b, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		var env struct {
			ID     string          `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("data line is not JSON: %v\n%s", err, data)
		}
		if env.ID != "req-1" {
			t.Fatalf("id: got %q; want req-1", env.ID)
		}
		out = append(out, env.Result)
	}
	return out
}

func TestRenderedEventsDecode(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			task := NewTask(3)
			w := &Writer{V: v, ReqID: []byte(`"req-1"`)}
			w.TaskEvent(task)
			w.Status(task, "working", UUID('m', 1), "thinking", false)
			w.Artifact(task, UUID('a', 1), "first", false, false)
			w.Artifact(task, UUID('a', 1), `second\nline`, true, true)
			w.Status(task, "completed", "", "", true)
			rs := results(t, w.Buf)
			if len(rs) != 5 {
				t.Fatalf("got %d events; want 5", len(rs))
			}
			var evs []a2a.Event
			for _, r := range rs {
				ev, err := a2a.UnmarshalEvent(r)
				if err != nil {
					t.Fatalf("UnmarshalEvent: %v\n%s", err, r)
				}
				evs = append(evs, ev)
			}
			if tk, ok := evs[0].(*a2a.Task); !ok || tk.ID != task.ID || tk.Status.State != a2a.StateSubmitted || len(tk.History) != 1 {
				t.Errorf("event 0: got %#v; want the submitted task", evs[0])
			}
			if s, ok := evs[1].(*a2a.StatusUpdate); !ok || s.Status.State != a2a.StateWorking || s.Status.Message.ID != UUID('m', 1) {
				t.Errorf("event 1: got %#v; want working with a message", evs[1])
			}
			a1, ok1 := evs[2].(*a2a.ArtifactUpdate)
			a2, ok2 := evs[3].(*a2a.ArtifactUpdate)
			if !ok1 || !ok2 || a1.Append || !a2.Append || !a2.LastChunk || a1.Artifact.Text() != "first" || a2.Artifact.Text() != "second\nline" {
				t.Errorf("events 2, 3: got %#v, %#v; want a chunk and a last append", evs[2], evs[3])
			}
			if s, ok := evs[4].(*a2a.StatusUpdate); !ok || s.Status.State != a2a.StateCompleted || (v == "0.3" && !s.Final) {
				t.Errorf("event 4: got %#v; want completed", evs[4])
			}
		})
	}
}

func TestTaskResponseDecodes(t *testing.T) {
	task := NewTask(1)
	w := &Writer{V: "0.3", ReqID: []byte(`"req-1"`)}
	w.TaskResponse(task, "working", UUID('a', 0), 3, ChunkText)
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(w.Buf, &env); err != nil {
		t.Fatal(err)
	}
	tk, err := a2a.UnmarshalTask(env.Result)
	if err != nil {
		t.Fatal(err)
	}
	if len(tk.Artifacts) != 1 || len(tk.Artifacts[0].Parts) != 3 || tk.Artifacts[0].Parts[2].Text != string(ChunkText(nil, 2)) {
		t.Errorf("got %#v; want one artifact of 3 chunks", tk.Artifacts)
	}
}

func TestBigText(t *testing.T) {
	for _, n := range []int{1, 74, 75, 76, 1000, 1 << 16} {
		s := BigText(n)
		if len(s) != n {
			t.Fatalf("BigText(%d): %d bytes", n, len(s))
		}
		var out string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil {
			t.Fatalf("BigText(%d) is not a JSON string body: %v", n, err)
		}
	}
}

func TestUUIDShape(t *testing.T) {
	seen := map[string]bool{}
	for i := range uint64(1000) {
		u := UUID('x', i)
		if len(u) != 36 || u[8] != '-' || u[13] != '-' || u[14] != '4' || u[18] != '-' || u[19] != '8' || u[23] != '-' {
			t.Fatalf("UUID %q is not UUID-shaped", u)
		}
		if seen[u] {
			t.Fatalf("UUID %q repeats", u)
		}
		seen[u] = true
	}
}
