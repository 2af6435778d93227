package relay_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// edgeTexts are texts whose entries' data sweep the sizes around 32 KiB and
// 64 KiB, byte by byte, each ending in multi-byte UTF-8 (2, 3 and 4 bytes)
// so that some character straddles each cut, with short entries between
// that move the page's cuts over every offset.
func edgeTexts(t *testing.T) []string {
	t.Helper()
	overhead := len(textEntry(1, "").Data)
	var texts []string
	for _, target := range []int{32 << 10, 64 << 10} {
		for d := -48; d <= 48; d++ {
			n := target + d - overhead
			var b strings.Builder
			for i := 0; b.Len()+10 <= n; i++ {
				b.WriteString([]string{"é€😀a", "€😀aé", "😀aé€", "aé€😀"}[(i+d+64)%4])
			}
			b.WriteString(strings.Repeat("a", n-b.Len()))
			text := b.String()
			require.Len(t, textEntry(1, text).Data, target+d)
			texts = append(texts, text)
			if d%3 == 0 {
				texts = append(texts, strings.Repeat("b", (d+48)%7)+"ü")
			}
		}
	}
	return texts
}

// requireEdgeEvents checks that the events are the log's entries 1..n and
// the end, byte for byte.
func requireEdgeEvents(t *testing.T, w *writer, texts []string, evs []rawEvent) {
	t.Helper()
	require.Len(t, evs, len(texts)+1)
	for i, text := range texts {
		e := evs[i]
		want := textEntry(uint64(i+1), text)
		require.Equal(t, w.id(uint64(i+1)), e.ID, "event %d", i)
		require.Equal(t, relay.EventMessage, e.Name, "event %d", i)
		if e.Data != string(want.Data) {
			var got relay.MessageData
			jerr := json.Unmarshal([]byte(e.Data), &got)
			require.Failf(t, "an event's data was cut or merged", "event %d (%d bytes): got %d bytes (json error %v)",
				i, len(want.Data), len(e.Data), jerr)
		}
	}
	require.Equal(t, relay.EventEnd, evs[len(texts)].Name)
}

// Stranger BC: pages written 32 KiB at a time never cut, merge or mangle an
// event, whatever its size around 32 and 64 KiB, multi-byte characters at
// the cuts included.
func TestPageEdgesAt32KiBKeepEveryEventWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		texts := edgeTexts(t)
		for i := 0; i < len(texts); i += 20 {
			w.texts(texts[i:min(i+20, len(texts))]...)
		}
		w.end()
		for _, page := range []int{1, 3, 16, 64} {
			l, stop := servePipes(newHandler(t, mem, pathKey, relay.WithPageSize(page)), nil)
			c := getSSE(t, l, "/s/a/events", "")
			rd := newRawReader(t, c.resp.Body)
			evs := rd.rest()
			require.NoError(t, rd.err, "page size %d", page)
			require.NoError(t, c.conn.Close())
			stop()
			requireEdgeEvents(t, w, texts, evs)
		}
	})
}

// Stranger BC: a slow reader of big entries, with a keep-alive far shorter
// than the time each event takes it, never gets a keep-alive comment inside
// an event, nor inside an event's data.
func TestPageEdgesKeepAlivesNeverInsideAnEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		texts := edgeTexts(t)[:60]
		l := pipeRelay(t, mem, nil, relay.WithPageSize(8),
			relay.WithKeepAlive(time.Second), relay.WithWriteTimeout(time.Hour))
		c := getSSE(t, l, "/s/a/events", "")
		type read struct {
			body []byte
			err  error
		}
		got := make(chan read, 1)
		go func() {
			b, err := readPaced(c.resp.Body, 5000, time.Second)
			got <- read{b, err}
		}()
		idle := time.NewTicker(3 * time.Second) // idle between commits: a keep-alive or more
		defer idle.Stop()
		for i := 0; i < len(texts); i += 7 {
			<-idle.C
			w.texts(texts[i:min(i+7, len(texts))]...)
		}
		<-idle.C
		w.end()
		r := <-got
		require.NoError(t, r.err)
		require.NoError(t, c.conn.Close())
		rd := newRawReader(t, bytes.NewReader(r.body))
		requireEdgeEvents(t, w, texts, rd.whole())
		require.Positive(t, rd.comments, "keep-alives were sent")
		require.Zero(t, rd.commentsInside, "a keep-alive came inside an event")
	})
}
