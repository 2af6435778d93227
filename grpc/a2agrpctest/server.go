package a2agrpctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/internal/a2awire"
	"github.com/a2astream/a2astream/internal/jsonrpc"
	"github.com/a2astream/a2astream/internal/sse"
)

// Server is an in-process gRPC A2A server in front of one [a2atest.Agent]
// (or one handler of the JSON-RPC binding: [NewHandlerServer]).
// Its methods are safe for concurrent use.
type Server struct {
	agent *a2atest.Agent
	http  *http.Client
	lis   *bufconn.Listener
	srv   *grpc.Server
	done  chan struct{}
}

// NewServer starts serving agent over gRPC, A2A 1.0 and 0.3 both, with the
// gRPC server options given (interceptors, say), on an in-memory listener.
// Close stops it.
func NewServer(agent *a2atest.Agent, opts ...grpc.ServerOption) *Server {
	s := NewHandlerServer(agent, opts...)
	s.agent = agent
	return s
}

// NewHandlerServer is NewServer for any handler of A2A's JSON-RPC binding
// (a hand-written server a test scripts event by event) instead of an
// a2atest.Agent: each gRPC call is made of a JSON-RPC request to h, in the
// call's version, and its answer is converted back as NewServer's are (a
// handler that panics with http.ErrAbortHandler cuts the call, which ends
// UNAVAILABLE). Its Agent is nil.
func NewHandlerServer(h http.Handler, opts ...grpc.ServerOption) *Server {
	s := &Server{
		http: a2atest.NewClient(h),
		lis:  bufconn.Listen(1 << 20),
		done: make(chan struct{}),
	}
	s.srv = grpc.NewServer(append([]grpc.ServerOption{grpc.WaitForHandlers(true)}, opts...)...)
	registerV10(s.srv, s)
	registerV03(s.srv, s)
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(s.lis)
	}()
	return s
}

// Agent returns the agent the server serves (nil for NewHandlerServer's).
func (s *Server) Agent() *a2atest.Agent { return s.agent }

// Target is the gRPC target to dial with [Server.DialOption].
func (s *Server) Target() string { return "passthrough:///a2atest" }

// Dial opens a connection to the server, for grpc.WithContextDialer.
func (s *Server) Dial(ctx context.Context, _ string) (net.Conn, error) {
	return s.lis.DialContext(ctx)
}

// DialOption connects a gRPC client to the server, whatever the target.
func (s *Server) DialOption() grpc.DialOption { return grpc.WithContextDialer(s.Dial) }

// Transport returns a client of the library's gRPC binding connected to
// the server, without TLS, with the options given after those. The caller
// closes it.
func (s *Server) Transport(opts ...a2agrpc.Option) (*a2agrpc.Transport, error) {
	return a2agrpc.New(s.Target(), append([]a2agrpc.Option{
		a2agrpc.WithInsecure(), a2agrpc.WithDialOptions(s.DialOption()),
	}, opts...)...)
}

// Close stops the server: it closes every connection, ends the calls under
// way and waits for their handlers to return.
func (s *Server) Close() {
	s.srv.Stop()
	<-s.done
}

// headerOf makes the HTTP header of a call from its gRPC metadata: every
// key but gRPC's own (pseudo-headers, grpc-*, content-type, user-agent, te).
func headerOf(ctx context.Context) http.Header {
	h := http.Header{}
	md, _ := metadata.FromIncomingContext(ctx)
	for k, vs := range md {
		switch {
		case strings.HasPrefix(k, ":"), strings.HasPrefix(k, "grpc-"), strings.HasSuffix(k, "-bin"),
			k == "content-type", k == "user-agent", k == "te":
			continue
		}
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	h.Set("Content-Type", "application/json")
	return h
}

// post makes one JSON-RPC call of the agent and returns its response; the
// error is the gRPC status of a call that got none.
func (s *Server) post(ctx context.Context, v a2a.Version, method string, params any, accept string) (*http.Response, error) {
	body, err := json.Marshal(jsonrpc.NewRequest("1", method, params))
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://a2atest.grpc/", bytes.NewReader(body))
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	req.Header = headerOf(ctx)
	req.Header.Set("Accept", accept)
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, lost(ctx, err)
	}
	return resp, nil
}

