package relay_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Checkers shared by relay's tests: the fold of what a browser read (or
// of a log's entries) into a screen, and the entries a browser must get.

// fold folds events into a screen, starting from the gone event's screen
// when the first event is one.
func fold(t *testing.T, evs []event) *relay.View {
	t.Helper()
	sc := &relay.View{}
	for _, ev := range evs {
		if ev.Name == relay.EventGone {
			var g relay.GoneData
			require.NoError(t, json.Unmarshal(ev.Data, &g))
			var err error
			sc, err = relay.ParseView(g.View)
			require.NoError(t, err)
			continue
		}
		require.NoError(t, sc.Apply(ev.entry(t)))
	}
	return sc
}

// requireEntries fails unless evs are exactly the log's entries want.
func requireEntries(t *testing.T, want []relay.Entry, evs []event) {
	t.Helper()
	line := func(e relay.Entry) string { return fmt.Sprintf("%d %s %s", e.Seq, e.Name, e.Data) }
	var got, exp []string
	for _, ev := range evs {
		got = append(got, line(ev.entry(t)))
	}
	for _, e := range want {
		exp = append(exp, line(e))
	}
	require.Equal(t, exp, got)
}

// foldRaw folds a response that may start with gone.
func foldRaw(t *testing.T, evs []rawEvent) *relay.View {
	t.Helper()
	var s *relay.View = &relay.View{}
	for _, e := range evs {
		if e.Name == "" {
			continue
		}
		if e.Name == relay.EventGone {
			var g relay.GoneData
			require.NoError(t, json.Unmarshal([]byte(e.Data), &g))
			var err error
			s, err = relay.ParseView(g.View)
			require.NoError(t, err)
			require.Equal(t, e.entry(t).Seq, s.Seq, "gone's ID is its screen's Seq")
			continue
		}
		require.NoError(t, s.Apply(e.entry(t)))
	}
	return s
}

// screenAfter folds the first n entries.
func screenAfter(t *testing.T, entries []relay.Entry) *relay.View {
	t.Helper()
	sc := &relay.View{}
	for _, e := range entries {
		require.NoError(t, sc.Apply(e))
	}
	return sc
}
