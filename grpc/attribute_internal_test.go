package a2agrpc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2/hpack"
)

// headerFrames returns the frames a client writes to open stream id with
// the header fields hf, encoded by enc (whose dynamic table carries over
// from block to block, as a connection's does), the block cut into frames
// of at most size bytes: a HEADERS frame, padded and with a priority when
// asked, then CONTINUATION frames.
func headerFrames(enc *hpack.Encoder, buf *bytes.Buffer, id uint32, hf []hpack.HeaderField, size int, padded, priority bool) []byte {
	buf.Reset()
	for _, f := range hf {
		_ = enc.WriteField(f)
	}
	block := append([]byte(nil), buf.Bytes()...)
	var out []byte
	first := true
	for first || len(block) > 0 {
		n := min(len(block), size)
		frag := block[:n]
		block = block[n:]
		var payload []byte
		typ, flags := byte(frameContinuation), byte(0)
		if first {
			typ = frameHeaders
			if padded {
				flags |= flagPadded
				payload = append(payload, 3)
			}
			if priority {
				flags |= flagPriority
				payload = append(payload, 0, 0, 0, 0, 16)
			}
		}
		payload = append(payload, frag...)
		if first && padded {
			payload = append(payload, 0, 0, 0)
		}
		if len(block) == 0 {
			flags |= flagEndHeaders
		}
		l := len(payload)
		out = append(out, byte(l>>16), byte(l>>8), byte(l), typ, flags, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
		out = append(out, payload...)
		first = false
	}
	return out
}

type binding struct {
	stream uint32
	values string // joined with ","
}

// TestBindTakesTheOneCallUnderWay: a header block binds its stream to the
// one call under way among the numbers it names; to none when it names none
// or two (a sixth stranger round's H2: an interceptor forwarded a number of
// its own, and other calls' streams were bound to the call it named).
func TestBindTakesTheOneCallUnderWay(t *testing.T) {
	var calls callTable
	idA, a := calls.add()
	idB, _ := calls.add()
	A, B := fmt.Sprint(idA), fmt.Sprint(idB)
	for i, c := range []struct {
		values []string
		want   *callActivity
	}{
		{[]string{A}, a},
		{[]string{A, "1"}, a},
		{[]string{"1", A}, a},
		{[]string{"x", A, A}, a},
		{[]string{A, B}, nil},
		{[]string{"1", "999"}, nil},
		{[]string{"-1", "", "18446744073709551616"}, nil},
	} {
		tab := &streamTable{}
		calls.bind(c.values, tab, uint32(2*i+1))
		require.Equal(t, c.want, tab.get(uint32(2*i+1)), "%q", c.values)
	}
}

// TestOpenedBindsStreamsToCalls: the writes' scan finds the call each
// header block names and the stream it opens, whatever the writes'
// boundaries, through the preface, SETTINGS, DATA and PING frames between,
// padded and prioritised HEADERS, blocks cut into CONTINUATION frames,
// and fields HPACK sends as indexes into its dynamic table (the same call
// named again on a new stream, as gRPC does when it sends a call again), and
// every number a block holds.
func TestOpenedBindsStreamsToCalls(t *testing.T) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	fields := func(call string) []hpack.HeaderField {
		return []hpack.HeaderField{
			{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
			{Name: ":path", Value: "/lf.a2a.v1.A2AService/SendStreamingMessage"},
			{Name: ":authority", Value: "127.0.0.1"}, {Name: "content-type", Value: "application/grpc"},
			{Name: "authorization", Value: "Bearer s3cret"}, {Name: callKey, Value: call},
		}
	}
	wire := []byte(clientPreface)
	wire = append(wire, frame(0x4, 6)...) // SETTINGS
	wire = append(wire, headerFrames(enc, &buf, 1, fields("1"), 1<<14, false, false)...)
	wire = append(wire, frame(0x0, 40)...) // DATA
	wire = append(wire, headerFrames(enc, &buf, 3, fields("2"), 7, true, true)...)
	wire = append(wire, frame(0x6, 8)...) // PING
	wire = append(wire, headerFrames(enc, &buf, 5, fields("1"), 5, false, true)...)
	wire = append(wire, headerFrames(enc, &buf, 7, fields("")[:5], 1<<14, true, false)...) // no call named
	wire = append(wire, headerFrames(enc, &buf, 9, fields("3"), 3, false, false)...)
	// Two numbers (an interceptor added its own): both are told.
	wire = append(wire, headerFrames(enc, &buf, 11, append(fields("4"), hpack.HeaderField{Name: callKey, Value: "1"}), 1<<14, false, false)...)
	wire = append(wire, headerFrames(enc, &buf, 13, fields("5"), 1<<14, false, false)...)
	want := []binding{{1, "1"}, {3, "2"}, {5, "1"}, {9, "3"}, {11, "4,1"}, {13, "5"}}

	for _, step := range []int{1, 2, 9, 10, 31, len(wire)} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			var got []binding
			o := newOpened(func(stream uint32, values []string) { got = append(got, binding{stream, strings.Join(values, ",")}) })
			for p := wire; len(p) > 0; {
				n := min(step, len(p))
				o.scan(p[:n])
				p = p[n:]
			}
			require.False(t, o.lost)
			require.Equal(t, want, got)
		})
	}
}

