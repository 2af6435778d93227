package main

import (
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

// newAgent builds the agent cfg describes: the demo package's served
// agent, narrowed to the versions, bindings and abilities asked for.
func newAgent(cfg config) *a2atest.Agent {
	opts := []a2atest.Option{
		a2atest.WithVersions(cfg.versions...),
		a2atest.WithBindings(cfg.bindings...),
	}
	if cfg.noStream {
		opts = append(opts, a2atest.WithoutStreaming())
	}
	return demo.ServedAgent(cfg.mode, cfg.delay, opts...)
}
