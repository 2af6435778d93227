package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// restBinding speaks the HTTP+JSON binding under one base URL, as the
// @a2a-js/sdk servers serve it: POST {base}/message:stream and message:send,
// GET {base}/tasks/{id}, POST {base}/tasks/{id}:cancel and
// {base}/tasks/{id}:subscribe in 1.0 (with the tenant, if any, as a path
// segment after the base: the 1.0 spec's paths); the same under {base}/v1/
// in 0.3 (its proto's paths, and @a2a-js/sdk 0.3's routes). Stream data
// lines carry bare StreamResponse objects; errors are HTTP statuses with an
// A2A error body, which the *transport.HTTPError wraps as an *a2a.RPCError.
//
// {base} is the base URL's path: the query of the base URL (an API key,
// Azure Functions' ?code=) goes with every call as it is.
//
// Its methods are the driver's agentCalls; each call is made with its
// callConfig k (version, headers, timeouts).
type restBinding struct{ c *Client }

// resource is a REST resource under the base: the segments of its path,
// unescaped, and the query parameters of its own, encoded ("" for none).
type resource struct {
	segs  []string
	query string
}

// taskResource is the resource of a task, or of an action on it (suffix
// ":cancel" or ":subscribe"): the task ID stays one path segment.
func taskResource(taskID, suffix string) resource {
	return resource{segs: []string{"tasks", taskID + suffix}}
}

// url returns the URL of r in version v: the base URL with r's path joined
// under the base's path (after /v1 in 0.3, after the tenant segment in
// 1.0), and the base's query, byte for byte, with r's query added. A base
// query parameter that r sets too is replaced by r's.
func (b restBinding) url(v a2a.Version, r resource) (string, error) {
	base, err := url.Parse(b.c.endpoint)
	if err != nil {
		return "", err
	}
	var segs []string
	if v == a2a.V03 {
		segs = append(segs, "v1")
	} else if t := b.c.cfg.tenant; t != "" {
		segs = append(segs, t)
	}
	u := httpx.Under(base, append(segs, r.segs...)...)
	u.RawQuery = mergeQuery(u.RawQuery, r.query)
	return u.String(), nil
}

// mergeQuery returns the raw query base with the parameters of the raw
// query own added at its end. The parameters of base keep their bytes and
// order, except those own sets, which are left out: own's value is the one
// the call needs.
func mergeQuery(base, own string) string {
	if own == "" || base == "" {
		return base + own
	}
	set := map[string]bool{}
	for _, p := range strings.Split(own, "&") {
		k, _, _ := strings.Cut(p, "=")
		set[k] = true
	}
	var kept []string
	for _, p := range strings.Split(base, "&") {
		if k, _, _ := strings.Cut(p, "="); !set[k] {
			kept = append(kept, p)
		}
	}
	return strings.Join(append(kept, own), "&")
}

type restSend struct {
	Message       json.RawMessage `json:"message"`
	Configuration *sendConfig     `json:"configuration,omitempty"`
}

func (b restBinding) sendBody(k callConfig, m *a2a.Message, unary bool) ([]byte, error) {
	raw, err := a2a.Codec{Version: k.v, Binding: a2a.BindingHTTPJSON}.EncodeMessage(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrInvalidMessage, err)
	}
	body := restSend{Message: raw}
	if body.Configuration, err = sendConfigOf(k, a2a.BindingHTTPJSON, unary); err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrInvalidMessage, err)
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the request: %w", transport.ErrInvalidMessage, err)
	}
	return out, nil
}

func (b restBinding) sendStream(ctx context.Context, k callConfig, m *a2a.Message) (*leg, error) {
	body, err := b.sendBody(k, m, false)
	if err != nil {
		return nil, err
	}
	return legOf(b.stream(ctx, k, http.MethodPost, resource{segs: []string{"message:stream"}}, body))
}

func (b restBinding) subscribe(ctx context.Context, k callConfig, taskID string) (*leg, error) {
	r := taskResource(taskID, ":subscribe")
	l, err := b.stream(ctx, k, http.MethodPost, r, nil)
	var httpErr *transport.HTTPError
	if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusMethodNotAllowed {
		// The proto maps subscribe to GET; some servers route only that.
		return legOf(b.stream(ctx, k, http.MethodGet, r, nil))
	}
	return legOf(l, err)
}