// TestOpenedStopsWhenLost: writes that are not a client's HTTP/2 (no
// preface), or a header block HPACK cannot decode, stop the scan for good:
// no stream is bound after it, as the dynamic table can no longer be known,
// and the calls fall back to the Transport's activity.
func TestOpenedStopsWhenLost(t *testing.T) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	good := headerFrames(enc, &buf, 1, []hpack.HeaderField{{Name: callKey, Value: "1"}}, 100, false, false)
	bad := []byte{0, 0, 1, frameHeaders, flagEndHeaders, 0, 0, 0, 3, 0xff} // an index past every table
	for name, wire := range map[string][]byte{
		"no preface": append([]byte("GET / HTTP/1.1\r\n\r\n"), good...),
		"bad block":  append(append([]byte(clientPreface), bad...), good...),
	} {
		t.Run(name, func(t *testing.T) {
			var got []binding
			o := newOpened(func(stream uint32, values []string) { got = append(got, binding{stream, strings.Join(values, ",")}) })
			o.scan(wire)
			require.True(t, o.lost)
			require.Empty(t, got)
		})
	}
}

// TestFramesNoteOnlyTheirCall: the frames a connection reads are noted in
// the activity of the call their stream is bound to, and in no other: a
// busy stream does not keep a silent one alive, and frames of a stream no
// call is bound to (one the client never opened, or whose call ended) keep
// none alive (a fifth stranger round's G2 and G3).
func TestFramesNoteOnlyTheirCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls callTable
		tab := &streamTable{}
		idA, a := calls.add()
		idB, b := calls.add()
		calls.bind([]string{fmt.Sprint(idA)}, tab, 1)
		calls.bind([]string{fmt.Sprint(idB)}, tab, 3)
		calls.bind([]string{"99"}, tab, 5) // no such call
		require.True(t, a.bound.Load())
		require.True(t, b.bound.Load())
		f := frames{tab: tab}
		onStream := func(typ byte, id uint32, n int) []byte {
			b := frame(typ, n)
			b[5], b[6], b[7], b[8] = byte(id>>24), byte(id>>16), byte(id>>8), byte(id)
			return b
		}
		<-time.After(time.Minute) // the bubble's clock
		f.scan(onStream(frameData, 1, 100))
		require.Equal(t, time.Duration(0), a.quiet())
		require.Equal(t, time.Minute, b.quiet())
		<-time.After(time.Minute)
		f.scan(onStream(frameData, 5, 100))       // not bound
		f.scan(onStream(frameHeaders, 7, 10))     // never opened
		f.scan(onStream(0x6, 3, 8))               // a PING carries no call, whatever its stream
		f.scan(onStream(frameData, 1|1<<31, 100)) // the reserved bit is not the stream's
		require.Equal(t, time.Duration(0), a.quiet())
		require.Equal(t, 2*time.Minute, b.quiet())
		calls.remove(idA)
		require.Nil(t, tab.get(1), "an ended call's stream is forgotten")
		require.Equal(t, b, tab.get(3))
		<-time.After(time.Minute)
		// Its stream's next frame may still be noted in the ended call's
		// activity, which no timer reads; in no other.
		f.scan(onStream(frameData, 1, 100))
		require.Equal(t, 3*time.Minute, b.quiet())
		g := frames{tab: tab} // a reader that never saw stream 1
		g.scan(onStream(frameData, 1, 100))
		require.Nil(t, g.cur)
	})
}

// FuzzOpenedWritesInPieces: whatever bytes a connection writes, cut
// anywhere, the writes' scan never panics, and binds the same streams to
// the same calls as when it reads them whole.
func FuzzOpenedWritesInPieces(f *testing.F) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	seed := append([]byte(clientPreface), headerFrames(enc, &buf, 1, []hpack.HeaderField{{Name: callKey, Value: "1"}}, 4, true, true)...)
	f.Add(seed, uint16(3), uint16(30))
	f.Add([]byte(clientPreface), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, wire []byte, cut1, cut2 uint16) {
		whole := func() (got []binding) {
			o := newOpened(func(stream uint32, values []string) { got = append(got, binding{stream, strings.Join(values, ",")}) })
			o.scan(wire)
			return got
		}()
		i, j := int(cut1)%(len(wire)+1), int(cut2)%(len(wire)+1)
		if i > j {
			i, j = j, i
		}
		var got []binding
		o := newOpened(func(stream uint32, values []string) { got = append(got, binding{stream, strings.Join(values, ",")}) })
		o.scan(wire[:i])
		o.scan(wire[i:j])
		o.scan(wire[j:])
		require.Equal(t, whole, got)
	})
}
