package stream_test

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/stream"
)

// forgetfulShare is a push.Share that stores nothing: every record is
// gone as soon as it is put, and no ring comes.
type forgetfulShare struct{}

func (forgetfulShare) PutRegistration(context.Context, string, push.SharedRegistration, time.Duration) (bool, error) {
	return true, nil
}

func (forgetfulShare) GetRegistration(context.Context, string) (push.SharedRegistration, bool, error) {
	return push.SharedRegistration{}, false, nil
}

func (forgetfulShare) AdoptRegistration(context.Context, string, string, string, time.Duration) (push.SharedRegistration, bool, error) {
	return push.SharedRegistration{}, false, nil
}

func (forgetfulShare) DeleteRegistration(context.Context, string, string) error { return nil }

func (forgetfulShare) RefreshRegistrations(context.Context, string, time.Duration, ...string) ([]string, error) {
	return nil, nil
}

func (forgetfulShare) RingRegistration(context.Context, string) error { return nil }

func (forgetfulShare) ListenRings(ctx context.Context) (push.Rings, error) { return silentRings{}, nil }

// silentRings never rings: its Next waits for its context.
type silentRings struct{}

func (silentRings) Next(ctx context.Context) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

func (silentRings) Close() error { return nil }

// pushLiveCheckpoint runs a stream of w with WithPush(recv) against an
// agent of slowScript that drops it after its first chunk: the stream
// registers a push config, and is rung at 10 s for the second chunk. It
// returns the agent and the bytes of the checkpoint taken after that
// chunk, which name the stream's registration; the stream is closed.
func pushLiveCheckpoint(t *testing.T, w wire, recv *push.Receiver) (*a2atest.Agent, []byte) {
	t.Helper()
	agent := w.agent(a2atest.WithPushClient(a2atest.NewClient(recv)), a2atest.WithPush(), slowScript(),
		a2atest.WithFaults(a2atest.CutAfterEvents(3)))
	t.Cleanup(agent.Close)
	c := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour))
	s := c.Send(context.Background(), hello())
	defer s.Close()
	for s.Next() {
		if s.Task().Artifacts != nil && s.Task().Artifacts[0].Text() == "one two " {
			b, err := s.Checkpoint().MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, 1, countRequests(agent, "PushNotificationConfig"))
			return agent, b
		}
	}
	t.Fatalf("the stream ended before its second chunk: %v", s.Err())
	return nil, nil
}

// withoutPush returns b, a format 4 checkpoint, without its push
// registration: in format 4 (an empty ID), or, with format 3, as the
// format-3 writer wrote it (no field at all).
func withoutPush(t *testing.T, b []byte, id string, format byte) []byte {
	t.Helper()
	body := b[:len(b)-4]
	tail := append([]byte{byte(len(id))}, id...)
	require.Equal(t, tail, body[len(body)-len(tail):], "the checkpoint ends with its push registration")
	body = append([]byte(nil), body[:len(body)-len(tail)]...)
	if format == 4 {
		body = append(body, 0)
	}
	body[5] = format
	return binary.BigEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
}

// A stream resumed with WithPush from a checkpoint that names no push
// registration (format 3, which has none, and format 4 without one), or
// one it cannot adopt (its receiver has no Share; the registration's
// record is gone), goes on as a stream that never had one: it registers a
// new push config at its first poll wait, once, is rung by its
// notifications, and hands over the rest of the task, with no error.
func TestResumeWithoutAnAdoptableRegistrationRegistersAnew(t *testing.T) {
	w := pushWires()[0]
	for _, c := range []struct {
		name   string
		shared bool // the receivers share a store
		bytes  func(t *testing.T, b []byte, id string) []byte
	}{
		{"format 3", false, func(t *testing.T, b []byte, id string) []byte { return withoutPush(t, b, id, 3) }},
		{"format 4 without a registration", false, func(t *testing.T, b []byte, id string) []byte { return withoutPush(t, b, id, 4) }},
		{"a registration, and no share", false, func(_ *testing.T, b []byte, _ string) []byte { return b }},
		{"a registration whose record is gone", true, func(_ *testing.T, b []byte, _ string) []byte { return b }},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var opts []push.Option
				if c.shared {
					opts = append(opts, push.WithShare(forgetfulShare{}))
				}
				recv, err := push.NewReceiver(pushBase, opts...)
				require.NoError(t, err)
				agent, saved := pushLiveCheckpoint(t, w, recv)
				id := string(saved[len(saved)-4-36 : len(saved)-4]) // the last field: the registration's ID
				cp, err := stream.ParseCheckpoint(c.bytes(t, saved, id))
				require.NoError(t, err)
				start := time.Now()
				client := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour))
				s := client.Resume(context.Background(), cp)
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, "one two three", s.Task().Artifacts[0].Text())
				require.Equal(t, 10*time.Second, time.Since(start), "the notification of the ending rang the stream")
				require.Equal(t, 2, countRequests(agent, "PushNotificationConfig"), "a new push config, once")
			})
		})
	}
}

// deletingShare is a forgetfulShare that records the registrations whose
// records were deleted.
type deletingShare struct {
	forgetfulShare
	mu      sync.Mutex
	deleted []string
}

func (s *deletingShare) DeleteRegistration(_ context.Context, id, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleted = append(s.deleted, id)
	return nil
}

func (s *deletingShare) deletes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deleted)
}

// A stream followed by push notifications ends its hold on its
// registration as its task stands: a stream closed (or cut by its
// context) while the task runs leaves the registration's shared record
// for a stream resumed from its checkpoint to adopt; one whose task ended
// deletes it.
func TestStreamEndDeletesTheSharedRecordOnlyOfAnEndedTask(t *testing.T) {
	w := pushWires()[0]
	for _, c := range []struct {
		name    string
		stop    func(s *stream.Stream, cancel context.CancelFunc) // nil: the stream runs to the task's end
		deleted bool
	}{
		{"the task completed", nil, true},
		{"closed while the task runs", func(s *stream.Stream, _ context.CancelFunc) { s.Close() }, false},
		{"its context ended while the task runs", func(_ *stream.Stream, cancel context.CancelFunc) { cancel() }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				share := &deletingShare{}
				recv, err := push.NewReceiver(pushBase, push.WithShare(share))
				require.NoError(t, err)
				agent := w.agent(a2atest.WithPushClient(a2atest.NewClient(recv)), a2atest.WithPush(), slowScript(),
					a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				t.Cleanup(agent.Close)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				client := reconnectingClient(t, w, agent, stream.WithPush(recv), stream.WithPushPollInterval(time.Hour))
				s := client.Send(ctx, hello())
				var id string
				for s.Next() {
					if id == "" {
						id = checkpointRegistration(t, s.Checkpoint())
					}
					if c.stop != nil && id != "" {
						c.stop(s, cancel)
					}
				}
				require.NotEmpty(t, id, "the stream's checkpoint named its registration")
				if c.deleted {
					require.NoError(t, s.Err())
					require.Equal(t, []string{id}, share.deletes())
					return
				}
				require.Empty(t, share.deletes(), "the record is left for a resumed stream to adopt")
			})
		})
	}
}

// checkpointRegistration returns the push registration cp names: the
// last field of its binary form (an ID of 36 bytes, or none).
func checkpointRegistration(t *testing.T, cp *stream.Checkpoint) string {
	t.Helper()
	b, err := cp.MarshalBinary()
	require.NoError(t, err)
	body := b[:len(b)-4]
	if n := len(body); n > 37 && body[n-37] == 36 {
		return string(body[n-36:])
	}
	return ""
}
