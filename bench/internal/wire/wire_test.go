package wire

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
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

// render writes the five events of the decode tests.
func render(w *Writer, task Task) {
	w.TaskEvent(task)
	w.Status(task, "working", UUID('m', 1), "thinking", false)
	w.Artifact(task, UUID('a', 1), "first", false, false)
	w.Artifact(task, UUID('a', 1), `second\nline`, true, true)
	w.Status(task, "completed", "", "", true)
}

// checkEvents checks the decoded events of render.
func checkEvents(t *testing.T, v string, task Task, evs []a2a.Event) {
	t.Helper()
	if len(evs) != 5 {
		t.Fatalf("got %d events; want 5", len(evs))
	}
	if tk, ok := evs[0].(*a2a.Task); !ok || tk.ID != task.ID || tk.ContextID != task.ContextID || tk.Status.State != a2a.StateSubmitted ||
		len(tk.History) != 1 || tk.History[0].ID != task.UserMsgID || tk.History[0].Text() != "hello" {
		t.Errorf("event 0: got %#v; want the submitted task with the user's hello", evs[0])
	}
	if s, ok := evs[1].(*a2a.StatusUpdate); !ok || s.TaskID != task.ID || s.Status.State != a2a.StateWorking || s.Status.Message == nil ||
		s.Status.Message.ID != UUID('m', 1) || s.Status.Message.Text() != "thinking" || s.Final {
		t.Errorf("event 1: got %#v; want working with a message", evs[1])
	}
	a1, ok1 := evs[2].(*a2a.ArtifactUpdate)
	a2, ok2 := evs[3].(*a2a.ArtifactUpdate)
	if !ok1 || !ok2 || a1.Append || a1.LastChunk || !a2.Append || !a2.LastChunk || a1.Artifact.ID != UUID('a', 1) ||
		a1.Artifact.Name != "stream" || a1.Artifact.Text() != "first" || a2.Artifact.Text() != "second\nline" {
		t.Errorf("events 2, 3: got %#v, %#v; want a chunk and a last append", evs[2], evs[3])
	}
	if s, ok := evs[4].(*a2a.StatusUpdate); !ok || s.Status.State != a2a.StateCompleted || (v == "0.3" && !s.Final) {
		t.Errorf("event 4: got %#v; want completed", evs[4])
	}
}

func TestRenderedEventsDecode(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			task := NewTask(3)
			w := &Writer{V: v, ReqID: []byte(`"req-1"`)}
			render(w, task)
			var evs []a2a.Event
			for _, r := range results(t, w.Buf) {
				ev, err := a2a.Codec{}.DecodeEvent(r)
				if err != nil {
					t.Fatalf("UnmarshalEvent: %v\n%s", err, r)
				}
				evs = append(evs, ev)
			}
			checkEvents(t, v, task, evs)
		})
	}
}

// restData splits rendered REST SSE text into its data lines, and fails on
// any other line but the blank one ending each event.
func restData(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	if !bytes.HasSuffix(b, []byte("\n\n")) {
		t.Fatalf("the stream does not end with a blank line: %q", b)
	}
	for _, ev := range bytes.Split(bytes.TrimSuffix(b, []byte("\n\n")), []byte("\n\n")) {
		data, ok := bytes.CutPrefix(ev, []byte("data: "))
		if !ok || bytes.IndexByte(data, '\n') >= 0 {
			t.Fatalf("event is not one data line: %q", ev)
		}
		out = append(out, data)
	}
	return out
}

func TestRESTEventsDecode(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			task := NewTask(3)
			w := &Writer{V: v, REST: true, ReqID: []byte(`"ignored"`)}
			render(w, task)
			data := restData(t, w.Buf)
			dec := a2a.NewEventDecoder(a2a.Codec{Version: a2a.Version(v), Binding: a2a.BindingHTTPJSON})
			var evs, evsFor []a2a.Event
			for _, d := range data {
				if bytes.Contains(d, []byte(`"jsonrpc"`)) || bytes.Contains(d, []byte(`"kind"`)) {
					t.Errorf("REST data carries a JSON-RPC envelope or a kind: %s", d)
				}
				ev, err := dec.Decode(d)
				if err != nil {
					t.Fatalf("EventDecoder: %v\n%s", err, d)
				}
				evs = append(evs, ev)
				ev, err = (a2a.Codec{Version: a2a.Version(v), Binding: a2a.BindingHTTPJSON}).DecodeEvent(d)
				if err != nil {
					t.Fatalf("UnmarshalEventFor: %v\n%s", err, d)
				}
				evsFor = append(evsFor, ev)
			}
			checkEvents(t, v, task, evs)
			checkEvents(t, v, task, evsFor)
		})
	}
}

// In 1.0 the REST data line is the JSON-RPC result, byte for byte.
func TestREST10IsTheJSONRPCResult(t *testing.T) {
	task := NewTask(5)
	rpc := &Writer{V: "1.0", ReqID: []byte(`"req-1"`)}
	rest := &Writer{V: "1.0", REST: true}
	render(rpc, task)
	render(rest, task)
	rs, ds := results(t, rpc.Buf), restData(t, rest.Buf)
	if len(rs) != len(ds) {
		t.Fatalf("%d results, %d REST events", len(rs), len(ds))
	}
	for i := range rs {
		if !bytes.Equal(rs[i], ds[i]) {
			t.Errorf("event %d:\nJSON-RPC result %s\nREST data       %s", i, rs[i], ds[i])
		}
	}
}

// The 0.3 REST shapes are those of the js 0.3.14 capture: message parts
// under "content", no metadata or mediaType, "final" only when true. The
// library's encoder for that dialect writes the same keys.
func TestREST03ProtoShape(t *testing.T) {
	task := NewTask(5)
	w := &Writer{V: "0.3", REST: true}
	render(w, task)
	data := restData(t, w.Buf)
	for _, d := range data {
		for _, bad := range []string{`"metadata"`, `"mediaType"`, `"parts":[{"text":"hello"`, `"final":false`, `"submitted"`, `"ROLE_USER","parts"`} {
			if bytes.Contains(d, []byte(bad)) {
				t.Errorf("0.3 REST event holds %s: %s", bad, d)
			}
		}
	}
	if !bytes.Contains(data[0], []byte(`"role":"ROLE_USER","content":[{"text":"hello"}]`)) ||
		!bytes.Contains(data[1], []byte(`"content":[{"text":"thinking"}]`)) ||
		!bytes.HasSuffix(data[4], []byte(`,"final":true}}`)) {
		t.Errorf("0.3 REST shapes differ from the capture's:\n%s", bytes.Join(data, []byte("\n")))
	}
	// Re-encoding what we decoded gives the same keys: compare key sets.
	dec := a2a.NewEventDecoder(a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON})
	for i, d := range data {
		ev, err := dec.Decode(d)
		if err != nil {
			t.Fatal(err)
		}
		again, err := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := keys(t, d), keys(t, again); got != want {
			t.Errorf("event %d keys:\nrendered %s\nlibrary  %s", i, got, want)
		}
	}
}

// keys returns the sorted set of object keys anywhere in a JSON document.
func keys(t *testing.T, doc []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				set[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	ks := make([]string, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
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
	tk, err := a2a.Codec{}.DecodeTask(env.Result)
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
