package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// BenchmarkDriver measures the whole runtime per event (decode, dedupe,
// delivery), with no network: Send, then Next until the end.
//
// The rest/ cases run the same stream over the HTTP+JSON binding
// (NewRESTClient, bare StreamResponse data lines), side by side with
// JSON-RPC, as issue 11 asks.
func BenchmarkDriver(b *testing.B) {
	const n = 10000
	for _, c := range []struct {
		name    string
		v       a2a.Version
		binding a2a.Binding
	}{
		{"0.3", a2a.V03, a2a.BindingJSONRPC}, {"1.0", a2a.V10, a2a.BindingJSONRPC},
		{"rest/0.3", a2a.V03, a2a.BindingHTTPJSON}, {"rest/1.0", a2a.V10, a2a.BindingHTTPJSON},
	} {
		v := c.v
		b.Run(c.name, func(b *testing.B) {
			body := benchBody(v, n, c.binding)
			newClient := stream.NewClient
			if c.binding == a2a.BindingHTTPJSON {
				newClient = stream.NewRESTClient
			}
			c, err := newClient("http://bench.test/", stream.WithVersion(v),
				stream.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				s := c.Send(b.Context(), a2a.NewTextMessage(a2a.RoleUser, "go"))
				events := 0
				for s.Next() {
					events++
				}
				if err := s.Err(); err != nil || events != n+2 {
					b.Fatalf("events %d, err %v", events, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(n+2)), "ns/event")
		})
	}
}

// BenchmarkBigEvent measures one artifact event of 1, 4 and 16 MiB, read in
// 16 KiB pieces like a network body, through the whole driver, next to one
// json.Unmarshal of the same response.
func BenchmarkBigEvent(b *testing.B) {
	for _, mib := range []int{1, 4, 16} {
		text := strings.Repeat("x", mib<<20)
		var body bytes.Buffer
		raw, _ := a2a.Codec{Version: a2a.V10}.EncodeEvent(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.StateWorking}})
		fmt.Fprintf(&body, "data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":%s}\n\n", raw)
		resp := fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{\"artifactUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"text\":%q}]}}}}", text)
		fmt.Fprintf(&body, "data: %s\n\n", resp)
		raw, _ = a2a.Codec{Version: a2a.V10}.EncodeEvent(&a2a.StatusUpdate{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.StateCompleted}})
		fmt.Fprintf(&body, "data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":%s}\n\n", raw)
		b.Run(fmt.Sprintf("driver/%dMiB", mib), func(b *testing.B) {
			c, _ := stream.NewClient("http://bench.test/", stream.WithVersion(a2a.V10), stream.WithMaxEventSize(64<<20),
				stream.WithHTTPClient(&http.Client{Transport: chunkedTransport{body.Bytes(), 16 << 10}}))
			b.SetBytes(int64(len(resp)))
			b.ReportAllocs()
			for b.Loop() {
				task, err := c.Send(b.Context(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
				if err != nil || len(task.Artifact("a").Parts[0].Text) != len(text) {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("json.Unmarshal/%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(len(resp)))
			b.ReportAllocs()
			for b.Loop() {
				var v struct {
					Result struct {
						ArtifactUpdate struct {
							Artifact struct {
								Parts []struct {
									Text string `json:"text"`
								} `json:"parts"`
							} `json:"artifact"`
						} `json:"artifactUpdate"`
					} `json:"result"`
				}
				if err := json.Unmarshal([]byte(resp), &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// chunkedTransport answers with body, handed out n bytes per Read.
type chunkedTransport struct {
	body []byte
	n    int
}

func (t chunkedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(&pieces{b: t.body, n: t.n}), Request: r}, nil
}

type pieces struct {
	b []byte
	n int
}

func (p *pieces) Read(dst []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := copy(dst[:min(len(dst), p.n)], p.b)
	p.b = p.b[n:]
	return n, nil
}

// BenchmarkManyArtifactsInOneTask sends one Task event holding n artifacts
// through the whole driver (decode, reconcile, one delta per artifact, the
// application's view kept between deltas). ns/artifact stays flat from
// 1,000 to 64,000: the view used to be copied for every delta, which made a
// 3.8 MB event with 64,000 artifacts take over a minute.
func BenchmarkManyArtifactsInOneTask(b *testing.B) {
	for _, n := range []int{1000, 8000, 64000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			const task, ctx = "01a2012b-974f-761f-b805-9c1314c44506", "01a2012b-974f-76f9-9aea-fd8810f6e4b8"
			t := &a2a.Task{ID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateCompleted}}
			for i := range n {
				t.Artifacts = append(t.Artifacts, a2a.Artifact{ID: fmt.Sprint("artifact-", i), Parts: []a2a.Part{{Text: "x"}}})
			}
			raw, err := a2a.Codec{Version: a2a.V03}.EncodeEvent(t)
			if err != nil {
				b.Fatal(err)
			}
			body := []byte(fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":%s}\n\n", raw))
			c, err := stream.NewClient("http://bench.test/", stream.WithVersion(a2a.V03),
				stream.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s := c.Send(b.Context(), a2a.NewTextMessage(a2a.RoleUser, "go"))
				events := 0
				for s.Next() {
					if len(s.Task().Artifacts) != events+1 && events < n {
						b.Fatalf("after %d deltas the task holds %d artifacts", events+1, len(s.Task().Artifacts))
					}
					events++
				}
				if err := s.Err(); err != nil || events != n+1 {
					b.Fatalf("events %d, err %v", events, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/artifact")
		})
	}
}

// BenchmarkIdlePoll measures one poll with nothing new, over REST.
func BenchmarkIdlePoll(b *testing.B) {
	for _, v := range versions {
		b.Run(string(v), func(b *testing.B) {
			working := mustTask(v, busyTask(a2a.StateWorking))
			done := mustTask(v, busyTask(a2a.StateCompleted))
			first := mustEvent(v, snap(a2a.StateSubmitted))
			n := b.N
			raws := make([][]byte, n+1)
			for i := range n {
				raws[i] = working
			}
			raws[n] = done
			b.ReportAllocs()
			b.ResetTimer()
			srv := rawPolls(v, first, raws)
			c, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v),
				stream.WithHTTPClient(a2atest.NewClient(srv)), stream.WithPollInterval(time.Millisecond), stream.WithStallTimeout(0),
				stream.WithSleep(func(context.Context, time.Duration) error { return nil }))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Send(background(), hello()).Wait(); err != nil {
				b.Fatal(err)
			}
			if got := srv.count("get"); got != n+1 {
				b.Fatalf("%d polls, want %d", got, n+1)
			}
		})
	}
}

// restTaskShape is the part of an HTTP+JSON task body an application
// would read, in both versions.
type restTaskShape struct {
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State string `json:"state"`
	} `json:"status"`
	Artifacts []struct {
		ArtifactID string `json:"artifactId"`
		Parts      []struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"artifacts"`
}

// BenchmarkEmptyPoll follows, by polling over HTTP+JSON, a task of 10,000
// artifacts of three parts each (about 1 MB), and times each poll that
// brings nothing new: the get-task call, the reading of its body, which
// repeats the last poll's byte for byte and so is neither decoded nor
// folded again, and what the stream does with it, from one sleep
// between polls to the next. It reports ns/poll and the ratio of a poll to
// one json.Unmarshal of the same body into a map ("ratio-map") and into a
// struct of the fields an application reads ("ratio-struct"), each timed
// once between two polls (b.ReportAllocs counts theirs too), and the share of the codec alone: a2a.Codec.DecodeTask of
// the body against that struct ("decode/struct"). Issue 21's target for
// the poll: 1.5 at most.
func BenchmarkEmptyPoll(b *testing.B) {
	for _, v := range versions {
		b.Run(string(v), func(b *testing.B) {
			working := mustTask(v, manyArtifactsTask(a2a.StateWorking, 10000))
			done := mustTask(v, manyArtifactsTask(a2a.StateCompleted, 10000))
			first := mustEvent(v, snap(a2a.StateSubmitted))
			n := b.N
			raws := make([][]byte, n+2)
			for i := range n + 1 {
				raws[i] = working
			}
			raws[n+1] = done
			codec := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}
			var (
				polls                           int
				last                            time.Time
				spent, asMap, asStruct, decoded time.Duration
				failed                          error
			)
			// Between two polls, one json.Unmarshal into a map, one into
			// a struct and one DecodeTask, each timed: interleaved with
			// the polls, they see the same load.
			compare := func() {
				start := time.Now()
				var m map[string]any
				if err := json.Unmarshal(working, &m); err != nil {
					failed = err
				}
				asMap += time.Since(start)
				start = time.Now()
				var st restTaskShape
				if err := json.Unmarshal(working, &st); err != nil || len(st.Artifacts) != 10000 {
					failed = fmt.Errorf("struct: %v, %d artifacts", err, len(st.Artifacts))
				}
				asStruct += time.Since(start)
				start = time.Now()
				if t, err := codec.DecodeTask(working); err != nil || len(t.Artifacts) != 10000 {
					failed = fmt.Errorf("decode: %v", err)
				}
				decoded += time.Since(start)
			}
			// The stream sleeps before every poll but the first (the
			// catch-up that delivers the task): the time from one sleep
			// to the next is one poll.
			sleep := func(context.Context, time.Duration) error {
				now := time.Now()
				if polls > 0 && polls <= n {
					spent += now.Sub(last)
					compare()
				}
				polls++
				last = time.Now()
				return nil
			}
			srv := rawPolls(v, first, raws)
			c, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v),
				stream.WithHTTPClient(a2atest.NewClient(srv)), stream.WithPollInterval(time.Millisecond), stream.WithStallTimeout(0),
				stream.WithSleep(sleep))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			s := c.Send(background(), hello())
			events := 0
			for s.Next() {
				events++
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			if want := 1 + 10000 + 2; events != want { // submitted, the artifacts, working, completed
				b.Fatalf("%d events, want %d", events, want)
			}
			if got := srv.count("get"); got != n+2 {
				b.Fatalf("%d polls, want %d", got, n+2)
			}
			if failed != nil {
				b.Fatal(failed)
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(n), "ns/poll")
			b.ReportMetric(float64(spent)/float64(asMap), "ratio-map")
			b.ReportMetric(float64(spent)/float64(asStruct), "ratio-struct")
			b.ReportMetric(float64(decoded)/float64(asStruct), "decode/struct")
		})
	}
}
