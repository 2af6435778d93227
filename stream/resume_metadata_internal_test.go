package stream

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// What heldOf takes an artifact's metadata to be on resume, by the digests
// a checkpoint holds of the application's: the keys it holds alike, or
// nothing held (the artifact comes whole) when the agent's lacks a key the
// application holds; metadata the checkpoint does not know (format 1) is
// the agent's.
func TestHeldOfTakesTheMetadataTheApplicationHolds(t *testing.T) {
	md := func(kv ...any) map[string]any {
		if len(kv) == 0 {
			return nil
		}
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name    string
		app     map[string]any // the application's metadata
		unknown bool           // the checkpoint is of format 1
		agent   map[string]any // the metadata of the task fetched
		held    map[string]any
		ok      bool
	}{
		{"none held, none listed: nothing to hand over", nil, false, nil, nil, true},
		{"the same keys and values: all held", md("k", "v", "n", 1.0), false, md("k", "v", "n", 1.0), md("k", "v", "n", 1.0), true},
		{"a value changed: its key is not held, an append carries it", md("k", "before", "n", 1.0), false, md("k", "after", "n", 1.0), md("n", 1.0), true},
		{"a key added: not held, an append carries it", md("k", "v"), false, md("k", "v", "new", true), md("k", "v"), true},
		{"a nested value changed: not held", md("k", map[string]any{"a": 1.0}), false, md("k", map[string]any{"a": 2.0}), nil, true},
		{"a key taken away: no append takes it away, the artifact comes whole", md("k", "v", "gone", "x"), false, md("k", "v"), nil, false},
		{"every key taken away: whole", md("k", "v"), false, nil, nil, false},
		{"unknown (format 1): the agent's", nil, true, md("k", "after"), md("k", "after"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts := []a2a.Part{{Text: "kept"}}
			var w seen
			w.add(&a2a.ArtifactUpdate{Artifact: a2a.Artifact{ID: "a1", Parts: parts, Metadata: c.app}})
			m := w.arts[0]
			if c.unknown {
				m.Meta, m.MetaUnknown = nil, true
			}
			held, ok := heldOf(&m, &a2a.Artifact{ID: "a1", Parts: parts, Metadata: c.agent})
			require.Equal(t, c.ok, ok)
			if ok {
				require.Equal(t, c.held, held.Metadata)
			}
		})
	}
}

// The digests of an artifact's metadata follow the fold an application
// makes of its updates: an append's keys win and none goes; a replacement
// starts again; and a mark never changes the array a checkpoint shares.
func TestSeenFoldsAnArtifactsMetadataAsTheApplicationDoes(t *testing.T) {
	update := func(appended bool, md map[string]any) *a2a.ArtifactUpdate {
		return &a2a.ArtifactUpdate{Append: appended, Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "x"}}, Metadata: md}}
	}
	for _, c := range []struct {
		name    string
		updates []*a2a.ArtifactUpdate
	}{
		{"opened with none", []*a2a.ArtifactUpdate{update(false, nil)}},
		{"opened with keys", []*a2a.ArtifactUpdate{update(false, map[string]any{"k": "v", "j": 1.0})}},
		{"an append adds a key", []*a2a.ArtifactUpdate{update(false, map[string]any{"k": "v"}), update(true, map[string]any{"j": 1.0})}},
		{"an append changes a value", []*a2a.ArtifactUpdate{update(false, map[string]any{"k": "v", "j": 1.0}), update(true, map[string]any{"k": "w"})}},
		{"an append without metadata keeps it", []*a2a.ArtifactUpdate{update(false, map[string]any{"k": "v"}), update(true, nil)}},
		{"a replacement drops the keys it lacks", []*a2a.ArtifactUpdate{update(false, map[string]any{"k": "v", "j": 1.0}), update(false, map[string]any{"k": "w"})}},
		{"an append opens it", []*a2a.ArtifactUpdate{update(true, map[string]any{"k": "v"})}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w seen
			var app a2a.Task
			var shared [][]metaEntry
			for _, u := range c.updates {
				if len(w.arts) > 0 {
					shared = append(shared, w.arts[0].Meta)
				}
				before := cloneEntries(shared)
				w.add(u)
				require.Equal(t, before, cloneEntries(shared), "the arrays a checkpoint shares are left alone")
				app.Apply(u)
			}
			require.Equal(t, metaDigests(app.Artifact("a1").Metadata), w.arts[0].Meta)
		})
	}
}

func cloneEntries(ms [][]metaEntry) [][]metaEntry {
	out := make([][]metaEntry, len(ms))
	for i, m := range ms {
		out[i] = append([]metaEntry(nil), m...)
	}
	return out
}
