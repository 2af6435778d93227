package stream_test

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// A poll answered 200 with an HTML page (a captive portal, a proxy's error
// page served as 200): README: "wrong content type" is a
// *stream.ProtocolError carrying the last task.
func TestPollAnsweredWithHTMLIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) {
						w.Header().Set("Content-Type", "text/html")
						io.WriteString(w, htmlPage)
					})
				_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
				require.Equal(t, 1, srv.count("send"))
			})
		})
	}
}

// Truncated JSON in a complete response (the server's bug, not the
// network's): a *stream.ProtocolError carrying the last task.
func TestPollAnsweredWithTruncatedJSONIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) {
						w.Header().Set("Content-Type", "application/json")
						w.Header().Set("Content-Length", "20")
						io.WriteString(w, `{"id":"t-1","status"`)
					})
				_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
			})
		})
	}
}

// A poll answered with an endless body: README: "oversized event" is a
// *stream.ProtocolError; the client stops reading near the limit.
func TestPollAnsweredWithAnEndlessBodyIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			var written int64
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) {
						w.Header().Set("Content-Type", "application/json")
						io.WriteString(w, `{"id":"t-1","contextId":"c-1","metadata":{"x":"`)
						buf := make([]byte, 32<<10)
						for i := range buf {
							buf[i] = 'a'
						}
						for written < 100<<20 {
							n, err := w.Write(buf)
							written += int64(n)
							if err != nil {
								return
							}
						}
					})
				_, err := drain(t, restClient(t, srv, v, stream.WithMaxEventSize(1<<20)).Send(background(), hello()))
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
			})
			require.Less(t, written, int64(4<<20), "the client stopped reading near the 1 MiB limit")
		})
	}
}

// A poll answered 204 No Content, then the task: an empty answer is not a
// task. Whatever it is taken for, the stream must not end in nil with a
// task that is not done, and must not take it for the end of the task.
func TestPollAnsweredWith204IsNotTheTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) { w.WriteHeader(http.StatusNoContent) },
					answer(snap(a2a.StateCompleted, "kept", "!")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				if err == nil {
					require.Equal(t, "kept!", got.text("a1"))
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					return
				}
				var pe *stream.ProtocolError
				var he *stream.HTTPError
				require.True(t, errors.As(err, &pe) || errors.As(err, &he), "a typed error: %T %v", err, err)
			})
		})
	}
}

// A poll answered with a Message instead of a Task: not the task; the
// stream must end in a typed error, not in nil and not in a silent stall.
func TestPollAnsweredWithAMessageIsNotTheTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, s *restServer) {
						raw, err := a2a.MarshalEventFor(v, a2a.BindingHTTPJSON, agentMsg("x", "hello"))
						require.NoError(t, err)
						w.Header().Set("Content-Type", "application/json")
						w.Write(raw)
					})
				start := time.Now()
				_, err := drain(t, restClient(t, srv, v, stream.WithStallTimeout(time.Hour)).Send(background(), hello()))
				require.Error(t, err)
				var pe *stream.ProtocolError
				require.ErrorAs(t, err, &pe, "%T %v after %v", err, err, time.Since(start))
			})
		})
	}
}
