package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/stream"
)

// pushBase is where the tests' receivers are mounted, as the agent reaches
// them: in-process (a2atest.WithPushClient(a2atest.NewClient(receiver))).
const pushBase = "http://127.0.0.1/hooks"

// slowScript runs for 20 s: a chunk at once, a second after 10 s, the last
// and the ending after 20 s.
func slowScript() a2atest.Option {
	return a2atest.WithScript(
		a2atest.Working("w"),
		a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(10*time.Second),
		a2atest.Chunk("a1", "two ", true, false),
		a2atest.Pause(10*time.Second),
		a2atest.Chunk("a1", "three", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	)
}

// pushWires are the wires with push-config calls: every wire but 0.3 over
// HTTP+JSON, whose routes for them no capture shows (the Client refuses
// them with errors.ErrUnsupported: TestPushUnavailableResubscribes).
func pushWires() []wire {
	var ws []wire
	for _, w := range wires() {
		if w.v != a2a.V03 || w.b != a2a.BindingHTTPJSON {
			ws = append(ws, w)
		}
	}
	return ws
}

// pushSetup is a receiver and an agent of wire w that pushes to it, closed
// when the test ends.
func pushSetup(t *testing.T, w wire, opts ...a2atest.Option) (*push.Receiver, *a2atest.Agent) {
	t.Helper()
	recv, err := push.NewReceiver(pushBase)
	require.NoError(t, err)
	agent := w.agent(append([]a2atest.Option{a2atest.WithPushClient(a2atest.NewClient(recv))}, opts...)...)
	t.Cleanup(agent.Close)
	return recv, agent
}

// of returns the notices of kind k, in order.
func (n *noticeLog) of(k stream.NoticeKind) []stream.Notice {
	var out []stream.Notice
	for _, x := range n.ns {
		if x.Kind == k {
			out = append(out, x)
		}
	}
	return out
}

// countRequests counts the agent's requests whose JSON-RPC method (or the
// REST twin's) contains part.
func countRequests(agent *a2atest.Agent, part string) int {
	n := 0
	for _, r := range agent.Requests() {
		if strings.Contains(strings.ToLower(r.Method), strings.ToLower(part)) {
			n++
		}
	}
	return n
}

// TestPushFollowsTheTaskAfterADrop: a stream given WithPush whose
// connection drops registers a push config instead of resubscribing, and
// follows the task by its notifications: each one makes it poll at once,
// so it ends when the task does, long before its poll interval, with every
// part once.
func TestPushFollowsTheTaskAfterADrop(t *testing.T) {
	for _, w := range pushWires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, agent := pushSetup(t, w, a2atest.WithPush(), slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				notices := &noticeLog{}
				c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour), notices.option())
				start := time.Now()
				col, err := drain(t, c.Send(context.Background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", col.text("a1"))
				require.Equal(t, 20*time.Second, time.Since(start), "the last notification ended the wait")
				require.Zero(t, countRequests(agent, "subscribe"), "no resubscribe")
				require.Equal(t, 1, countRequests(agent, "PushNotificationConfig"), "one push config registered")
				require.LessOrEqual(t, countRequests(agent, "get"), 4, "a catch-up, then a poll per burst of notifications")
				pushing := notices.of(stream.Pushing)
				require.Len(t, pushing, 1)
				require.Error(t, pushing[0].Cause, "the drop")
				require.Equal(t, time.Hour, pushing[0].Wait)
				require.Empty(t, notices.of(stream.PushUnavailable))
			})
		})
	}
}

