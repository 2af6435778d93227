package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// drain sends one message with c and reads the stream to its end.
func drain(t *testing.T, c *stream.Client) (int, *a2a.Task) {
	t.Helper()
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	n := 0
	for s.Next() {
		n++
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return n, s.Task()
}

func TestRESTScenariosWithTheRESTClient(t *testing.T) {
	srv := httptest.NewServer(&Handler{})
	defer srv.Close()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			opts := []stream.Option{stream.WithHTTPClient(srv.Client()), stream.WithVersion(v), stream.WithReconnect(reconnect.Never())}

			c, err := stream.NewRESTClient(srv.URL+"/rest/throughput/n=500", opts...)
			if err != nil {
				t.Fatal(err)
			}
			n, task := drain(t, c)
			if n != 503 || task.Status.State != a2a.StateCompleted || len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 500 {
				t.Errorf("throughput: %d events, task %v with %d artifacts; want 503, completed, one of 500 parts", n, task.Status.State, len(task.Artifacts))
			}

			c, err = stream.NewRESTClient(srv.URL+"/rest/long/n=1000/msgs=10/arts=4", opts...)
			if err != nil {
				t.Fatal(err)
			}
			n, task = drain(t, c)
			if n != 1002 || len(task.Artifacts) != 4 || task.Status.State != a2a.StateCompleted {
				t.Errorf("long: %d events, %d artifacts, %v; want 1002, 4, completed", n, len(task.Artifacts), task.Status.State)
			}
		})
	}
}

func TestRESTRefusals(t *testing.T) {
	srv := httptest.NewServer(&Handler{})
	defer srv.Close()
	for _, tc := range []struct {
		method, path, version, body string
		want                        int
	}{
		{"POST", "/rest/throughput/n=5/message:stream", "", `{"message":{}}`, 400}, // 1.0 without A2A-Version
		{"POST", "/rest/throughput/n=5/message:stream", "1.0", `{}`, 400},
		{"POST", "/rest/throughput/n=5/message:send", "1.0", `{"message":{}}`, 400},
		{"GET", "/rest/throughput/n=5/v1/message:stream", "", `{"message":{}}`, 405},
		{"POST", "/rest/throughput/5/v1/message:stream", "", `{"message":{}}`, 404},
		{"POST", "/rest/resume/n=5/v1/message:stream", "", `{"message":{}}`, 404},
		{"POST", "/rest/throughput/n=5/v1/message:stream", "", `{"message":{}}`, 200},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if tc.version != "" {
			req.Header.Set("A2A-Version", tc.version)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s (A2A-Version %q): status %d; want %d", tc.method, tc.path, tc.version, resp.StatusCode, tc.want)
		}
	}
}
