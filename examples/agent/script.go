package main

import (
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

// The fail mode's structured failure, in the tRPC-Agent-Go convention
// that terminal.ReadStructured reads.
const (
	failReason = "upstream API timed out"
	failType   = "upstream_error"
	failCode   = "UPSTREAM_TIMEOUT"
)

// newAgent builds the agent cfg describes. Its resubscribes send a task
// snapshot first, then the live events, as @a2a-js/sdk does and A2A 1.0
// requires.
func newAgent(cfg config) *a2atest.Agent {
	opts := []a2atest.Option{
		a2atest.WithName("a2astream demo agent (" + string(cfg.mode) + ")"),
		a2atest.WithVersions(cfg.versions...),
		a2atest.WithBindings(cfg.bindings...),
		a2atest.WithStyle(a2atest.SnapshotFirst),
		a2atest.WithScript(script(cfg.mode, cfg.delay)...),
	}
	if cfg.mode == modeCut {
		opts = append(opts, a2atest.WithNewTaskFault(a2atest.CutAfterEvents(demo.CutAfter)))
	}
	if cfg.noStream {
		opts = append(opts, a2atest.WithoutStreaming())
	}
	return a2atest.NewAgent(opts...)
}

// script is what every new task of mode m does, with delay before each
// streamed word.
func script(m mode, delay time.Duration) []a2atest.Step {
	steps := []a2atest.Step{a2atest.Working("Planning your trip…")}
	switch m {
	case modeAsk:
		steps = append(steps, demo.Words("answer", true, demo.PlanStart, delay)...)
		steps = append(steps, a2atest.Pause(delay), a2atest.AskInput(demo.Question))
		steps = append(steps, demo.Words("answer", false, demo.PlanEnd, delay)...)
	case modeFail:
		steps = append(steps, demo.Words("answer", true, "Checking train times… ", delay)...)
		return append(steps,
			a2atest.Pause(delay),
			a2atest.Finish(a2a.StateFailed, failReason).WithMetadata(map[string]any{
				"object_type":   "error",
				"error_type":    failType,
				"error_code":    failCode,
				"error_message": failReason,
				"task_state":    string(a2a.StateFailed),
			}),
		)
	default: // answer, cut
		steps = append(steps, demo.Words("answer", true, demo.PlanStart+demo.PlanEnd, delay)...)
	}
	return append(steps,
		a2atest.Pause(delay),
		a2atest.Finish(a2a.StateCompleted, "Have a good trip!"),
	)
}
