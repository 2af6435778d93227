package stream_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// A server in the wild (issue 12): every SSE data field starts with an RFC
// 7464 record separator, and every result is a whole Task with no "kind"
// (and so no "final"), growing as the agent works.
func TestRecordSeparatorsAndUntypedTaskResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snap := func(state, text string) string {
			return fmt.Sprintf(`{"id":"t-1","contextId":"c-1","status":{"state":%q},"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":%q}]}]}`, state, text)
		}
		h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
			sseHeaders(w)
			for _, r := range []string{snap("working", "Hel"), snap("working", "Hello"), snap("completed", "Hello")} {
				fmt.Fprintf(w, "data: \x1e{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, r)
			}
		})
		got, err := drain(t, hostileClient(t, h, a2a.V03).Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, []a2a.TaskState{a2a.StateWorking, a2a.StateCompleted}, got.states)
		// "Hel" then "Hello" is a replacement of the single part: the
		// application ends with the server's text.
		require.Equal(t, "Hello", got.text("a1"))
	})
}
