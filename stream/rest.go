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

	"github.com/a2astream/a2astream/a2a"
)

// restBinding speaks the HTTP+JSON binding under one base URL, as the
// @a2a-js/sdk servers serve it: POST {base}/message:stream and message:send,
// GET {base}/tasks/{id}, POST {base}/tasks/{id}:cancel and
// {base}/tasks/{id}:subscribe in 1.0 (with the tenant, if any, as a path
// segment after the base: the 1.0 spec's paths); the same under {base}/v1/
// in 0.3 (its proto's paths, and @a2a-js/sdk 0.3's routes). Stream data
// lines carry bare StreamResponse objects; errors are HTTP statuses with an
// A2A error body, which the *HTTPError wraps as an *a2a.RPCError.
type restBinding struct{ c *Client }

// path returns the URL of a REST resource under the base.
func (b restBinding) path(v a2a.Version, rest string) string {
	base := strings.TrimSuffix(b.c.endpoint, "/")
	if v == a2a.V03 {
		return base + "/v1/" + rest
	}
	if t := b.c.cfg.tenant; t != "" {
		base += "/" + url.PathEscape(t)
	}
	return base + "/" + rest
}

func taskPath(taskID, suffix string) string { return "tasks/" + url.PathEscape(taskID) + suffix }

type restSend struct {
	Message       json.RawMessage `json:"message"`
	Configuration *sendConfig     `json:"configuration,omitempty"`
}

func (b restBinding) sendBody(v a2a.Version, m *a2a.Message, unary bool) ([]byte, error) {
	raw, err := a2a.MarshalMessageFor(v, a2a.BindingHTTPJSON, m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidMessage, err)
	}
	body := restSend{Message: raw}
	if unary {
		body.Configuration = unaryConfig(v)
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the request: %w", ErrInvalidMessage, err)
	}
	return out, nil
}

func (b restBinding) sendStream(ctx context.Context, v a2a.Version, m *a2a.Message) (*leg, error) {
	body, err := b.sendBody(v, m, false)
	if err != nil {
		return nil, err
	}
	return b.stream(ctx, v, http.MethodPost, b.path(v, "message:stream"), body)
}

func (b restBinding) subscribe(ctx context.Context, v a2a.Version, taskID string) (*leg, error) {
	u := b.path(v, taskPath(taskID, ":subscribe"))
	l, err := b.stream(ctx, v, http.MethodPost, u, nil)
	var httpErr *HTTPError
	if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusMethodNotAllowed {
		// The proto maps subscribe to GET; some servers route only that.
		return b.stream(ctx, v, http.MethodGet, u, nil)
	}
	return l, err
}

func (b restBinding) getTask(ctx context.Context, v a2a.Version, taskID string) (*a2a.Task, error) {
	u := b.path(v, taskPath(taskID, "")) + "?historyLength=" + strconv.Itoa(fullHistory)
	raw, err := b.unary(ctx, v, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	return decodeTaskFor(v, a2a.BindingHTTPJSON, raw)
}

func (b restBinding) cancel(ctx context.Context, v a2a.Version, taskID string) (*a2a.Task, error) {
	raw, err := b.unary(ctx, v, http.MethodPost, b.path(v, taskPath(taskID, ":cancel")), []byte("{}"))
	if err != nil {
		return nil, err
	}
	return decodeTaskFor(v, a2a.BindingHTTPJSON, raw)
}

func (b restBinding) sendUnary(ctx context.Context, v a2a.Version, m *a2a.Message) (a2a.Event, error) {
	body, err := b.sendBody(v, m, true)
	if err != nil {
		return nil, err
	}
	raw, err := b.unary(ctx, v, http.MethodPost, b.path(v, "message:send"), body)
	if err != nil {
		return nil, err
	}
	ev, err := a2a.UnmarshalEventFor(v, a2a.BindingHTTPJSON, raw)
	if err != nil {
		return nil, &ProtocolError{Reason: "malformed result", Err: err}
	}
	return ev, nil
}

func decodeTaskFor(v a2a.Version, b a2a.Binding, raw []byte) (*a2a.Task, error) {
	t, err := a2a.UnmarshalTaskFor(v, b, raw)
	if err != nil {
		return nil, &ProtocolError{Reason: "malformed task", Err: err}
	}
	return t, nil
}

// request sends one REST request on k and returns the 2xx response with its
// body open. Any other status is an *HTTPError, wrapping the A2A error its
// body carries, if any.
func (b restBinding) request(k *call, v a2a.Version, method, u string, body []byte, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(k.ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("stream: building request: %w", err)
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
func (b restBinding) stream(ctx context.Context, v a2a.Version, method, u string, body []byte) (*leg, error) {
	k := b.c.newCall(ctx)
	resp, err := b.request(k, v, method, u, body, "text/event-stream")
	if err != nil {
		k.close()
		return nil, err
	}
	dec := a2a.NewEventDecoder(v, a2a.BindingHTTPJSON)
	return b.c.newLeg(k, resp, restFrame(dec))
}

// restFrame decodes the data of one SSE event of a REST stream, or a whole
// JSON body standing in for one: a StreamResponse, or an A2A error body.
func restFrame(dec *a2a.EventDecoder) frameDecoder {
	return func(data []byte) (a2a.Event, error) {
		ev, err := dec.Decode(data)
		if err == nil {
			return ev, nil
		}
		if rpcErr, ok := a2a.ParseHTTPError(0, data); ok {
			return nil, rpcErr
		}
		return nil, &ProtocolError{Reason: "malformed result", Err: err}
	}
}

// unary makes a non-streaming call and returns its JSON body.
func (b restBinding) unary(ctx context.Context, v a2a.Version, method, u string, body []byte) ([]byte, error) {
	k := b.c.newCall(ctx)
	defer k.close()
	resp, err := b.request(k, v, method, u, body, "application/json")
	if err != nil {
		return nil, err
	}
	return b.c.readUnary(k, resp)
}
