package stream_test

// The one artifact fold through a stream: appends that carry a name, a
// description and metadata, cut at every event boundary in every server
// style. The application folds with a2a.Task.Apply; drain checks after
// every event that its artifacts equal Task().Artifacts, whole and in
// order, and at the end they must equal the server's.

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// described is a script whose appends rename, describe and annotate the
// artifact as it grows.
func described() []a2atest.Step {
	chunk := func(text string, appendChunk, last bool, name string, md map[string]any) a2atest.Step {
		a := a2a.Artifact{ID: "report", Name: name, Metadata: md}
		if text != "" { // the last chunk carries metadata alone
			a.Parts = []a2a.Part{a2a.TextPart(text)}
		}
		if name != "" {
			a.Description = name + " (so far)"
		}
		return a2atest.ArtifactChunk(a, appendChunk, last)
	}
	return []a2atest.Step{
		a2atest.Working("writing"),
		a2atest.Pause(tick), chunk("intro ", false, false, "draft", map[string]any{"pages": 1.0, "lang": "en"}),
		a2atest.Pause(tick), chunk("body ", true, false, "", map[string]any{"pages": 2.0}),
		a2atest.Pause(tick), chunk("end", true, false, "report", nil),
		a2atest.Pause(tick), chunk("", true, true, "", map[string]any{"final": true}),
		a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

const describedEvents = 7

func TestAppendsCarryNamesAndMetadataAcrossCuts(t *testing.T) {
	t.Parallel()
	for _, v := range versions {
		for _, style := range styles {
			for k := 1; k < describedEvents; k++ {
				for _, f := range []a2atest.Fault{a2atest.CutAfterEvents(k), a2atest.CloseAfterEvents(k)} {
					t.Run(fmt.Sprintf("%s/%s/%s", v, style, f), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style),
								a2atest.WithScript(described()...), a2atest.WithFaults(f))
							s := newClient(t, agent, v).Send(background(), hello())
							got, err := drain(t, s)
							var re *reconnect.Error
							if (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, stream.ErrEndedEarly)) && errors.As(err, &re) && re.Attempts == 0 {
								return // cut before the task ID was known
							}
							require.NoError(t, err)
							server := requireSameAsServer(t, agent, s, got)
							report := server.Artifact("report")
							require.Equal(t, "report", report.Name)
							require.Equal(t, map[string]any{"pages": 2.0, "lang": "en", "final": true}, report.Metadata)
						})
					})
				}
			}
		}
	}
}
