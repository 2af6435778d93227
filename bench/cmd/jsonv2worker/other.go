//go:build !goexperiment.jsonv2

package main

import (
	"fmt"
	"os"
)

// main refuses to run: the worker exists to time encoding/json/v2, which
// only a GOEXPERIMENT=jsonv2 build has.
func main() {
	fmt.Fprintln(os.Stderr, "jsonv2worker: build with GOEXPERIMENT=jsonv2")
	os.Exit(2)
}
