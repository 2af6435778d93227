package a2atest_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// TestAgentStyles checks that WithStyles answers the i-th subscribe request
// in the i-th style and repeats the last one, counting subscribes only.
func TestAgentStyles(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript(),
					a2atest.WithStyles(a2atest.SnapshotFirst, a2atest.FullReplay, a2atest.LiveOnly),
					// The send ends cleanly after T and S(working), at 0s.
					a2atest.WithFaults(a2atest.CloseAfterEvents(2)))
				start := time.Now()
				id, _ := startTask(t.Context(), t, agent, v)
				require.Zero(t, time.Since(start))

				// Four subscribes arrive at 0s, while a1 has no chunk yet.
				const n = 4
				var resps [n]*http.Response
				for i := range resps {
					resps[i] = call(t.Context(), t, agent.Client(), v, "subscribe", idParams(id))
				}
				final := "S(completed)"
				if v == a2a.V03 {
					final = "S(completed,F)"
				}
				want := [n][]string{
					{"T(working)", "A(a1)", "A(a1+L)", final},                 // #1 SnapshotFirst: a snapshot
					{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", final}, // #2 FullReplay: everything again
					{"A(a1)", "A(a1+L)", final},                               // #3 LiveOnly: only what falls due
					{"A(a1)", "A(a1+L)", final},                               // #4 the last style repeats
				}
				for i, resp := range resps {
					require.Equal(t, want[i], kinds(readAllStream(t, resp)), "subscribe #%d", i+1)
				}
				require.Equal(t, 3*time.Second, time.Since(start))

				reqs := agent.Requests()
				require.Len(t, reqs, 1+n)
				require.Zero(t, reqs[0].Style, "a send has no style and does not use one up")
				wantStyles := []a2atest.ResubscribeStyle{a2atest.SnapshotFirst, a2atest.FullReplay, a2atest.LiveOnly, a2atest.LiveOnly}
				for i, r := range reqs[1:] {
					require.Equal(t, methodName(v, "subscribe"), r.Method)
					require.Equal(t, wantStyles[i], r.Style, "subscribe #%d", i+1)
				}
			})
		})
	}
}

// TestAgentStylesCountRefusedSubscribes checks that a refused subscribe (an
// unknown task) and one whose answer a fault replaces use up their style,
// and that get-task requests do not.
func TestAgentStylesCountRefusedSubscribes(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithStyles(a2atest.LiveOnly, a2atest.FullReplay, a2atest.SnapshotFirst),
		a2atest.WithFaults(a2atest.Fault{}, a2atest.Fault{}, a2atest.HTTPStatus(503, "busy")))
	id, _ := startTask(t.Context(), t, agent, a2a.V10)
	c := agent.Client()

	requireUnaryError(t, call(t.Context(), t, c, a2a.V10, "subscribe", idParams("nope")), a2a.CodeTaskNotFound)
	unaryResult(t, call(t.Context(), t, c, a2a.V10, "get", idParams(id)))
	resp := call(t.Context(), t, c, a2a.V10, "subscribe", idParams(id))
	require.Equal(t, 503, resp.StatusCode)
	// The third style, SnapshotFirst: the task is over, so 1.0 says -32004.
	requireUnaryError(t, call(t.Context(), t, c, a2a.V10, "subscribe", idParams(id)), a2a.CodeUnsupportedOperation)

	var got []a2atest.ResubscribeStyle
	for _, r := range agent.Requests() {
		got = append(got, r.Style)
	}
	require.Equal(t, []a2atest.ResubscribeStyle{0, a2atest.LiveOnly, 0, a2atest.FullReplay, a2atest.SnapshotFirst}, got)
}

// TestAgentStyleOptionsLastWins checks how WithStyle and WithStyles combine:
// the last one given wins, and WithStyles with no styles changes nothing.
func TestAgentStyleOptionsLastWins(t *testing.T) {
	tests := []struct {
		name string
		opts []a2atest.Option
		want []a2atest.ResubscribeStyle
	}{
		{"default", nil, []a2atest.ResubscribeStyle{a2atest.SnapshotFirst, a2atest.SnapshotFirst}},
		{"WithStyle", []a2atest.Option{a2atest.WithStyle(a2atest.FullReplay)},
			[]a2atest.ResubscribeStyle{a2atest.FullReplay, a2atest.FullReplay}},
		{"WithStyle after WithStyles", []a2atest.Option{
			a2atest.WithStyles(a2atest.LiveOnly, a2atest.FullReplay), a2atest.WithStyle(a2atest.SnapshotFirst)},
			[]a2atest.ResubscribeStyle{a2atest.SnapshotFirst, a2atest.SnapshotFirst}},
		{"WithStyles after WithStyle", []a2atest.Option{
			a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithStyles(a2atest.LiveOnly, a2atest.FullReplay)},
			[]a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.FullReplay}},
		{"empty WithStyles", []a2atest.Option{a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithStyles()},
			[]a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.LiveOnly}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := a2atest.NewAgent(tt.opts...)
			for range tt.want {
				requireUnaryError(t, call(t.Context(), t, agent.Client(), a2a.V10, "subscribe", idParams("nope")), a2a.CodeTaskNotFound)
			}
			var got []a2atest.ResubscribeStyle
			for _, r := range agent.Requests() {
				got = append(got, r.Style)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// TestAgentStylesListIsCopied checks that WithStyles keeps its own copy of
// the list.
func TestAgentStylesListIsCopied(t *testing.T) {
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly}
	opt := a2atest.WithStyles(styles...)
	styles[0] = a2atest.FullReplay
	agent := a2atest.NewAgent(opt)
	requireUnaryError(t, call(t.Context(), t, agent.Client(), a2a.V10, "subscribe", idParams("nope")), a2a.CodeTaskNotFound)
	require.Equal(t, a2atest.LiveOnly, agent.Requests()[0].Style)
}
