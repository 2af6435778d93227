package a2agrpc_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	a2apbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	a2apbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
)

// Every recorded result converts to what the library's own JSON decoder
// makes of the same result's proto-JSON (the JSON HTTP+JSON carries, read by
// a2a.Codec over BindingGRPC), and every recorded request is what the
// converter builds from the same message or task ID.

func TestCapturesOf10ConvertAsTheJSONDecoderReadsThem(t *testing.T) {
	codec := a2a.Codec{Version: a2a.V10, Binding: a2a.BindingGRPC}
	counts := map[string]int{}
	for _, c := range readCaptures(t, "v1.0", kinds10, nil) {
		var got, want any
		var err error
		switch m := c.msg.(type) {
		case *a2apbv1.StreamResponse:
			got, err = convert.EventOf10(m)
			require.NoError(t, err, c.where)
			want, err = codec.DecodeEvent(c.json)
		case *a2apbv1.SendMessageResponse:
			got, err = convert.SendResultOf10(m)
			require.NoError(t, err, c.where)
			want, err = codec.DecodeEvent(c.json)
		case *a2apbv1.Task:
			got, err = convert.TaskOf10(m)
			require.NoError(t, err, c.where)
			want, err = codec.DecodeTask(c.json)
		case *a2apbv1.SendMessageRequest:
			requireSameSend10(t, c.where, m)
			counts["send"]++
			continue
		case *a2apbv1.SubscribeToTaskRequest:
			r, err := convert.SubscribeRequest10(m.GetId(), "")
			require.NoError(t, err, c.where)
			require.True(t, proto.Equal(m, r), c.where)
			counts["subscribe"]++
			continue
		default:
			t.Fatalf("%s: no conversion for %T", c.where, c.msg)
		}
		require.NoError(t, err, c.where)
		require.Equal(t, normalize(want), normalize(got), c.where)
		counts["result"]++
	}
	require.GreaterOrEqual(t, counts["result"], 24)
	require.NotZero(t, counts["send"])
	require.NotZero(t, counts["subscribe"])
}

func TestCapturesOf03ConvertAsTheJSONDecoderReadsThem(t *testing.T) {
	codec := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingGRPC}
	counts := map[string]int{}
	var final int
	for _, c := range readCaptures(t, "v0.3", kinds03, renameMessageParts) {
		var got, want any
		var err error
		switch m := c.msg.(type) {
		case *a2apbv03.StreamResponse:
			got, err = convert.EventOf03(m)
			require.NoError(t, err, c.where)
			if u, ok := got.(*a2a.StatusUpdate); ok && u.Final {
				final++
			}
			want, err = codec.DecodeEvent(c.json)
		case *a2apbv03.SendMessageResponse:
			got, err = convert.SendResultOf03(m)
			require.NoError(t, err, c.where)
			want, err = codec.DecodeEvent(c.json)
		case *a2apbv03.Task:
			got, err = convert.TaskOf03(m)
			require.NoError(t, err, c.where)
			want, err = codec.DecodeTask(c.json)
		case *a2apbv03.SendMessageRequest:
			msg, err := convert.MessageOf03(m.GetRequest())
			require.NoError(t, err, c.where)
			r, err := convert.SendRequest03(msg, false)
			require.NoError(t, err, c.where)
			require.True(t, proto.Equal(m, r), "%s: got %v; want %v", c.where, r, m)
			counts["send"]++
			continue
		case *a2apbv03.TaskSubscriptionRequest:
			id, err := convert.TaskIDOfName(m.GetName())
			require.NoError(t, err, c.where)
			r, err := convert.SubscribeRequest03(id)
			require.NoError(t, err, c.where)
			require.True(t, proto.Equal(m, r), c.where)
			counts["subscribe"]++
			continue
		default:
			t.Fatalf("%s: no conversion for %T", c.where, c.msg)
		}
		require.NoError(t, err, c.where)
		require.Equal(t, normalize(want), normalize(got), c.where)
		counts["result"]++
	}
	require.GreaterOrEqual(t, counts["result"], 35)
	require.NotZero(t, counts["send"])
	require.NotZero(t, counts["subscribe"])
	require.NotZero(t, final, "status updates with final")
}

// requireSameSend10 checks that the recorded request is what SendRequest10
// builds from its message. The recording client sent a text part's media
// type, which the converter carries as it is.
func requireSameSend10(t *testing.T, where string, m *a2apbv1.SendMessageRequest) {
	t.Helper()
	msg, err := convert.MessageOf10(m.GetMessage())
	require.NoError(t, err, where)
	r, err := convert.SendRequest10(msg, m.GetTenant(), false)
	require.NoError(t, err, where)
	require.True(t, proto.Equal(m, r), "%s: got %v; want %v", where, r, m)
}

// A few results by hand: the first events of the 1.0 and 0.3 streams.
func TestCapturedEventsByHand(t *testing.T) {
	caps10 := readCaptures(t, "v1.0", kinds10, nil)
	ev := firstOf[*a2apbv1.StreamResponse](t, caps10, "js-1.3.0-7-message.jsonl")
	got, err := convert.EventOf10(ev)
	require.NoError(t, err)
	require.IsType(t, &a2a.Message{}, got)
	m := got.(*a2a.Message)
	require.Equal(t, a2a.RoleAgent, m.Role)
	require.Equal(t, "direct reply: message please", m.Text())
	require.Equal(t, "text/plain", m.Parts[0].MediaType)
	require.Nil(t, m.Parts[0].Metadata, "an empty Struct reads as no metadata")

	caps03 := readCaptures(t, "v0.3", kinds03, renameMessageParts)
	tk := firstOf[*a2apbv03.Task](t, caps03, "a2a-go-0.3.3-6-cancel-running.jsonl")
	task, err := convert.TaskOf03(tk)
	require.NoError(t, err)
	require.Equal(t, a2a.StateCanceled, task.Status.State, "TASK_STATE_CANCELLED")
	require.NotEmpty(t, task.ID)
	require.False(t, task.Status.Timestamp.IsZero())
	require.Equal(t, time.UTC, task.Status.Timestamp.Location())
}

func firstOf[T proto.Message](t *testing.T, caps []captured, file string) T {
	t.Helper()
	for _, c := range caps {
		if m, ok := c.msg.(T); ok && len(c.where) > len(file) && c.where[:len(file)] == file {
			return m
		}
	}
	var zero T
	t.Fatalf("no %T in %s", zero, file)
	return zero
}

// normalize makes the data of parts comparable as JSON values, whatever
// their spacing and key order: the JSON decoder keeps data as sent, the
// converter writes it anew.
func normalize(v any) any {
	switch x := v.(type) {
	case *a2a.Task:
		for i := range x.Artifacts {
			normalizeParts(x.Artifacts[i].Parts)
		}
		for i := range x.History {
			normalizeParts(x.History[i].Parts)
		}
		if x.Status.Message != nil {
			normalizeParts(x.Status.Message.Parts)
		}
	case *a2a.Message:
		normalizeParts(x.Parts)
	case *a2a.StatusUpdate:
		if x.Status.Message != nil {
			normalizeParts(x.Status.Message.Parts)
		}
	case *a2a.ArtifactUpdate:
		normalizeParts(x.Artifact.Parts)
	}
	return v
}

func normalizeParts(ps []a2a.Part) {
	for i := range ps {
		if ps[i].Data == nil {
			continue
		}
		var v any
		if json.Unmarshal(ps[i].Data, &v) == nil {
			ps[i].Data, _ = json.Marshal(v)
		}
	}
}
