// Package decodebench is what the decoders suite of a2abench and its
// GOEXPERIMENT=jsonv2 worker share: the events they decode, the decode
// floor's small structs (the throughput suite's floor decodes into them
// too), the contenders both processes run, the loop that times one of them,
// and the line protocol between the suite and the worker.
package decodebench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/wire"
)

// Event is one SSE event's data as the throughput suite's server sends it.
type Event struct {
	Name   string
	V      a2a.Version
	Data   []byte // the JSON-RPC response: the data line without "data: "
	Result []byte // the response's result member alone
	TaskID string
	Text   string // the artifact's text; empty for a status update
}

// reqID is the request ID the events echo, as the driver sends it.
const reqID = `"00000000-0000-4000-8000-000000000000"`

// Events returns the events every contender decodes: the throughput suite's
// artifact-update chunk in 0.3 (the a2a-go capture shape) and 1.0 (the
// js-1.3.0 shape), and a working status update with an agent message in
// each.
func Events() []Event {
	t := wire.NewTask(7)
	art := wire.UUID('a', 0)
	text := string(wire.ChunkText(nil, 1234))
	var out []Event
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		w := &wire.Writer{V: v.String(), ReqID: []byte(reqID)}
		w.Artifact(t, art, text, true, false)
		out = append(out, event("artifact-update "+v.String(), v, w.Buf, t.ID, text))
		w.Buf = nil
		w.Status(t, "working", wire.UUID('m', 0), "working on it", false)
		out = append(out, event("status-update "+v.String(), v, w.Buf, t.ID, ""))
	}
	return out
}

// event cuts the data line out of one rendered SSE event.
func event(name string, v a2a.Version, sse []byte, taskID, text string) Event {
	s := string(sse)
	i := strings.Index(s, "data: ")
	data := strings.TrimSpace(s[i+len("data: "):])
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(data), &env); err != nil {
		panic(fmt.Sprintf("decodebench: the rendered %s does not decode: %v", name, err)) // a bug in package wire
	}
	return Event{Name: name, V: v, Data: []byte(data), Result: env.Result, TaskID: taskID, Text: text}
}

// Floor03 is the decode floor's struct for a 0.3 event.
type Floor03 struct {
	ID     string `json:"id"`
	Result struct {
		Kind     string `json:"kind"`
		TaskID   string `json:"taskId"`
		Artifact struct {
			ArtifactID string `json:"artifactId"`
			Parts      []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"artifact"`
	} `json:"result"`
}

// Floor10 is the decode floor's struct for a 1.0 event.
type Floor10 struct {
	ID     string `json:"id"`
	Result struct {
		ArtifactUpdate *struct {
			TaskID   string `json:"taskId"`
			Artifact struct {
				ArtifactID string `json:"artifactId"`
				Parts      []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifact"`
		} `json:"artifactUpdate"`
	} `json:"result"`
}

// An Unmarshal is one library's json.Unmarshal.
type Unmarshal func(data []byte, v any) error

// IntoFloor returns a run that decodes ev's data with unmarshal into the
// floor's struct of ev's version and checks what it read: the request ID,
// and for an artifact update its task and text. A status update is skipped
// by the 1.0 floor struct, as the throughput suite's floor skips it.
func IntoFloor(unmarshal Unmarshal) func(Event) func() error {
	return func(ev Event) func() error {
		wantID, _ := strconv.Unquote(reqID)
		if ev.V == a2a.V03 {
			return func() error {
				var f Floor03
				if err := unmarshal(ev.Data, &f); err != nil {
					return err
				}
				if f.ID != wantID || f.Result.TaskID != ev.TaskID {
					return fmt.Errorf("read id %q, task %q", f.ID, f.Result.TaskID)
				}
				if ev.Text != "" && (len(f.Result.Artifact.Parts) != 1 || f.Result.Artifact.Parts[0].Text != ev.Text) {
					return fmt.Errorf("read parts %+v", f.Result.Artifact.Parts)
				}
				return nil
			}
		}
		return func() error {
			var f Floor10
			if err := unmarshal(ev.Data, &f); err != nil {
				return err
			}
			if f.ID != wantID {
				return fmt.Errorf("read id %q", f.ID)
			}
			if ev.Text != "" {
				u := f.Result.ArtifactUpdate
				if u == nil || u.TaskID != ev.TaskID || len(u.Artifact.Parts) != 1 || u.Artifact.Parts[0].Text != ev.Text {
					return fmt.Errorf("read artifact update %+v", u)
				}
			}
			return nil
		}
	}
}

// Frame is the JSON-RPC response around one stream result, read as a
// binding of one's own reads it with a2a's public API: in two steps, the
// envelope by encoding/json with its result kept raw, then the result by
// a2a.Codec.DecodeEvent, which is encoding/json into a2a's model. A member
// written twice counts as encoding/json counts it: the last one. (The
// driver's frame, internal/jsonrpc.Response, is not bench's to import, and
// its path is DecodeResult's.)
type Frame struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *a2a.RPCError   `json:"error"`
}

