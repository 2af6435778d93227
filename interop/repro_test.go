package interop_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/interop/proxy"
)

// Regression tests for library defects the matrix found against real
// servers. Each was a failing reproduction first; the comments say what
// went wrong and which matrix cells showed it.

func peerNamed(t *testing.T, name string) *peer {
	t.Helper()
	for _, def := range peerDefs {
		if def.name == name {
			p := startPeer(t, def)
			if p == nil {
				t.Fatal(errNotStarted)
			}
			return p
		}
	}
	t.Fatalf("no peer %q", name)
	return nil
}

// collect drains a stream and returns the events the application saw.
func collect(ctx context.Context, t *testing.T, p *peer, text string, plan []proxy.Fault) ([]a2a.Event, *a2a.Task, error) {
	t.Helper()
	var prompts []string
	c := newClient(t, newProxy(t, p, plan), p, &prompts)
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, text))
	defer s.Close()
	var evs []a2a.Event
	for s.Next() {
		evs = append(evs, s.Event())
	}
	return evs, s.Task(), s.Err()
}

// Fixed: after a drop, the status message of a snapshot (or get-task) task is
// yielded as a stand-alone *a2a.Message event, and the StatusUpdate that
// follows carries no message; uncut, the same message arrives inside the
// StatusUpdate and no Message event is yielded. js-0.3.14 here; the same on
// both js-1.3.0 dialects, for failed, rejected, auth-required and
// input-required (TestMatrix/js-*/{failed,rejected,auth-required,
// input-required}/{cut-*,stall}).
func TestRegressionStatusMessageStaysInTheStatusAfterSnapshot(t *testing.T) {
	t.Parallel()
	p := peerNamed(t, "js-0.3.14")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// Cut right before the failed status: the resubscribe's Task snapshot
	// (state failed, history holding the status message) closes the gap.
	evs, _, err := collect(ctx, t, p, "this one will fail", []proxy.Fault{cut(3, 0)})
	if errKind(err) != "failed" {
		t.Fatalf("err = %v", err)
	}
	var last *a2a.StatusUpdate
	for _, ev := range evs {
		t.Log(describe(ev))
		switch ev := ev.(type) {
		case *a2a.Message:
			t.Errorf("the status message %q was yielded as a Message event", ev.Text())
		case *a2a.StatusUpdate:
			last = ev
		}
	}
	if last == nil || last.Status.Message == nil || last.Status.Message.Text() != "upstream API timed out" {
		t.Errorf("the final StatusUpdate does not carry the status message: %+v", last)
	}
}

// Fixed: a2a-go resends nothing on resubscribe and does not even send
// headers until its agent writes again. Here the agent writes one chunk and
// then waits (for a cancel); the chunk was lost in the cut, and the silent
// resubscribe used to burn the retry budget on idle timeouts while tasks/get
// had the chunk. A silent subscription now falls back to get-task, which
// delivers the chunk (TestMatrix/a2a-go-0.3.3/canceled/{cut-before-last,
// cut-mid-event,stall,cut-twice}).
func TestRegressionSilentLiveOnlyResubscribeRecoversOutput(t *testing.T) {
	t.Parallel()
	p := peerNamed(t, "a2a-go-0.3.3")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var prompts []string
	c := newClient(t, newProxy(t, p, []proxy.Fault{cut(2, 40)}), p, &prompts)
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "cancel me while I run"))
	defer s.Close()

	var taskID string
	for s.Next() {
		t.Log(describe(s.Event()))
		if u, ok := s.Event().(*a2a.ArtifactUpdate); ok {
			_, _ = c.Cancel(ctx, u.TaskID)
			break
		}
		if taskID == "" && s.Task() != nil {
			taskID = s.Task().ID
		}
	}
	if server, err := c.GetTask(ctx, taskID); err == nil {
		t.Logf("server's task: state %s, artifacts %v", server.Status.State, view(server.Artifacts))
	}
	if s.Err() != nil || s.Task() == nil || len(s.Task().Artifacts) == 0 {
		t.Fatalf("the chunk written before the agent went quiet never reached the application (stream ended with %v)", s.Err())
	}
}

// Documented behaviour: a chunked artifact whose chunks all fell into a
// live-only gap is announced when get-task recovers it, after artifacts the
// application already has (a delta cannot move an artifact), so its position
// differs from the server's while its parts are the server's exactly
// (TestMatrix/a2a-go-0.3.3/slow/stall).
func TestArtifactHealedAfterAGapKeepsItsParts(t *testing.T) {
	t.Parallel()
	p := peerNamed(t, "a2a-go-0.3.3")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, task, err := collect(ctx, t, p, "stream a story, slow", []proxy.Fault{{Action: proxy.Stall, AfterEvents: 2}})
	if err != nil {
		t.Fatal(err)
	}
	got := view(task.Artifacts)
	sortArtifacts(got)
	want := slices.Clone(story)
	sortArtifacts(want)
	if !equalArtifacts(got, want) {
		t.Fatalf("artifacts %v, want the server's %v (compared per artifact)", got, want)
	}
}
