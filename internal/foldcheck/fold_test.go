package foldcheck_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/foldcheck"
)

// recorder is a testing.TB that records the first failure instead of
// failing the test. Its FailNow panics with stopped, which fails recovers:
// the way to stop a check without a goroutine.
type recorder struct {
	testing.TB
	failure string
}

type stopped struct{}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	if r.failure == "" {
		r.failure = fmt.Sprintf(format, args...)
	}
}

func (r *recorder) FailNow() { panic(stopped{}) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.FailNow()
}

// failure runs check against a recorder and returns its first failure, ""
// if it passed.
func failure(t *testing.T, check func(tb testing.TB)) string {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stopped); !ok {
					panic(p)
				}
			}
		}()
		check(r)
	}()
	return r.failure
}

func msg(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

func chunk(id, text string, appends bool) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: "t-1", Append: appends, Artifact: a2a.Artifact{ID: id, Parts: []a2a.Part{{Text: text}}}}
}

func status(state a2a.TaskState, m *a2a.Message) *a2a.StatusUpdate {
	return &a2a.StatusUpdate{TaskID: "t-1", Status: a2a.TaskStatus{State: state, Message: m}}
}

func revision(m *a2a.Message, extends bool, added ...a2a.Part) *a2a.MessageRevision {
	return &a2a.MessageRevision{Message: m, Extends: extends, Added: added}
}

func TestFoldRecordsWhatTheApplicationSees(t *testing.T) {
	for _, mode := range []foldcheck.Mode{foldcheck.Strict, foldcheck.Loose} {
		f := &foldcheck.Fold{Mode: mode}
		evs := []a2a.Event{
			status(a2a.StateWorking, msg("m-1", "Hel")),
			chunk("a1", "one ", false),
			revision(msg("m-1", "Hello"), true, a2a.Part{Text: "lo"}),
			chunk("a1", "two", true),
			msg("m-2", "done"),
			status(a2a.StateCompleted, nil),
		}
		for _, ev := range evs {
			f.Apply(t, ev)
		}
		f.RequireArtifacts(t, []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "one "}, {Text: "two"}}}}, "the end")
		f.RequireArtifactsAnyOrder(t, f.Task.Artifacts, "the end")
		f.RequireMessagesOnce(t)
		require.Equal(t, evs, f.Events)
		require.Equal(t, "one two", f.Text("a1"))
		require.Equal(t, -1, f.Find("a2"))
		require.Equal(t, []string{"m-1", "m-2"}, f.Messages)
		require.Equal(t, []a2a.TaskState{a2a.StateWorking, a2a.StateCompleted}, f.States)
		require.Equal(t, map[string]string{"m-1": "Hello", "m-2": "done"}, f.Shown)
	}
}

// Each check fails on the sequence that breaks it, with its message; the
// checks on messages fail in Strict mode only.
func TestFoldChecks(t *testing.T) {
	tests := []struct {
		name   string
		evs    []a2a.Event
		strict string // the failure in Strict mode
		loose  string // the failure in Loose mode
	}{
		{"append to an unknown artifact", []a2a.Event{chunk("a1", "x", true)},
			"append to artifact a1, which the application never saw", "append to artifact a1, which the application never saw"},
		{"a Task yielded", []a2a.Event{&a2a.Task{ID: "t-1"}},
			"yielded *a2a.Task; only deltas may be yielded", "yielded *a2a.Task; only deltas may be yielded"},
		{"a revision of a message never delivered", []a2a.Event{revision(msg("m-1", "x"), false)},
			"a revision of message m-1, never delivered", ""},
		{"a revision that shows the same text", []a2a.Event{msg("m-1", "x"), revision(msg("m-1", "x"), false)},
			"a revision of m-1 that shows the same text again", ""},
		{"an Added that does not continue the text", []a2a.Event{msg("m-1", "ab"), revision(msg("m-1", "abc"), true, a2a.Part{Text: "d"})},
			"an extending revision's Added continues the text shown", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for mode, want := range map[foldcheck.Mode]string{foldcheck.Strict: tt.strict, foldcheck.Loose: tt.loose} {
				got := failure(t, func(tb testing.TB) {
					f := &foldcheck.Fold{Mode: mode}
					for _, ev := range tt.evs {
						f.Apply(tb, ev)
					}
				})
				if want == "" {
					require.Empty(t, got, "mode %d", mode)
				} else {
					require.Contains(t, got, want, "mode %d", mode)
				}
			}
		})
	}
}

func TestFoldRequireMessagesOnce(t *testing.T) {
	twice := []a2a.Event{msg("m-1", "x"), status(a2a.StateWorking, msg("m-1", "y"))}
	for mode, want := range map[foldcheck.Mode]string{foldcheck.Strict: "message m-1 delivered twice", foldcheck.Loose: ""} {
		got := failure(t, func(tb testing.TB) {
			f := &foldcheck.Fold{Mode: mode}
			for _, ev := range twice {
				f.Apply(tb, ev)
			}
			f.RequireMessagesOnce(tb)
		})
		if want == "" {
			require.Empty(t, got, "mode %d", mode)
		} else {
			require.Contains(t, got, want, "mode %d", mode)
		}
	}
}

func TestFoldRequireArtifacts(t *testing.T) {
	f := &foldcheck.Fold{}
	f.Apply(t, chunk("a1", "x", false))
	f.Apply(t, chunk("a2", "y", false))
	a1, a2 := f.Task.Artifacts[0], f.Task.Artifacts[1]
	tests := []struct {
		name  string
		check func(tb testing.TB)
		want  string
	}{
		{"in order", func(tb testing.TB) { f.RequireArtifacts(tb, []a2a.Artifact{a1, a2}, "now") }, ""},
		{"another order", func(tb testing.TB) { f.RequireArtifacts(tb, []a2a.Artifact{a2, a1}, "now") }, "now: artifact 0 (a2)"},
		{"one missing", func(tb testing.TB) { f.RequireArtifacts(tb, []a2a.Artifact{a1}, "now") }, "now: artifact count"},
		{"other parts", func(tb testing.TB) {
			f.RequireArtifacts(tb, []a2a.Artifact{a1, {ID: "a2", Parts: []a2a.Part{{Text: "z"}}}}, "now")
		}, "now: artifact 1 (a2)"},
		{"any order", func(tb testing.TB) { f.RequireArtifactsAnyOrder(tb, []a2a.Artifact{a2, a1}, "end") }, ""},
		{"any order, one missing", func(tb testing.TB) { f.RequireArtifactsAnyOrder(tb, []a2a.Artifact{a2}, "end") }, "end: artifact count"},
		{"any order, another ID", func(tb testing.TB) {
			f.RequireArtifactsAnyOrder(tb, []a2a.Artifact{a1, {ID: "a3"}}, "end")
		}, "end: artifact a3 missing"},
		{"any order, other parts", func(tb testing.TB) {
			f.RequireArtifactsAnyOrder(tb, []a2a.Artifact{{ID: "a2", Parts: []a2a.Part{{Text: "z"}}}, a1}, "end")
		}, "end: artifact a2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failure(t, tt.check)
			if tt.want == "" {
				require.Empty(t, got)
			} else {
				require.Contains(t, got, tt.want)
			}
		})
	}
}
