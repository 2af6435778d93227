package demo

import (
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// Mode is what the served demo agent (go run ./examples/agent) does with
// each new message.
type Mode string

// The served demo agent's modes.
const (
	ModeAnswer Mode = "answer" // a streamed answer, completed
	ModeAsk    Mode = "ask"    // half an answer, a question, the other half
	ModeFail   Mode = "fail"   // working, then failed with a structured failure
	ModeCut    Mode = "cut"    // answer, with each task's first stream cut mid-answer
)

// Modes lists every Mode, in the order the command's usage names them.
func Modes() []Mode { return []Mode{ModeAnswer, ModeAsk, ModeFail, ModeCut} }

// The fail mode's structured failure, in the tRPC-Agent-Go convention
// that terminal.ReadStructured reads.
const (
	FailReason = "upstream API timed out"
	FailType   = "upstream_error"
	FailCode   = "UPSTREAM_TIMEOUT"
)

// ServedAgent builds the agent that examples/agent serves in mode m, with
// delay before each streamed word; opts come after its own (the versions,
// bindings and abilities to serve). Its resubscribes send a task snapshot
// first, then the live events, as @a2a-js/sdk does and A2A 1.0 requires.
func ServedAgent(m Mode, delay time.Duration, opts ...a2atest.Option) *a2atest.Agent {
	all := []a2atest.Option{
		a2atest.WithName("a2astream demo agent (" + string(m) + ")"),
		a2atest.WithStyle(a2atest.SnapshotFirst),
		a2atest.WithScript(servedScript(m, delay)...),
	}
	if m == ModeCut {
		all = append(all, a2atest.WithNewTaskFault(a2atest.CutAfterEvents(CutAfter)))
	}
	return a2atest.NewAgent(append(all, opts...)...)
}

// servedScript is what every new task of mode m does, with delay before
// each streamed word.
func servedScript(m Mode, delay time.Duration) []a2atest.Step {
	steps := []a2atest.Step{a2atest.Working("Planning your trip…")}
	switch m {
	case ModeAsk:
		steps = append(steps, Words("answer", true, PlanStart, delay)...)
		steps = append(steps, a2atest.Pause(delay), a2atest.AskInput(Question))
		steps = append(steps, Words("answer", false, PlanEnd, delay)...)
	case ModeFail:
		steps = append(steps, Words("answer", true, "Checking train times… ", delay)...)
		return append(steps,
			a2atest.Pause(delay),
			a2atest.Finish(a2a.StateFailed, FailReason).WithMetadata(map[string]any{
				"object_type":   "error",
				"error_type":    FailType,
				"error_code":    FailCode,
				"error_message": FailReason,
				"task_state":    string(a2a.StateFailed),
			}),
		)
	default: // answer, cut
		steps = append(steps, Words("answer", true, PlanStart+PlanEnd, delay)...)
	}
	return append(steps,
		a2atest.Pause(delay),
		a2atest.Finish(a2a.StateCompleted, "Have a good trip!"),
	)
}
