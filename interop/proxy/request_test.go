package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	rpc := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	}
	msg := `{"message":{"messageId":"m-1","role":"user","parts":[]}}`
	for _, tc := range []struct {
		method, target, body string
		kind                 Kind
		rpc, msgID           string
	}{
		{"GET", "/.well-known/agent-card.json", "", Card, "", ""},
		{"GET", "/x/.well-known/agent.json", "", Card, "", ""},
		{"POST", "/", rpc("message/stream", msg), Send, "message/stream", "m-1"},
		{"POST", "/", rpc("SendMessage", msg), Send, "SendMessage", "m-1"},
		{"POST", "/", rpc("tasks/get", `{"id":"t"}`), Poll, "tasks/get", ""},
		{"POST", "/", rpc("GetTask", `{"id":"t"}`), Poll, "GetTask", ""},
		{"POST", "/", rpc("tasks/resubscribe", `{"id":"t"}`), Subscribe, "tasks/resubscribe", ""},
		{"POST", "/", rpc("CancelTask", `{"id":"t"}`), Cancel, "CancelTask", ""},
		{"POST", "/", rpc("agent/getAuthenticatedExtendedCard", `{}`), Other, "agent/getAuthenticatedExtendedCard", ""},
		{"POST", "/rest/message:stream", msg, Send, "", "m-1"},
		{"POST", "/rest/v1/message:send", msg, Send, "", "m-1"},
		{"GET", "/rest/tasks/t-1", "", Poll, "", ""},
		{"GET", "/rest/v1/tasks/t-1?historyLength=2", "", Poll, "", ""},
		{"GET", "/rest/tasks", "", Other, "", ""},
		{"POST", "/rest/tasks/t-1:subscribe", "", Subscribe, "", ""},
		{"GET", "/rest/v1/tasks/t-1:subscribe", "", Subscribe, "", ""},
		{"POST", "/rest/tasks/t-1:cancel", "{}", Cancel, "", ""},
		{"POST", "/", "not json", Other, "", ""},
	} {
		r := classify(reqHead{method: tc.method, target: tc.target}, []byte(tc.body))
		if r.Kind != tc.kind || r.RPC != tc.rpc || r.MessageID != tc.msgID {
			t.Errorf("%s %s %s: %v %q %q, want %v %q %q", tc.method, tc.target, tc.body, r.Kind, r.RPC, r.MessageID, tc.kind, tc.rpc, tc.msgID)
		}
	}
}

// A chunked card (as a2a-go's or a big one is served) is de-chunked and
// rewritten; URLs of other hosts and ports stay.
func TestRewriteCardChunked(t *testing.T) {
	var target string
	var mux http.ServeMux
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		b := `{"url":"http://` + target + `/rest","supportedInterfaces":[{"url":"http://` + target + `/"}],"other":"http://` + target + `9/"}`
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, b[:20])
		w.(http.Flusher).Flush()
		io.WriteString(w, b[20:])
	})
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	target = srv.Listener.Addr().String()
	p := startProxy(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := get(ctx, t, "http://"+p.Addr()+"/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"url":"http://` + p.Addr() + `/rest","supportedInterfaces":[{"url":"http://` + p.Addr() + `/"}],"other":"http://` + target + `9/"}`
	// "//target9" starts with "//target": a port is not a prefix of a longer
	// one only when the rewrite stops at the port's end.
	if string(got) != want {
		t.Fatalf("card through the proxy:\n got %s\nwant %s", got, want)
	}
	if n := p.Rewrites(); n != 2 {
		t.Fatalf("Rewrites() = %d, want 2", n)
	}
	if r := p.Requests(); len(r) != 1 || r[0].Kind != Card || r[0].Status != 200 {
		t.Fatalf("requests %v", r)
	}
}

func TestRewriteCardContentLength(t *testing.T) {
	var target string
	var mux http.ServeMux
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		b := `{"url":"http://` + target + `/rest","name":"x"}`
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Length", "0")
		w.Header().Del("Content-Length")
		io.WriteString(w, b) // short: net/http sets Content-Length
	})
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	target = srv.Listener.Addr().String()
	p := startProxy(t, srv.URL)
	resp, err := client().Get("http://" + p.Addr() + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"url":"http://` + p.Addr() + `/rest","name":"x"}`; string(b) != want || resp.ContentLength != int64(len(want)) {
		t.Fatalf("got %s (Content-Length %d), want %s", b, resp.ContentLength, want)
	}
	if resp.Header.Get("ETag") != "" {
		t.Fatalf("the rewritten card kept the server's ETag %q", resp.Header.Get("ETag"))
	}
	// Other JSON is not rewritten.
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "http://"+target) })
	got, err := get(context.Background(), t, "http://"+p.Addr()+"/other")
	if err != nil || string(got) != "http://"+target {
		t.Fatalf("non-card response: %q, %v", got, err)
	}
}

func TestDropPolls(t *testing.T) {
	var served atomic.Int32
	var mux http.ServeMux
	mux.HandleFunc("/tasks/", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"t-1","status":{"state":"working"},"pad":"`+strings.Repeat("x", 100)+`"}`)
	})
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	p := startProxy(t, srv.URL)
	drops := []Drop{{Action: ResetRequest}, {}, {Action: ResetResponse}, {Action: ResetResponse, AfterBytes: 30}, {Action: ResetResponse, AfterBytes: 1 << 20}}
	p.DropPolls(func(n int) Drop {
		if n < len(drops) {
			return drops[n]
		}
		return Drop{}
	})
	for i, d := range drops {
		resp, err := client().Get("http://" + p.Addr() + "/tasks/t-1")
		var body []byte
		if err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if (d.Action == Keep) != (err == nil) {
			t.Errorf("poll %d (%v): body %q, err %v", i, d, body, err)
		}
		if d.Action == ResetResponse && len(body) > d.AfterBytes {
			t.Errorf("poll %d (%v): %d body bytes", i, d, len(body))
		}
	}
	if n := served.Load(); n != int32(len(drops)-1) {
		t.Errorf("the server answered %d polls, want %d (all but the reset request)", n, len(drops)-1)
	}
	reqs := p.Requests()
	if len(reqs) != len(drops) {
		t.Fatalf("requests %v", reqs)
	}
	for i, r := range reqs {
		if r.Kind != Poll || r.Drop != drops[i] || r.Dropped != (drops[i].Action != Keep) {
			t.Errorf("request %d: %v", i, r)
		}
	}
}

func TestRandomDrops(t *testing.T) {
	a, b := RandomDrops(7, 0.5, 2), RandomDrops(7, 0.5, 2)
	run, dropped := 0, 0
	for n := range 200 {
		da := a(n)
		if da != b(n) {
			t.Fatalf("poll %d: %v and %v from the same seed", n, da, b(n))
		}
		if da.Action == Keep {
			run = 0
			continue
		}
		dropped++
		if run++; run > 2 {
			t.Fatalf("poll %d: %d drops in a row", n, run)
		}
	}
	if a(0).Action == Keep {
		t.Fatal("the first poll was kept")
	}
	if dropped < 50 || dropped > 150 {
		t.Fatalf("%d of 200 dropped at rate 0.5", dropped)
	}
	if d := a(3); d != b(3) {
		t.Fatalf("poll 3 asked again: %v, then %v", b(3), d)
	}
}
