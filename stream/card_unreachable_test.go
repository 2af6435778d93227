package stream_test

// An agent that is down when its card is fetched (Resolve, FetchCard) gives
// an error that says the card could not be fetched because nothing could be
// connected to, names the redacted card URL, matches
// reconnect.ErrCouldNotConnect as a stream's does, and keeps the transport's
// error reachable.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// refusingTransport fails every request as a refused dial does.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func TestCardOfAnAgentThatIsDownSaysItCouldNotConnect(t *testing.T) {
	hc := &http.Client{Transport: refusingTransport{}}
	fetches := map[string]func() error{
		"Resolve": func() error {
			_, err := stream.Resolve(context.Background(), "http://agent.test/app?key=k-secret", stream.WithHTTPClient(hc))
			return err
		},
		"FetchCard": func() error {
			_, err := agentcard.Fetch(context.Background(), "http://agent.test/app?key=k-secret", agentcard.WithHTTPClient(hc))
			return err
		},
	}
	for name, fetch := range fetches {
		t.Run(name, func(t *testing.T) {
			err := fetch()
			require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
			require.ErrorIs(t, err, syscall.ECONNREFUSED)
			var opErr *net.OpError
			require.ErrorAs(t, err, &opErr)
			require.Contains(t, err.Error(), "could not connect to http://agent.test/app/.well-known/agent-card.json?key=xxxxx")
			require.NotContains(t, err.Error(), "k-secret")
			var ce *agentcard.InvalidError
			require.False(t, errors.As(err, &ce), "a card that could not be fetched is not an invalid card")
		})
	}
}

func TestResolveOfAClosedPortSaysItCouldNotConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	_, err = stream.Resolve(context.Background(), "http://"+addr+"/")
	require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	require.Contains(t, err.Error(), "could not connect to http://"+addr+"/.well-known/agent-card.json")
}
