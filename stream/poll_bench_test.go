package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// manyArtifactsTask is a task of n artifacts of three text parts each.
func manyArtifactsTask(st a2a.TaskState, n int) *a2a.Task {
	t := snap(st)
	t.Artifacts = make([]a2a.Artifact, n)
	for i := range t.Artifacts {
		t.Artifacts[i] = a2a.Artifact{ID: fmt.Sprintf("artifact-%05d", i),
			Parts: textParts(fmt.Sprintf("section %d, ", i), "some words of the answer, ", "and its end.")}
	}
	return t
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
// brings nothing new: the get-task call, the decode of its body, the
// ledger's judgement and what the stream does with it, from one sleep
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
