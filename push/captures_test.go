package push_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
)

// capture is what the push captures of testdata/ hold that the tests
// replay: every request the recording webhook got (captured against
// a2a-js 1.3.0, its 0.3 compat layer, and a2a-js 0.3.14).
type capture struct {
	Pushes []struct {
		Method     string      `json:"method"`
		Path       string      `json:"path"`
		RawHeaders [][2]string `json:"rawHeaders"`
		Body       string      `json:"body"`
	} `json:"pushes"`
}

func (c capture) header(i int, name string) string {
	for _, h := range c.Pushes[i].RawHeaders {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

func readCapture(t testing.TB, path string) capture {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c capture
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

// TestCapturesReplay replays every push of every capture through a
// Receiver, one registration per webhook path of the capture (as the client
// registered one config per path), with the content type the agent sent
// and the registration's token in place of the capture's: every push is
// answered 2xx, and each registration's queue holds the capture's bodies of
// its path, decoded by the zero Codec, in order, each with the version its
// content type says (application/a2a+json: 1.0; application/json: 0.3),
// but for an exact replay of a body, which is queued once
// (1.0-cancel.json pushes the CANCELED status twice). The mixed-versions
// capture (0.3-js1.3.0-legacy-mixed-versions.json) has one task pushed in
// both shapes to two webhooks, and a third webhook of another task.
func TestCapturesReplay(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	require.Len(t, files, 21)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			c := readCapture(t, file)
			require.NotEmpty(t, c.Pushes)
			r := newReceiver(t)
			regs := map[string]*push.Registration{}
			want := map[string][]push.Notification{}
			seen := map[string]bool{}
			for i, p := range c.Pushes {
				g := regs[p.Path]
				if g == nil {
					g = register(t, r)
					regs[p.Path] = g
				}
				ct := c.header(i, "Content-Type")
				status, body := send(t, r, notification{
					method: p.Method, url: g.URL(), contentType: ct,
					header: http.Header{push.TokenHeader: {g.Token()}}, body: []byte(p.Body),
				})
				require.Equal(t, http.StatusNoContent, status, "push %d to %s", i, p.Path)
				require.Empty(t, body)
				if seen[p.Path+"\x00"+p.Body] {
					continue
				}
				seen[p.Path+"\x00"+p.Body] = true
				ev, err := a2a.Codec{}.DecodeEvent([]byte(p.Body))
				require.NoError(t, err)
				v := a2a.V03
				if ct == "application/a2a+json" {
					v = a2a.V10
				}
				want[p.Path] = append(want[p.Path], push.Notification{Event: ev, Version: v})
			}
			for path, g := range regs {
				got, lost := g.Take()
				require.False(t, lost, path)
				require.Equal(t, want[path], got, path)
				require.False(t, ready(g), path)
			}
		})
	}
}

// TestCapturesMixedVersionsKeepTasksApart pins the binding of the
// mixed-versions capture: its /ok/b9 webhook got a task of another scenario,
// whose pushes a registration bound to the v03 webhook's task refuses, and
// whose push the v03 registration's queue never holds.
func TestCapturesMixedVersionsKeepTasksApart(t *testing.T) {
	c := readCapture(t, "testdata/0.3-js1.3.0-legacy-mixed-versions.json")
	r := newReceiver(t)
	g := register(t, r)
	var b9, v03 int
	for i, p := range c.Pushes {
		n := notification{
			method: p.Method, url: g.URL(), contentType: c.header(i, "Content-Type"),
			header: http.Header{push.TokenHeader: {g.Token()}}, body: []byte(p.Body),
		}
		switch p.Path {
		case "/ok/v03":
			v03++
			status, _ := send(t, r, n)
			require.Equal(t, http.StatusNoContent, status)
		case "/ok/b9":
			b9++
			if v03 == 0 {
				continue // the registration is not bound yet
			}
			status, _ := send(t, r, n)
			require.Equal(t, http.StatusForbidden, status)
		}
	}
	require.Positive(t, b9)
	got, lost := g.Take()
	require.False(t, lost)
	require.Len(t, got, v03)
	for _, n := range got {
		require.Equal(t, g.TaskID(), n.Event.(*a2a.Task).ID)
		require.Equal(t, a2a.V03, n.Version)
	}
}
