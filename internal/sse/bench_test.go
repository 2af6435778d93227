package sse

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
)

// benchStream returns about size bytes of A2A streaming events of some
// 200 bytes each, the shape real servers send (an id line, one data line
// holding a JSON-RPC response), with the given line ending, and the number
// of events in it.
func benchStream(size int, eol string) ([]byte, int) {
	payloads := []string{
		`{"jsonrpc":"2.0","id":"req-1","result":{"kind":"status-update","taskId":"t-01a2012b","contextId":"c-01a2012b","final":false,"status":{"state":"working","timestamp":"2026-11-22T02:52:43.1Z"}}}`,
		`{"jsonrpc":"2.0","id":"req-1","result":{"kind":"artifact-update","taskId":"t-01a2012b","contextId":"c-01a2012b","append":true,"artifact":{"artifactId":"a-1","parts":[{"kind":"text","text":"chunk"}]}}}`,
	}
	var b bytes.Buffer
	n := 0
	for b.Len() < size {
		b.WriteString("id: " + strconv.Itoa(n) + eol)
		b.WriteString("data: " + payloads[n%len(payloads)] + eol + eol)
		n++
	}
	return b.Bytes(), n
}

func BenchmarkDecode(b *testing.B) {
	for _, tt := range []struct {
		name string
		eol  string
	}{
		{"LF", "\n"},
		{"CRLF", "\r\n"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			stream, events := benchStream(5<<20, tt.eol)
			r := bytes.NewReader(stream)
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(stream)
				d := NewDecoder(r, 0)
				n := 0
				for {
					_, err := d.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatalf("Next: got error %v; want nil", err)
					}
					n++
				}
				if n != events {
					b.Fatalf("events: got %v; want %v", n, events)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}

// networkReader hands out its body in reads of at most chunk bytes, the
// way an HTTP response body does.
type networkReader struct {
	body  []byte
	chunk int
}

func (r *networkReader) Read(p []byte) (int, error) {
	if len(r.body) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.chunk, len(r.body))
	copy(p, r.body[:n])
	r.body = r.body[n:]
	return n, nil
}

func BenchmarkDecodeBigEvent(b *testing.B) {
	for _, mib := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			payload := strings.Repeat("x", mib<<20)
			body := []byte("id: 1\ndata: " + payload + "\n\n")
			limit := len(body) + 1<<20 // 16 MiB of data is over the default
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				d := NewDecoder(&networkReader{body: body, chunk: 16 << 10}, limit)
				ev, err := d.Next()
				if err != nil {
					b.Fatalf("Next: got error %v; want nil", err)
				}
				if n := dataLen(ev); n != len(payload) {
					b.Fatalf("len(data): got %v; want %v", n, len(payload))
				}
			}
		})
	}
}

// BenchmarkDecodeBigEventPeakHeap decodes one event of 16, 17, 24 and 64 MiB,
// read in 16 KiB pieces, and reports the most heap it held while doing so,
// garbage not yet collected included, as a multiple of the event's size
// (peak/size): the chunks' free room, and the first one's growth, are what
// make it more than 1. The heap is sampled at every read, starting from a
// collected heap.
func BenchmarkDecodeBigEventPeakHeap(b *testing.B) {
	for _, mib := range []int{16, 17, 24, 64} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			payload := strings.Repeat("x", mib<<20)
			body := []byte("data: " + payload + "\n\n")
			var peak uint64
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				r := &heapSampler{r: &networkReader{body: body, chunk: 16 << 10}}
				r.base = r.heap()
				b.StartTimer()
				ev, err := NewDecoder(r, len(body)).Next()
				if err != nil {
					b.Fatalf("Next: got error %v; want nil", err)
				}
				if n := dataLen(ev); n != len(payload) {
					b.Fatalf("len(data): got %v; want %v", n, len(payload))
				}
				r.sample()
				peak = max(peak, r.peak)
			}
			b.ReportMetric(float64(peak)/float64(len(payload)), "peak/size")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}

// heapSampler samples the heap's objects, live and dead, at every read of
// r, and keeps the most seen above base.
type heapSampler struct {
	r          io.Reader
	base, peak uint64
	s          [1]metrics.Sample
}

func (h *heapSampler) heap() uint64 {
	h.s[0].Name = "/memory/classes/heap/objects:bytes"
	metrics.Read(h.s[:])
	return h.s[0].Value.Uint64()
}

func (h *heapSampler) sample() {
	if v := h.heap(); v > h.base {
		h.peak = max(h.peak, v-h.base)
	}
}

func (h *heapSampler) Read(p []byte) (int, error) {
	h.sample()
	return h.r.Read(p)
}
