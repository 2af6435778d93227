package relay_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
)

// No entry grows with the answer, the person's answer included: a long
// one is split into answered entries of at most the chunk size, the later
// ones adding to the first, and the agent gets it whole.
func TestALongAnswerIsSplitLikeAnyOtherText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}, drive: []relay.DriveOption{relay.WithChunkSize(64), relay.WithoutTrim()}})
		rd := r.connect("")
		in, seen := untilInput(t, rd)
		answer := strings.Repeat("Paris, é ✓ ", 56<<10/14) // 56 KiB
		code, out := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": answer})
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, answer, out["text"])

		rest := rd.rest()
		require.NoError(t, r.wait())
		require.Equal(t, []string{answer}, followUps(r.agent), "the agent got the answer whole")
		var n int
		for _, e := range r.logEntries(0) {
			if e.Name != relay.EventAnswered {
				continue
			}
			var a relay.AnsweredData
			require.NoError(t, json.Unmarshal(e.Data, &a))
			require.LessOrEqual(t, len(a.Text), 64, "entry %d", e.Seq)
			require.Equal(t, n > 0, a.Append, "entry %d: the first opens the answer's pane, the others add to it", e.Seq)
			n++
		}
		require.GreaterOrEqual(t, n, 56<<10/64)
		sc := fold(t, append(seen, rest...))
		require.Nil(t, sc.Question)
		require.Equal(t, answer, sc.Pane("answer:"+itoa(in.Prompt)).Text())
	})
}

func TestLongAnswersAreCutAtRunes(t *testing.T) {
	for name, answer := range awkwardAnswers() {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("Your name?"),
					a2atest.Chunk("x", "thanks", false, true), a2atest.Finish(a2a.StateCompleted, "")))
				log, done := driveAgent(t, store, "a", agent, nil, relay.WithChunkSize(64))
				in := awaitInput(t, log)
				h := handlerAB(t, store)
				body := string(mustJSON(t, map[string]any{"prompt": in.Prompt, "text": answer, "epoch": log.Epoch()}))
				code, _, resp := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", body, map[string]string{"Idempotency-Key": "k"})
				require.Equal(t, http.StatusOK, code, "%.200s", resp)
				require.NoError(t, <-done)

				var texts []string
				var appends []bool
				for _, e := range allEntries(t, log) {
					if e.Name != relay.EventAnswered {
						continue
					}
					var a relay.AnsweredData
					require.NoError(t, json.Unmarshal(e.Data, &a))
					require.Equal(t, in.Prompt, a.Prompt)
					texts = append(texts, a.Text)
					appends = append(appends, a.Append)
				}
				requirePieces(t, texts, appends, 64, answer)
				require.LessOrEqual(t, len(texts), 2*((len(answer)+63)/64)+1, "far more pieces than the size needs")

				// A page that reads it all shows the whole answer; the agent got it whole.
				_, evs, _, ended := readAllEvents(t, a2atest.NewClient(h), "http://relay.test/s/a/events", "")
				require.True(t, ended)
				screen := foldRaw(t, evs)
				require.Equal(t, answer, screen.Pane(fmt.Sprintf("answer:%d", in.Prompt)).Text())
				got := ""
				for _, r := range agent.Requests() {
					if r.Message != nil && r.TaskID != "" {
						got = r.Message.Text()
					}
				}
				require.Equal(t, answer, got, "the agent's follow-up")
			})
		})
	}
}

// The agent's long multi-byte question and artifact text are cut at runes
// too: the question's text after the chunk size with an ellipsis, the
// artifact into appending pieces.
func TestLongMultiByteAgentTextIsCutAtRunes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		question := "q" + strings.Repeat("日本😀", 40)
		artifact := "a" + strings.Repeat("é😀日", 300)
		store := newMemoryStore(t)
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("x", artifact, false, true),
			a2atest.AskInput(question), a2atest.Finish(a2a.StateCompleted, "")))
		log, done := driveAgent(t, store, "a", agent, nil, relay.WithChunkSize(64))
		in := awaitInput(t, log)
		require.True(t, utf8.ValidString(in.Text), "%q", in.Text)
		require.LessOrEqual(t, len(in.Text), 64+len("…"), "%q", in.Text)
		require.True(t, strings.HasPrefix(question, strings.TrimSuffix(in.Text, "…")), "%q", in.Text)
		code, _, resp := serve(t, handlerAB(t, store), "POST", "http://relay.test/s/a/answer", "application/json",
			fmt.Sprintf(`{"prompt":%d,"text":"ok"}`, in.Prompt), map[string]string{"Idempotency-Key": "k"})
		require.Equal(t, 200, code, resp)
		require.NoError(t, <-done)

		var texts []string
		var appends []bool
		for _, e := range allEntries(t, log) {
			if e.Name == relay.EventArtifact {
				var a relay.ArtifactData
				require.NoError(t, json.Unmarshal(e.Data, &a))
				texts = append(texts, a.Text)
				appends = append(appends, a.Append)
			}
			if e.Name == relay.EventMessage {
				var m relay.MessageData
				require.NoError(t, json.Unmarshal(e.Data, &m))
				require.LessOrEqual(t, len(m.Text), 64)
				require.True(t, utf8.ValidString(m.Text), "%q", m.Text)
			}
		}
		requirePieces(t, texts, appends, 64, artifact)
	})
}

// awkwardAnswers are answers of awkward sizes for a chunk size of 64.
func awkwardAnswers() map[string]string {
	multi := "a" // a 1-byte head puts every 4-byte rune across a 64-byte boundary
	for len(multi) < 56<<10-8 {
		multi += "😀é日本"
	}
	return map[string]string{
		"56 KiB ASCII":                  strings.Repeat("abcdefgh", 56<<10/8),
		"56 KiB multi-byte":             multi,
		"exactly 64 bytes":              strings.Repeat("x", 64),
		"65 bytes":                      strings.Repeat("x", 65),
		"64 bytes ending in a rune":     "a" + strings.Repeat("日", 21),
		"63 bytes and an emoji":         strings.Repeat("x", 63) + "😀",
		"one byte":                      "y",
		"128 bytes of 4-byte runes":     strings.Repeat("😀", 32),
		"129 bytes, runes across edges": "z" + strings.Repeat("😀", 32),
	}
}

// requirePieces checks that the pieces of one pane's text are each at
// most size bytes, whole runes, the first replacing (or opening) and the
// others appending, and that they add up to want.
func requirePieces(t *testing.T, texts []string, appends []bool, size int, want string) {
	t.Helper()
	require.NotEmpty(t, texts)
	require.False(t, appends[0], "the first piece appends")
	for i, s := range texts {
		require.LessOrEqual(t, len(s), size, "piece %d of %d is %d bytes", i, len(texts), len(s))
		require.True(t, utf8.ValidString(s), "piece %d cuts a rune: %q", i, s)
		if i > 0 {
			require.True(t, appends[i], "piece %d does not append", i)
		}
	}
	require.Equal(t, want, strings.Join(texts, ""))
}