// TestPushUnavailableResubscribes: an agent that cannot take a push config
// (-32003) leaves the stream as without WithPush: a PushUnavailable notice,
// then the resubscribe it would have made.
func TestPushUnavailableResubscribes(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, agent := pushSetup(t, w, slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				notices := &noticeLog{}
				c := reconnectingClient(t, w, agent, stream.WithPush(recv), notices.option())
				col, err := drain(t, c.Send(context.Background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", col.text("a1"))
				require.Equal(t, 1, countRequests(agent, "subscribe"))
				unavailable := notices.of(stream.PushUnavailable)
				require.Len(t, unavailable, 1)
				var rpc *a2a.RPCError
				if !errors.Is(unavailable[0].Cause, errors.ErrUnsupported) {
					require.ErrorAs(t, unavailable[0].Cause, &rpc)
					require.Equal(t, a2a.CodePushNotificationNotSupported, rpc.Code)
				}
				require.Empty(t, notices.of(stream.Pushing))
				require.LessOrEqual(t, countRequests(agent, "PushNotificationConfig"), 1, "tried once (0.3 over HTTP+JSON: refused before it is sent)")
			})
		})
	}
}

// TestPushWaitsInsteadOfPolling: with an agent that cannot stream, a
// stream given WithPush registers a push config at its first poll wait and
// then polls when a notification comes, not every poll interval.
func TestPushWaitsInsteadOfPolling(t *testing.T) {
	for _, w := range pushWires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, agent := pushSetup(t, w, a2atest.WithPush(), a2atest.WithoutStreaming(), slowScript())
				notices := &noticeLog{}
				c := reconnectingClient(t, w, agent, stream.WithPush(recv), notices.option())
				start := time.Now()
				col, err := drain(t, c.Send(context.Background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", col.text("a1"))
				require.Equal(t, 20*time.Second, time.Since(start))
				require.LessOrEqual(t, countRequests(agent, "get"), 4, "polled on notifications, not every 100 ms")
				pushing := notices.of(stream.Pushing)
				require.Len(t, pushing, 1)
				require.NoError(t, pushing[0].Cause)
				require.Len(t, notices.of(stream.Polling), 1, "the switch to polling came first")
			})
		})
	}
}

// TestPushLostIsCaughtByThePollInterval: notifications that never come
// (every one lost) delay the stream to its push poll interval, no more.
func TestPushLostIsCaughtByThePollInterval(t *testing.T) {
	var drops []a2atest.PushFault
	for n := 1; n <= 20; n++ {
		drops = append(drops, a2atest.DropPush(n))
	}
	for _, w := range pushWires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, agent := pushSetup(t, w, a2atest.WithPush(), slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(3)),
					a2atest.WithPushFaults(drops...))
				c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(30*time.Second))
				start := time.Now()
				col, err := drain(t, c.Send(context.Background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", col.text("a1"))
				require.Equal(t, 30*time.Second, time.Since(start), "the first poll after the task ended")
				require.NotEmpty(t, agent.Pushes())
			})
		})
	}
}

// TestPushRegistrationEndsWithTheStream: once a stream is closed, the
// receiver refuses its registration's notifications.
func TestPushRegistrationEndsWithTheStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := wires()[0]
		recv, agent := pushSetup(t, w, a2atest.WithPush(), slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		notices := &noticeLog{}
		c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour), notices.option())
		s := c.Send(context.Background(), hello())
		for len(notices.of(stream.Pushing)) == 0 {
			require.True(t, s.Next(), "%v", s.Err())
		}
		require.NoError(t, s.Close())
		synctest.Wait()
		before := len(agent.Pushes())
		<-time.After(20 * time.Second) // on the bubble's clock: the agent's later pushes
		synctest.Wait()
		pushes := agent.Pushes()[before:]
		require.NotEmpty(t, pushes)
		for _, p := range pushes {
			require.Equal(t, http.StatusUnauthorized, p.Status, "refused once the stream closed: %s", p.Body)
		}
	})
}

// TestPushOptionsRefused: a nil receiver and a poll interval under 1 ms are
// refused as every bad option is.
func TestPushOptionsRefused(t *testing.T) {
	_, err := stream.NewClient(endpoint, stream.WithPush(nil))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = stream.NewClient(endpoint, stream.WithPushPollInterval(0))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
}

var pushSeeds = flag.Int("push.seeds", 40, "how many seeds TestPushSoakDeliversExactlyOnce runs per wire (CI: 1,000)")