// lost is the status of a call whose connection to the agent failed: the
// context's, if it ended, else UNAVAILABLE, as a lost stream reads.
func lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return status.FromContextError(ctx.Err()).Err()
	}
	return status.Error(codes.Unavailable, "a2agrpctest: connection lost: "+err.Error())
}

// unary makes a unary call and returns its raw result.
func (s *Server) unary(ctx context.Context, v a2a.Version, method string, params any) (json.RawMessage, error) {
	body, err := s.unaryBody(ctx, v, method, params)
	if err != nil {
		return nil, err
	}
	r, raw, err := jsonrpc.DecodeResponse(body)
	if err != nil {
		return nil, status.Error(codes.Internal, "a2agrpctest: the agent's answer: "+err.Error())
	}
	if r.Error != nil {
		return nil, rpcStatus(v, r.Error)
	}
	return raw, nil
}

// unaryVoid makes a unary call whose result carries nothing (a delete's
// null): any result is success.
func (s *Server) unaryVoid(ctx context.Context, v a2a.Version, method string, params any) error {
	body, err := s.unaryBody(ctx, v, method, params)
	if err != nil {
		return err
	}
	r, err := jsonrpc.DecodeVoidResponse(body)
	if err != nil {
		return status.Error(codes.Internal, "a2agrpctest: the agent's answer: "+err.Error())
	}
	if r.Error != nil {
		return rpcStatus(v, r.Error)
	}
	return nil
}

// unaryBody posts a unary call and returns the body of its 200 answer.
func (s *Server) unaryBody(ctx context.Context, v a2a.Version, method string, params any) ([]byte, error) {
	resp, err := s.post(ctx, v, method, params, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, lost(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, httpStatusError(resp, body)
	}
	return body, nil
}

// stream makes a streaming call and hands each event to send; the headers
// go out (sendHeader) when the agent's do.
func (s *Server) stream(ctx context.Context, v a2a.Version, method string, params any, sendHeader func() error, send func(a2a.Event) error) error {
	resp, err := s.post(ctx, v, method, params, "text/event-stream")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return lost(ctx, err)
		}
		return httpStatusError(resp, body)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return lost(ctx, err)
		}
		r, _, err := jsonrpc.DecodeResponse(body)
		switch {
		case err != nil:
			return status.Error(codes.Internal, "a2agrpctest: the agent's answer: "+err.Error())
		case r.Error != nil:
			return rpcStatus(v, r.Error)
		}
		return status.Error(codes.Internal, "a2agrpctest: a unary answer to a streaming call")
	}
	if err := sendHeader(); err != nil {
		return err
	}
	dec := sse.NewDecoder(resp.Body, 1<<24)
	frames := jsonrpc.NewStreamDecoder(v)
	for {
		e, err := dec.Next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return lost(ctx, err)
		}
		var (
			r  *jsonrpc.Response
			ev a2a.Event
		)
		if e.Data != nil {
			r, ev, err = frames.Decode(e.Data)
		} else {
			r, ev, err = frames.DecodePieces(e.Chunks)
		}
		switch {
		case err != nil:
			return status.Error(codes.Internal, "a2agrpctest: the agent's event: "+err.Error())
		case r.Error != nil:
			return rpcStatus(v, r.Error)
		}
		if err := send(ev); err != nil {
			return err
		}
	}
}

