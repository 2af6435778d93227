package a2a_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestRoundTripCaptures re-encodes every captured event in the version it
// came in and decodes it again: the model must not change, and encoding is
// deterministic.
func TestRoundTripCaptures(t *testing.T) {
	t.Parallel()
	for name, results := range captureResults(t) {
		v := versionOf(name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, res := range results {
				ev, err := a2a.Codec{}.DecodeEvent(res)
				require.NoError(t, err)
				b1, err := a2a.Codec{Version: v}.EncodeEvent(ev)
				require.NoError(t, err)
				b2, err := a2a.Codec{Version: v}.EncodeEvent(ev)
				require.NoError(t, err)
				if !bytes.Equal(b1, b2) {
					t.Errorf("second encoding = %s; want %s", b2, b1)
				}
				again, err := a2a.Codec{}.DecodeEvent(b1)
				require.NoError(t, err)
				require.Equal(t, ev, again, "re-decoded %s", b1)
			}
		})
	}
}

func TestRoundTripUnaryTasks(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "captures", "*.json"))
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		base := filepath.Base(f)
		if strings.Contains(base, "agent-card") {
			continue
		}
		env := decodeEnvelope(t, readCapture(t, base))
		if env.Result == nil {
			continue
		}
		n++
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			task, err := a2a.Codec{}.DecodeTask(env.Result)
			require.NoError(t, err)
			b, err := (a2a.Codec{Version: versionOf(base)}).EncodeTask(task)
			require.NoError(t, err)
			again, err := a2a.Codec{}.DecodeTask(b)
			require.NoError(t, err)
			require.Equal(t, task, again, "re-decoded %s", b)
		})
	}
	require.Positive(t, n)
}

// TestCrossVersion encodes every event decoded from a 0.3 capture as 1.0 and
// decodes it again. Only StatusUpdate.Final is lost: 1.0 has no "final".
// The other way, 1.0 → 0.3, loses the media type and file name of text and
// data parts, for which 0.3 has no field.
func TestCrossVersion(t *testing.T) {
	t.Parallel()
	for name, results := range captureResults(t) {
		from := versionOf(name)
		to := a2a.V10
		if from == a2a.V10 {
			to = a2a.V03
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, res := range results {
				ev, err := a2a.Codec{}.DecodeEvent(res)
				require.NoError(t, err)
				b, err := a2a.Codec{Version: to}.EncodeEvent(ev)
				require.NoError(t, err)
				got, err := a2a.Codec{}.DecodeEvent(b)
				require.NoError(t, err)
				require.Equal(t, lossy(ev, to), got, "re-decoded %s", b)
			}
		})
	}
}

// lossy returns what survives of ev once written in version to.
func lossy(ev a2a.Event, to a2a.Version) a2a.Event {
	switch x := ev.(type) {
	case *a2a.StatusUpdate:
		c := *x
		c.Status.Message = c.Status.Message.Clone()
		if to == a2a.V10 {
			c.Final = false
		}
		lossyMessage(c.Status.Message, to)
		return &c
	case *a2a.Task:
		c := x.Clone()
		lossyMessage(c.Status.Message, to)
		for i := range c.History {
			lossyMessage(&c.History[i], to)
		}
		for i := range c.Artifacts {
			lossyParts(c.Artifacts[i].Parts, to)
		}
		return c
	case *a2a.Message:
		c := x.Clone()
		lossyMessage(c, to)
		return c
	case *a2a.ArtifactUpdate:
		c := *x
		c.Artifact = x.Artifact.Clone()
		lossyParts(c.Artifact.Parts, to)
		return &c
	}
	return ev
}

func lossyMessage(m *a2a.Message, to a2a.Version) {
	if m != nil {
		lossyParts(m.Parts, to)
	}
}

func lossyParts(ps []a2a.Part, to a2a.Version) {
	if to != a2a.V03 {
		return
	}
	for i := range ps {
		if ps[i].URL == "" && ps[i].Raw == nil {
			ps[i].MediaType, ps[i].Filename = "", ""
		}
	}
}

var (
	goldenTime = time.Date(2026, 3, 1, 10, 0, 1, 0, time.UTC)
	goldenMeta = map[string]any{"trace": "abc", "n": 1.0}
)

func goldenParts() []a2a.Part {
	return []a2a.Part{
		{Text: "Write a report", Metadata: map[string]any{"lang": "en"}},
		{Data: json.RawMessage(`{"from":"JFK","to":"LHR"}`), MediaType: "application/json"},
		{Raw: []byte("hello\n"), MediaType: "text/plain", Filename: "hello.txt"},
		{URL: "https://example.com/a.pdf", MediaType: "application/pdf", Filename: "a.pdf"},
		{Text: "<b>&</b>"},
	}
}