// Decode decodes data, one response holding one stream result, into f and
// returns the result decoded by c. f's members are reset first; the
// buffer of its raw result is kept from one call to the next, as a binding
// keeps one for its stream (the event shares no memory with it). The error
// wraps a2a.ErrUnknownResult when the frame decoded but holds none of the
// four results (none at all included: its member absent or null), which
// the caller may judge by the frame's other members; any other error means
// that data did not decode.
func (f *Frame) Decode(c a2a.Codec, data []byte) (a2a.Event, error) {
	*f = Frame{Result: f.Result[:0]}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("decodebench: decoding a frame: %w", err)
	}
	if len(f.Result) == 0 {
		return nil, fmt.Errorf("%w: the frame holds no result", a2a.ErrUnknownResult)
	}
	return c.DecodeEvent(f.Result)
}

// DecodeFrame returns a run of Frame.Decode, the path of a binding of
// one's own that frames each result, reading the frame and the result by
// encoding/json: one Frame for the stream, each event's response read into
// it. The driver does not take this path: its JSON-RPC decoder scans the
// envelope itself and decodes the result with a2a.EventDecoder.Decode.
func DecodeFrame(ev Event) func() error {
	c := a2a.Codec{Version: ev.V, Binding: a2a.BindingJSONRPC}
	var f Frame
	return func() error {
		e, err := f.Decode(c, ev.Data)
		if err != nil {
			return err
		}
		if string(f.ID) != reqID || f.Error != nil {
			return fmt.Errorf("read id %s, error %v", f.ID, f.Error)
		}
		return checkEvent(ev, e)
	}
}

// DecodeResult returns a run of a2a.EventDecoder.Decode on the response's
// result member alone: the path of a binding without an envelope.
func DecodeResult(ev Event) func() error {
	dec := a2a.NewEventDecoder(a2a.Codec{Version: ev.V, Binding: a2a.BindingJSONRPC})
	return func() error {
		e, err := dec.Decode(ev.Result)
		if err != nil {
			return err
		}
		return checkEvent(ev, e)
	}
}

// checkEvent checks an event a2a decoded from ev.
func checkEvent(ev Event, e a2a.Event) error {
	switch e := e.(type) {
	case *a2a.ArtifactUpdate:
		if ev.Text == "" || e.TaskID != ev.TaskID || len(e.Artifact.Parts) != 1 {
			return fmt.Errorf("read %+v", e)
		}
		if p := &e.Artifact.Parts[0]; !p.IsText() || p.Text != ev.Text {
			return fmt.Errorf("read part %+v", e.Artifact.Parts[0])
		}
		return nil
	case *a2a.StatusUpdate:
		if ev.Text != "" || e.TaskID != ev.TaskID {
			return fmt.Errorf("read %+v", e)
		}
		return nil
	}
	return fmt.Errorf("read a %T", e)
}

// Result is what one timed loop cost per event.
type Result struct {
	Ns, Allocs, Bytes float64
}

// Time runs run n times after a collection and returns its cost per call.
// A panic in run is returned as an error.
func Time(run func() error, n int) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	if err := run(); err != nil { // the check, untimed
		return Result{}, err
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	for range n {
		if err := run(); err != nil {
			return Result{}, err
		}
	}
	wall := time.Since(t0)
	runtime.ReadMemStats(&m1)
	fn := float64(n)
	return Result{
		Ns:     float64(wall.Nanoseconds()) / fn,
		Allocs: float64(m1.Mallocs-m0.Mallocs) / fn,
		Bytes:  float64(m1.TotalAlloc-m0.TotalAlloc) / fn,
	}, nil
}

// Contender is one decoder of the suite.
type Contender struct {
	Name    string
	Prepare func(Event) func() error
}

// Serve is the worker's side of the line protocol: for each line
// "contender event n" read from r it times contender cs[contender] on
// Events()[event] n times and writes "ns allocs bytes", or "error text", as
// one line to w. It returns at the end of r.
func Serve(r io.Reader, w io.Writer, cs []Contender) error {
	evs := Events()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var ci, ei, n int
		if _, err := fmt.Sscan(sc.Text(), &ci, &ei, &n); err != nil || ci < 0 || ci >= len(cs) || ei < 0 || ei >= len(evs) || n <= 0 {
			fmt.Fprintf(w, "error bad request %q\n", sc.Text())
			continue
		}
		res, err := Time(cs[ci].Prepare(evs[ei]), n)
		if err != nil {
			fmt.Fprintf(w, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Fprintf(w, "%g %g %g\n", res.Ns, res.Allocs, res.Bytes)
	}
	return sc.Err()
}

// Ask is the suite's side of the line protocol: it asks the worker behind
// w and r to time contender ci on event ei n times.
func Ask(w io.Writer, r *bufio.Reader, ci, ei, n int) (Result, error) {
	if _, err := fmt.Fprintf(w, "%d %d %d\n", ci, ei, n); err != nil {
		return Result{}, err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return Result{}, fmt.Errorf("the worker: %w", err)
	}
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		return Result{}, errors.New(msg)
	}
	var res Result
	if _, err := fmt.Sscan(line, &res.Ns, &res.Allocs, &res.Bytes); err != nil {
		return Result{}, fmt.Errorf("the worker answered %q", line)
	}
	return res, nil
}
