package relay_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

func TestCancelFromTheHandlerReachesTheAgent(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    a2a.Version
		rest bool
	}{
		{"JSON-RPC 0.3", a2a.V03, false},
		{"JSON-RPC 1.0", a2a.V10, false},
		{"HTTP+JSON 0.3", a2a.V03, true},
		{"HTTP+JSON 1.0", a2a.V10, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rigConfig{agent: wire(tt.v, tt.rest, a2atest.WithScript(slowScript()...)), stream: []stream.Option{stream.WithVersion(tt.v)}, rest: tt.rest})
				rd := r.connect("")
				for ev := range rd.events() {
					if ev.Name == relay.EventArtifact {
						break
					}
				}
				code, out := r.post("cancel", "", map[string]any{})
				require.Equal(t, http.StatusAccepted, code)
				require.NotEmpty(t, out["status"])

				rest := rd.rest()
				require.NoError(t, r.wait())
				require.Equal(t, 1, requestsOf(r.agent, "tasks/cancel", "CancelTask"), "the agent was asked to cancel once")
				last := rest[len(rest)-1]
				require.Equal(t, relay.EventFailure, last.Name)
				var e relay.FailureData
				require.NoError(t, json.Unmarshal(last.Data, &e))
				require.Equal(t, "canceled", e.Kind)
				require.Equal(t, a2a.StateCanceled, e.State)
			})
		})
	}
}

func TestDisconnectDoesNotCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(slowScript()...)}})
		rd := r.connect("")
		rd.take(2)
		rd.close()
		require.NoError(t, r.wait(), "the driver goes on to the end, an hour later")
		require.Zero(t, requestsOf(r.agent, "tasks/cancel", "CancelTask"))
		evs := r.connect("").rest()
		require.Equal(t, relay.EventEnd, evs[len(evs)-1].Name)
		require.Equal(t, "first part and the rest", fold(t, evs).Pane("artifact:a1").Text())
	})
}

func TestCancelWhileTheAgentWaitsForAnAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}})
		rd := r.connect("")
		untilInput(t, rd)
		code, _ := r.post("cancel", "", map[string]any{})
		require.Equal(t, http.StatusAccepted, code)

		rest := rd.rest()
		require.NoError(t, r.wait())
		require.Equal(t, 1, requestsOf(r.agent, "tasks/cancel", "CancelTask"))
		require.Empty(t, followUps(r.agent), "no answer was sent")
		last := rest[len(rest)-1]
		require.Equal(t, relay.EventFailure, last.Name)
		var e relay.FailureData
		require.NoError(t, json.Unmarshal(last.Data, &e))
		require.Equal(t, "canceled", e.Kind, e.Text)
	})
}