func goldenTask() *a2a.Task {
	return &a2a.Task{
		ID:        "t-1",
		ContextID: "c-1",
		Status: a2a.TaskStatus{
			State:     a2a.StateWorking,
			Timestamp: goldenTime,
		},
		Artifacts: []a2a.Artifact{{
			ID: "a-1", Name: "report.md", Description: "the report",
			Parts: []a2a.Part{{Text: "# Report\n"}, {Text: "Section 1\n"}},
		}},
		History: []a2a.Message{
			{ID: "m-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "Write a report"}}},
		},
		Metadata: goldenMeta,
	}
}

func goldenStatusUpdate() *a2a.StatusUpdate {
	return &a2a.StatusUpdate{
		TaskID:    "t-2",
		ContextID: "c-2",
		Status: a2a.TaskStatus{
			State: a2a.StateInputRequired,
			Message: &a2a.Message{
				ID: "m-a1", TaskID: "t-2", ContextID: "c-2", Role: a2a.RoleAgent,
				Parts: []a2a.Part{{Text: "Which dates?"}},
			},
			Timestamp: goldenTime.Add(123456789 * time.Nanosecond),
		},
		Final: true,
	}
}

func goldenArtifactUpdate() *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{
		TaskID: "t-1", ContextID: "c-1",
		Artifact: a2a.Artifact{ID: "a-1", Parts: []a2a.Part{{Text: "Section 2\n"}}},
		Append:   true, LastChunk: true,
		Metadata: goldenMeta,
	}
}

func goldenMessage() *a2a.Message {
	return &a2a.Message{ID: "m-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "Write a report"}}}
}

func TestGoldenEncoding(t *testing.T) {
	t.Parallel()
	canceled := goldenStatusUpdate()
	canceled.Status = a2a.TaskStatus{State: a2a.StateCanceled}
	canceled.Final = false
	tests := []struct {
		file   string
		encode func(a2a.Version) ([]byte, error)
	}{
		{"statusupdate", func(v a2a.Version) ([]byte, error) { return a2a.Codec{Version: v}.EncodeEvent(goldenStatusUpdate()) }},
		{"statusupdate-canceled", func(v a2a.Version) ([]byte, error) { return a2a.Codec{Version: v}.EncodeEvent(canceled) }},
		{"artifactupdate", func(v a2a.Version) ([]byte, error) {
			return a2a.Codec{Version: v}.EncodeEvent(goldenArtifactUpdate())
		}},
		{"task", func(v a2a.Version) ([]byte, error) { return a2a.Codec{Version: v}.EncodeTask(goldenTask()) }},
		{"task-event", func(v a2a.Version) ([]byte, error) { return a2a.Codec{Version: v}.EncodeEvent(goldenTask()) }},
		{"message", func(v a2a.Version) ([]byte, error) { return a2a.Codec{Version: v}.EncodeMessage(goldenMessage()) }},
		{"message-event", func(v a2a.Version) ([]byte, error) { return a2a.Codec{Version: v}.EncodeEvent(goldenMessage()) }},
		{"parts", func(v a2a.Version) ([]byte, error) {
			return a2a.Codec{Version: v}.EncodeMessage(&a2a.Message{ID: "m-p", Role: a2a.RoleAgent, Parts: goldenParts()})
		}},
	}
	for _, tc := range tests {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			name := tc.file + "-" + v.String() + ".json"
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got, err := tc.encode(v)
				require.NoError(t, err)
				var pretty bytes.Buffer
				require.NoError(t, json.Indent(&pretty, got, "", "  "))
				pretty.WriteByte('\n')
				path := filepath.Join("testdata", "golden", name)
				if *update {
					require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err)
				if !bytes.Equal(pretty.Bytes(), want) {
					t.Errorf("encoding of %s:\n%s\nwant\n%s", name, pretty.Bytes(), want)
				}
			})
		}
	}
}

// TestGoldenDecoding reads every golden file back: decoding what this package
// wrote gives the model it was written from (less 1.0's "final").
func TestGoldenDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want a2a.Event
	}{
		{"statusupdate", goldenStatusUpdate()},
		{"artifactupdate", goldenArtifactUpdate()},
		{"task-event", goldenTask()},
		{"message-event", goldenMessage()},
	}
	for _, tc := range tests {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			name := tc.file + "-" + v.String() + ".json"
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
				require.NoError(t, err)
				got, err := a2a.Codec{}.DecodeEvent(b)
				require.NoError(t, err)
				want := tc.want
				if v == a2a.V10 {
					want = lossy(want, v)
				}
				require.Equal(t, want, got)
			})
		}
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", "parts-"+v.String()+".json"))
		require.NoError(t, err)
		m, err := a2a.Codec{}.DecodeMessage(b)
		require.NoError(t, err)
		want := goldenParts()
		lossyParts(want, v)
		require.Len(t, m.Parts, len(want))
		for i := range want {
			if !m.Parts[i].Equal(&want[i]) {
				t.Errorf("%s part %d = %+v; want %+v", v, i, m.Parts[i], want[i])
			}
		}
	}
}