// codes03 are the gRPC codes @a2a-js/sdk 0.3.14 sends A2A errors with.
var codes03 = map[int]codes.Code{
	a2a.CodeTaskNotFound:                   codes.NotFound,
	a2a.CodeTaskNotCancelable:              codes.FailedPrecondition,
	a2a.CodePushNotificationNotSupported:   codes.Unimplemented,
	a2a.CodeUnsupportedOperation:           codes.Unimplemented,
	a2a.CodeContentTypeNotSupported:        codes.InvalidArgument,
	a2a.CodeInvalidAgentResponse:           codes.Internal,
	a2a.CodeExtendedAgentCardNotConfigured: codes.FailedPrecondition,
	a2a.CodeInvalidRequest:                 codes.InvalidArgument,
	a2a.CodeInvalidParams:                  codes.InvalidArgument,
	a2a.CodeParseError:                     codes.InvalidArgument,
	a2a.CodeInternalError:                  codes.Internal,
}

// codeNames are the google.rpc.Code names a2awire.Rest gives, as codes.
var codeNames = map[string]codes.Code{
	"INVALID_ARGUMENT": codes.InvalidArgument, "FAILED_PRECONDITION": codes.FailedPrecondition,
	"NOT_FOUND": codes.NotFound, "INTERNAL": codes.Internal, "UNIMPLEMENTED": codes.Unimplemented,
}

// rpcStatus is the gRPC status of an A2A error in version v (see the
// package doc).
func rpcStatus(v a2a.Version, e *a2a.RPCError) error {
	if e.Code == a2a.CodeMethodNotFound {
		return status.Error(codes.Unimplemented, "unknown method: "+e.Message)
	}
	var details []*errdetails.ErrorInfo
	code, ok := codes03[e.Code]
	if v != a2a.V03 {
		code, ok = codes.Unknown, false
		if r, known := a2awire.Rest(e.Code); known {
			code, ok = codeNames[r.Name]
			details = append(details, &errdetails.ErrorInfo{Reason: r.Reason, Domain: a2awire.Domain})
		}
	}
	if !ok {
		code = codes.Unknown
	}
	st := status.New(code, e.Message)
	for _, d := range details {
		st = withDetail(st, d)
	}
	if e.Retryable() {
		st = withDetail(st, &errdetails.RetryInfo{RetryDelay: durationpb.New(e.RetryAfter())})
	}
	return st.Err()
}

// withDetail returns st with the detail added, or st when it does not
// encode (it always does: the details are the ones linked here).
func withDetail(st *status.Status, d protoadapt.MessageV1) *status.Status {
	if s, err := st.WithDetails(d); err == nil {
		return s
	}
	return st
}

// CodeOfHTTP is the gRPC code an HTTP status the agent answers with (an
// HTTPStatus fault's) is sent as: google.rpc.Code's mapping of HTTP
// statuses, 502, 503 and 504 UNAVAILABLE (a proxy's, or a server's that is
// down), any other 4xx FAILED_PRECONDITION and any other status UNKNOWN.
func CodeOfHTTP(statusCode int) codes.Code {
	switch statusCode {
	case http.StatusBadRequest:
		return codes.InvalidArgument
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusConflict:
		return codes.Aborted
	case http.StatusRequestTimeout:
		return codes.DeadlineExceeded
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusNotImplemented:
		return codes.Unimplemented
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return codes.Unavailable
	case http.StatusInternalServerError:
		return codes.Internal
	}
	if statusCode >= 400 && statusCode < 500 {
		return codes.FailedPrecondition
	}
	return codes.Unknown
}

// httpStatusError is the gRPC status of an HTTP answer other than 200: its
// code's twin (CodeOfHTTP), with a RetryInfo for a Retry-After header.
func httpStatusError(resp *http.Response, body []byte) error {
	msg := fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	st := status.New(CodeOfHTTP(resp.StatusCode), msg)
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if d, ok := a2a.ParseRetryAfter(ra, time.Now()); ok {
			st = withDetail(st, &errdetails.RetryInfo{RetryDelay: durationpb.New(d)})
		}
	}
	return st.Err()
}