func (b restBinding) getTask(ctx context.Context, k callConfig, taskID string) (taskAnswer, error) {
	r := taskResource(taskID, "")
	r.query = "historyLength=" + strconv.Itoa(fullHistory)
	return b.task(ctx, k, http.MethodGet, r, nil)
}

func (b restBinding) cancel(ctx context.Context, k callConfig, taskID string) (taskAnswer, error) {
	return b.task(ctx, k, http.MethodPost, taskResource(taskID, ":cancel"), []byte("{}"))
}

// task makes a get-task or cancel call of r and returns its body, the
// task undecoded, with the wait the response asked for (see readUnary).
func (b restBinding) task(ctx context.Context, k callConfig, method string, r resource, body []byte) (taskAnswer, error) {
	raw, asked, err := b.unary(ctx, k, method, r, body)
	if err != nil {
		return taskAnswer{}, err
	}
	return taskAnswer{raw: raw, codec: a2a.Codec{Version: k.v, Binding: a2a.BindingHTTPJSON}, asked: asked}, nil
}

func (b restBinding) sendUnary(ctx context.Context, k callConfig, m *a2a.Message) (a2a.Event, error) {
	body, err := b.sendBody(k, m, true)
	if err != nil {
		return nil, err
	}
	raw, _, err := b.unary(ctx, k, http.MethodPost, resource{segs: []string{"message:send"}}, body)
	if err != nil {
		return nil, err
	}
	ev, err := a2a.Codec{Version: k.v, Binding: a2a.BindingHTTPJSON}.DecodeEvent(raw)
	if err != nil {
		return nil, &transport.ProtocolError{Reason: "malformed result", Err: err}
	}
	return ev, nil
}

// request sends one REST request for r on k and returns the 2xx response
// with its body open. Any other status is a *transport.HTTPError, wrapping the A2A
// error its body carries, if any.
func (b restBinding) request(k *call, v a2a.Version, method string, r resource, body []byte, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	u, err := b.url(v, r)
	if err != nil {
		return nil, fmt.Errorf("stream: building request: %w", httpx.RedactError(err))
	}
	req, err := http.NewRequestWithContext(k.ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("stream: building request: %w", httpx.RedactError(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	if v == a2a.V10 {
		req.Header.Set("A2A-Version", string(a2a.V10))
	}
	resp, err := b.c.do(k, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, k.httpError(resp)
	}
	return resp, nil
}

// stream makes a streaming call.
func (b restBinding) stream(ctx context.Context, cfg callConfig, method string, r resource, body []byte) (transport.EventReader, error) {
	k := b.c.newCall(ctx, cfg)
	resp, err := b.request(k, cfg.v, method, r, body, "text/event-stream")
	if err != nil {
		k.close()
		return nil, err
	}
	dec := a2a.NewEventDecoder(a2a.Codec{Version: cfg.v, Binding: a2a.BindingHTTPJSON})
	return b.c.newSSEReader(k, resp, restFrame(dec))
}

// restFrame decodes the data of one SSE event of a REST stream, or a whole
// JSON body standing in for one: a StreamResponse, or an A2A error body.
func restFrame(dec *a2a.EventDecoder) frameDecoder {
	return func(data []byte, pieces [][]byte) (a2a.Event, error) {
		var (
			ev  a2a.Event
			err error
		)
		if pieces != nil {
			ev, err = dec.DecodePieces(pieces)
		} else {
			ev, err = dec.Decode(data)
		}
		if err == nil {
			return ev, nil
		}
		if pieces != nil {
			data = bytes.Join(pieces, nil)
		}
		if rpcErr, ok := a2a.ParseHTTPError(0, data); ok {
			return nil, rpcErr
		}
		return nil, &transport.ProtocolError{Reason: "malformed result", Err: err}
	}
}

// unary makes a non-streaming call and returns its JSON body, and the wait
// its response asked for (see readUnary).
func (b restBinding) unary(ctx context.Context, cfg callConfig, method string, r resource, body []byte) ([]byte, time.Duration, error) {
	k := b.c.newCall(ctx, cfg)
	defer k.close()
	resp, err := b.request(k, cfg.v, method, r, body, "application/json")
	if err != nil {
		return nil, 0, err
	}
	return b.c.readUnary(k, resp)
}