// TestPushSoakDeliversExactlyOnce: notifications lost, repeated, delayed
// and reordered, with the stream cut at every point and polls between,
// on both versions and bindings: every part once, and the ending.
func TestPushSoakDeliversExactlyOnce(t *testing.T) {
	for _, w := range pushWires() {
		t.Run(w.String(), func(t *testing.T) {
			for seed := range *pushSeeds {
				t.Run(fmt.Sprint(seed), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(seed), 33))
					var faults []a2atest.PushFault
					for n := 1; n <= 12; n++ {
						switch r.IntN(5) {
						case 0:
							faults = append(faults, a2atest.DropPush(n))
						case 1:
							faults = append(faults, a2atest.RepeatPush(n))
						case 2:
							faults = append(faults, a2atest.SwapPush(n))
						case 3:
							faults = append(faults, a2atest.DelayPush(n, time.Duration(r.IntN(15))*time.Second))
						}
					}
					cut := a2atest.CutAfterEvents(1 + r.IntN(6))
					synctest.Test(t, func(t *testing.T) {
						recv, agent := pushSetup(t, w, a2atest.WithPush(), slowScript(), a2atest.WithFaults(cut),
							a2atest.WithPushFaults(faults...))
						c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Minute))
						col, err := drain(t, c.Send(context.Background(), hello()))
						require.NoError(t, err)
						require.Equal(t, "one two three", col.text("a1"))
						require.Equal(t, a2a.StateCompleted, col.task.Status.State)
					})
				})
			}
		})
	}
}

// TestPushUnavailableOverATransportWithoutPushCalls: a Transport of
// another module that does not implement transport.PushConfigurer cannot
// register a push config: the stream tells PushUnavailable, with a cause
// that matches errors.ErrUnsupported, and goes on as without WithPush.
func TestPushUnavailableOverATransportWithoutPushCalls(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, err := push.NewReceiver(pushBase)
				require.NoError(t, err)
				agent := newMemAgent(4, "drop after 3")
				notices := &noticeLog{}
				c, err := stream.NewClientFor(memBinding{agent}, stream.WithVersion(v), stream.WithPush(recv), notices.option())
				require.NoError(t, err)
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "c0 c1 c2 c3 ", got.text("a-1"))
				require.Equal(t, 2, agent.legs, "the send, then the resubscribe it would have made")
				unavailable := notices.of(stream.PushUnavailable)
				require.Len(t, unavailable, 1)
				require.ErrorIs(t, unavailable[0].Cause, errors.ErrUnsupported)
			})
		})
	}
}

