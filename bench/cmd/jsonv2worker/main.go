//go:build goexperiment.jsonv2

// Command jsonv2worker times encoding/json/v2 for a2abench's decoders
// suite. The standard library has that package only in a build with
// GOEXPERIMENT=jsonv2, which changes every package of the build (it also
// reimplements encoding/json on top of v2), so it runs as a process of its
// own: a2abench builds it with that setting, starts it, and asks it for one
// timed loop at a time over stdin and stdout (see decodebench.Serve), so
// that its rounds interleave with the other contenders'.
package main

import (
	"encoding/json"
	jsonv2 "encoding/json/v2"
	"fmt"
	"os"

	"github.com/a2astream/a2astream/bench/internal/decodebench"
)

func main() {
	// The order is the protocol: a2abench asks by index.
	cs := []decodebench.Contender{
		{Name: "encoding/json/v2", Prepare: decodebench.IntoFloor(func(b []byte, v any) error { return jsonv2.Unmarshal(b, v) })},
		{Name: "encoding/json", Prepare: decodebench.IntoFloor(json.Unmarshal)},
		{Name: "a2a.Codec.DecodeEvent of a frame's raw result", Prepare: decodebench.DecodeFrame},
	}
	if err := decodebench.Serve(os.Stdin, os.Stdout, cs); err != nil {
		fmt.Fprintln(os.Stderr, "jsonv2worker:", err)
		os.Exit(1)
	}
}
