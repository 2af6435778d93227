package sse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readCapture returns the bytes of a capture in testdata.
func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err, "reading capture %s", name)
	require.NotEmpty(t, b, "capture %s is empty", name)
	return b
}

func TestCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		types      []string // Type of each event
		prefix     string   // every Data starts with it
		ids        []string // ID of each event; nil when the server sends none
		minBiggest int      // length of the biggest Data is at least this
	}{
		{
			file:   "a2a-go-stream-new.txt",
			types:  []string{"", "", "", "", ""},
			prefix: `{"jsonrpc":"2.0","id":"1faab19d-2b15-47fc-bd65-fee8174ca091","result":{"kind":`,
			ids: []string{
				"90f8ffa1-6827-48f3-93cf-a43130aa5ab5",
				"dce17faf-45b1-40f0-b161-dc3b19009741",
				"0b1f42c2-ccbf-4d60-8994-78cccc2e61f8",
				"77d68207-d679-4aa7-822d-70ae6fa1decc",
				"82baa5a4-df8d-422c-b4ee-8b18ed02703b",
			},
		},
		{
			file:   "a2a-go-stream-big.txt",
			types:  []string{"", "", "", "", ""},
			prefix: `{"jsonrpc":"2.0","id":"10842252-6684-4a76-8aec-ec4c0661f564","result":{"kind":`,
			ids: []string{
				"95443c35-0a57-4f2c-9982-cb4c2b59701b",
				"71f761e4-1869-4c8b-b1ea-6358d0ce9595",
				"83189b22-aa06-4481-b3de-59924d26f426",
				"c64c89d9-d9c5-441b-a2c1-0d8652b07ab2",
				"47069212-a43c-4c35-8f28-ad7baca9a127",
			},
			minBiggest: 100_000,
		},
		{
			file:   "js-1.3.0-stream-new.txt",
			types:  []string{"", "", "", "", ""},
			prefix: `{"jsonrpc":"2.0","id":"f053e275-08b0-48f4-a19d-be11bfb1e333","result":{`,
		},
		{
			file:   "js-1.3.0-compat03-resubscribe-input-required.txt",
			types:  []string{"", "", "", "", ""},
			prefix: `{"id":"resub-1","jsonrpc":"2.0","result":{"kind":`,
		},
		{
			file:   "js-0.3.14-resubscribe-unknown.txt",
			types:  []string{"error"},
			prefix: `{"jsonrpc":"2.0","id":"resub-1","error":{"code":-32001,`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			body := readCapture(t, tt.file)
			evs, err, _ := decodeAll(bytes.NewReader(body), 0)
			if got := errorClass(err); got != "EOF" {
				t.Fatalf("final error: got %v; want %v", got, "EOF")
			}
			if len(evs) != len(tt.types) {
				t.Fatalf("events: got %v; want %v", len(evs), len(tt.types))
			}
			biggest := 0
			for i, ev := range evs {
				if ev.Type != tt.types[i] {
					t.Errorf("event %d: Type: got %q; want %q", i, ev.Type, tt.types[i])
				}
				if !strings.HasPrefix(ev.Data, tt.prefix) {
					t.Errorf("event %d: Data: got %.80q…; want prefix %q", i, ev.Data, tt.prefix)
				}
				if !json.Valid([]byte(ev.Data)) {
					t.Errorf("event %d: json.Valid(Data): got %v; want %v", i, false, true)
				}
				wantID := ""
				if tt.ids != nil {
					wantID = tt.ids[i]
				}
				if ev.ID != wantID {
					t.Errorf("event %d: ID: got %q; want %q", i, ev.ID, wantID)
				}
				if ev.Retry != 0 {
					t.Errorf("event %d: Retry: got %v; want %v", i, ev.Retry, 0)
				}
				biggest = max(biggest, len(ev.Data))
			}
			if biggest < tt.minBiggest {
				t.Fatalf("biggest Data: got %v bytes; want at least %v", biggest, tt.minBiggest)
			}

			// The same events must come out however the body is cut, and
			// with the CRLF line endings of other servers.
			for _, way := range readWays() {
				got, err, _ := decodeAll(way.wrap(body, nil), 0)
				if !sameRecs(got, evs) || errorClass(err) != "EOF" {
					t.Fatalf("%s: got %v, %v; want %v, EOF", way.name, got, err, evs)
				}
			}
			for _, k := range splitOffsets(len(body)) {
				got, err, _ := decodeAll(splitAt(body, k, nil), 0)
				if !sameRecs(got, evs) || errorClass(err) != "EOF" {
					t.Fatalf("split at %d: got %v, %v; want %v, EOF", k, got, err, evs)
				}
			}
			crlf := bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n"))
			if got, err, _ := decodeAll(bytes.NewReader(crlf), 0); !sameRecs(got, evs) || errorClass(err) != "EOF" {
				t.Fatalf("CRLF: got %v, %v; want %v, EOF", got, err, evs)
			}
		})
	}
}