// TestPushTokenNeverInNoticesOrLogs: an agent whose refusal of the push
// config quotes the token (over JSON-RPC, in its message; over HTTP+JSON,
// in its body) gets it back redacted in the PushUnavailable notice and in
// the debug log, as Client.SetPushConfig's errors are (a push stranger
// round's F1).
func TestPushTokenNeverInNoticesOrLogs(t *testing.T) {
	tokenIn := regexp.MustCompile(`"token":"([^"]+)"`)
	for _, w := range pushWires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, agent := pushSetup(t, w, a2atest.WithPush(), slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				var seen []string
				quoting := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					m := tokenIn.FindSubmatch(body)
					if m == nil || !bytes.Contains(body, []byte("ushNotificationConfig")) && !strings.Contains(r.URL.Path, "pushNotificationConfigs") {
						r.Body = io.NopCloser(bytes.NewReader(body))
						agent.ServeHTTP(rw, r)
						return
					}
					seen = append(seen, string(m[1]))
					if w.b == a2a.BindingHTTPJSON {
						rw.Header().Set("Content-Type", "application/json")
						rw.WriteHeader(http.StatusBadRequest)
						fmt.Fprintf(rw, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"no push for token %s",`+
							`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"PUSH_NOTIFICATION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}}`, m[1])
						return
					}
					var req struct {
						ID json.RawMessage `json:"id"`
					}
					_ = json.Unmarshal(body, &req)
					rw.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32003,"message":"cannot push to token %s"}}`, req.ID, m[1])
				})
				var logs bytes.Buffer
				notices := &noticeLog{}
				var tl traceLog
				c := reconnectingClient(t, w, agent, stream.WithHTTPClient(a2atest.NewClient(quoting)), stream.WithPush(recv), notices.option(),
					stream.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))), tl.option())
				_, err := drain(t, c.Send(context.Background(), hello()))
				require.NoError(t, err)
				require.Len(t, seen, 1, "the push config was offered once")
				unavailable := notices.of(stream.PushUnavailable)
				require.Len(t, unavailable, 1)
				require.Contains(t, unavailable[0].Cause.Error(), "xxxxx", "the quote is there, redacted")
				require.NotContains(t, unavailable[0].Cause.Error(), seen[0])
				require.NotContains(t, logs.String(), seen[0])
				// A Trace gets the refusal as the notice does: redacted.
				var pushCalls []stream.AttemptDoneInfo
				for _, d := range tl.dones {
					if d.Kind == stream.AttemptPushConfig {
						pushCalls = append(pushCalls, d)
					}
				}
				require.Len(t, pushCalls, 1)
				require.Equal(t, "cannot", pushCalls[0].Outcome)
				require.Contains(t, pushCalls[0].Err.Error(), "xxxxx")
				for _, text := range tl.all {
					require.NotContains(t, text, seen[0], "a trace's argument")
				}
			})
		})
	}
}

// TestPushStallFoundWithinItsLimit: a task followed by push that stalls
// ends the stream at the stall limit, not at a longer push poll interval
// (a push stranger round's F4).
func TestPushStallFoundWithinItsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := pushWires()[0]
		recv, agent := pushSetup(t, w, a2atest.WithPush(), a2atest.WithFaults(a2atest.CutAfterEvents(3)), a2atest.WithScript(
			a2atest.Working("w"), a2atest.Chunk("a1", "one ", false, false), a2atest.Pause(3*time.Hour),
			a2atest.Finish(a2a.StateCompleted, "done")))
		c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour), stream.WithStallTimeout(time.Minute))
		start := time.Now()
		_, err := drain(t, c.Send(context.Background(), hello()))
		var stalled *stream.StalledError
		require.ErrorAs(t, err, &stalled)
		require.Equal(t, time.Minute, time.Since(start))
	})
}

// TestPushLiesAreNotDelivered: notifications that say what the task does
// not hold (an ending while it runs, a part it never had) reach the
// stream with their registration's token, and change nothing but when it
// polls: it delivers the task as get-task shows it, and ends when the
// task does.
func TestPushLiesAreNotDelivered(t *testing.T) {
	for _, w := range pushWires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, err := push.NewReceiver(pushBase)
				require.NoError(t, err)
				taskOf := regexp.MustCompile(`"(?:taskId|id)":"([0-9a-f-]{36})"`)
				n := 0 // each lie differs, or the receiver drops it as a replay
				lying := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					id := string(taskOf.FindSubmatch(body)[1])
					n++
					lie := `{"statusUpdate":{"taskId":"` + id + `","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"metadata":{"n":` + fmt.Sprint(n) + `}}}`
					if w.v == a2a.V03 {
						lie = `{"kind":"task","id":"` + id + `","contextId":"c","status":{"state":"completed"},` +
							`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"EVIL"}]}],"metadata":{"n":` + fmt.Sprint(n) + `}}`
					}
					r.Body = io.NopCloser(strings.NewReader(lie))
					r.ContentLength = int64(len(lie))
					recv.ServeHTTP(rw, r)
				})
				agent := w.agent(a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(lying)), slowScript(),
					a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				t.Cleanup(agent.Close)
				c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour))
				start := time.Now()
				col, err := drain(t, c.Send(context.Background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", col.text("a1"), "no EVIL")
				require.Equal(t, 20*time.Second, time.Since(start), "ended when the task did, not at the lie")
				for _, p := range agent.Pushes() {
					require.Equal(t, http.StatusNoContent, p.Status, "the lies were taken")
				}
			})
		})
	}
}
