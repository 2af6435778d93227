package stream_test

// A base URL that is not an A2A agent's (a wrong path, a web site) gives an
// *InvalidCardError that names the card URLs tried and asks whether this is
// an A2A agent; the HTTP error stays reachable through it.

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/stream"
)

func TestResolveOfANonAgentNamesTheCardURLsTried(t *testing.T) {
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	})
	_, err := stream.Resolve(context.Background(), "http://site.test/app?key=k-secret", stream.WithHTTPClient(a2atest.NewClient(notFound)))
	var ce *agentcard.InvalidError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, []string{"http://site.test/app/.well-known/agent-card.json?key=xxxxx", "http://site.test/app/.well-known/agent.json?key=xxxxx"}, ce.Tried)
	var he *stream.HTTPError
	require.ErrorAs(t, err, &he, "the HTTP error stays reachable")
	require.Equal(t, http.StatusNotFound, he.StatusCode)
	require.Contains(t, err.Error(), "is this the base URL of an A2A agent?")
	require.Contains(t, err.Error(), strings.Join(ce.Tried, " or "))
	require.NotContains(t, err.Error(), "k-secret")
}

func TestResolveOfAWebPageSaysItIsNotACard(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><body>Welcome</body></html>"))
	})
	_, err := stream.Resolve(context.Background(), "http://site.test/", stream.WithHTTPClient(a2atest.NewClient(page)))
	var ce *agentcard.InvalidError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, ce.Reason, "HTML")
	require.Contains(t, err.Error(), "is this the base URL of an A2A agent?")
}
