package relay_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// The Go names of a browser's view (View, ViewPane, FinalEvent, and
// GoneData.View) are not its JSON: a page reads "screen", "panes" and
// "end" as before they were renamed.
func TestViewKeepsTheJSONAPageReads(t *testing.T) {
	var v relay.View
	for i, e := range []relay.Entry{
		{Seq: 1, Name: relay.EventArtifact, Data: []byte(`{"pane":"artifact:a","id":"a","text":"hi"}`)},
		{Seq: 2, Name: relay.EventEnd, Data: []byte(`{"state":"completed","text":"completed"}`)},
	} {
		require.NoError(t, v.Apply(e), "entry %d", i)
	}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, `{"seq":2,"panes":[{"key":"artifact:a","kind":"artifact","id":"a","text":"hi"}],
		"end":{"name":"end","data":{"state":"completed","text":"completed"}}}`, string(data))
	gone, err := json.Marshal(relay.GoneData{Reason: "trimmed", View: data})
	require.NoError(t, err)
	require.JSONEq(t, `{"reason":"trimmed","screen":`+string(data)+`}`, string(gone))
	back, err := relay.ParseView(data)
	require.NoError(t, err)
	require.Equal(t, &relay.FinalEvent{Name: relay.EventEnd, Data: json.RawMessage(`{"state":"completed","text":"completed"}`)}, back.End)
	require.Equal(t, "hi", back.Pane("artifact:a").Text())
}
