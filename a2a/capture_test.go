package a2a_test

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// summaryOf writes a decoded stream in the notation of captures/SUMMARY.txt:
// T(state), S(state[,F]), A([+][L]), M, E([ev:]code).
func summaryOf(tb testing.TB, events []sseEvent) string {
	tb.Helper()
	var parts []string
	for _, sev := range events {
		env := decodeEnvelope(tb, sev.data)
		if env.Error != nil {
			prefix := ""
			if sev.typ == "error" {
				prefix = "ev:"
			}
			parts = append(parts, fmt.Sprintf("E(%s%d)", prefix, env.Error.Code))
			continue
		}
		ev, err := a2a.Codec{}.DecodeEvent(env.Result)
		require.NoErrorf(tb, err, "result %s", env.Result)
		switch x := ev.(type) {
		case *a2a.Task:
			parts = append(parts, fmt.Sprintf("T(%s)", x.Status.State))
		case *a2a.Message:
			parts = append(parts, "M")
		case *a2a.StatusUpdate:
			flag := ""
			if x.Final {
				flag = ",F"
			}
			parts = append(parts, fmt.Sprintf("S(%s%s)", x.Status.State, flag))
		case *a2a.ArtifactUpdate:
			flag := ""
			if x.Append {
				flag += "+"
			}
			if x.LastChunk {
				flag += "L"
			}
			parts = append(parts, fmt.Sprintf("A(%s)", flag))
		default:
			tb.Fatalf("DecodeEvent returned %T", ev)
		}
	}
	return strings.Join(parts, " ")
}

// summaryLines reads captures/SUMMARY.txt: capture name → event sequence.
func summaryLines(tb testing.TB) map[string]string {
	tb.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readCapture(tb, "SUMMARY.txt")))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		out[f[0]] = strings.Join(f[2:], " ")
	}
	require.NoError(tb, sc.Err())
	return out
}

func TestCaptureSequences(t *testing.T) {
	t.Parallel()
	summary := summaryLines(t)
	for _, name := range streamCaptures(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, ok := summary[name]
			require.Truef(t, ok, "capture %s is not in SUMMARY.txt", name)
			got := summaryOf(t, readSSE(t, readCapture(t, name+".txt")))
			if got != want {
				t.Errorf("event sequence = %v; want %v", got, want)
			}
		})
	}
}

// evDigest is what the field tests check of one event. For a task or a
// status update, msg/role/text describe the status message; for an artifact
// update, text is the artifact's text; for a message, the message itself.
// code is set instead for a JSON-RPC error event.
type evDigest struct {
	code      int
	task, ctx string
	artifact  string
	name      string
	msg       string
	role      a2a.Role
	text      string
	ts        string
	history   []a2a.Role
	artifacts int
}

func digestOf(tb testing.TB, ev a2a.Event) evDigest {
	tb.Helper()
	var d evDigest
	status := func(s a2a.TaskStatus) {
		if s.Message != nil {
			d.msg, d.role, d.text = s.Message.ID, s.Message.Role, s.Message.Text()
		}
		if !s.Timestamp.IsZero() {
			require.Equal(tb, time.UTC, s.Timestamp.Location(), "decoded timestamps are UTC")
			d.ts = s.Timestamp.Format(time.RFC3339Nano)
		}
	}
	switch x := ev.(type) {
	case *a2a.Task:
		d.task, d.ctx = x.ID, x.ContextID
		status(x.Status)
		for _, m := range x.History {
			d.history = append(d.history, m.Role)
		}
		d.artifacts = len(x.Artifacts)
	case *a2a.Message:
		d.task, d.ctx, d.msg, d.role, d.text = x.TaskID, x.ContextID, x.ID, x.Role, x.Text()
	case *a2a.StatusUpdate:
		d.task, d.ctx = x.TaskID, x.ContextID
		status(x.Status)
	case *a2a.ArtifactUpdate:
		d.task, d.ctx = x.TaskID, x.ContextID
		d.artifact, d.name, d.text = x.Artifact.ID, x.Artifact.Name, x.Artifact.Text()
	}
	return d
}

// wantDigests was written from the raw JSON of each capture, not from this
// package's output.
var wantDigests = []struct {
	name   string
	events []evDigest
}{
	{name: "a2a-go-resubscribe-running", events: []evDigest{
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", artifact: "01a2012b-9a71-7764-a7f7-28d5f2ef6cbb", name: "stream", text: "chunk-1 "},
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", artifact: "01a2012b-9a71-7764-a7f7-28d5f2ef6cbb", text: "chunk-2"},
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", msg: "01a2012b-9d92-7821-9226-d970a8530a0e", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:52:45.330535456Z"},
	}},
	{name: "a2a-go-stream-big", events: []evDigest{
		{task: "01a2012b-a96b-76db-b012-a7508d771122", ctx: "01a2012b-a96b-772f-b388-cdb9fb159e4d", history: []a2a.Role{a2a.RoleUser}},
		{task: "01a2012b-a96b-76db-b012-a7508d771122", ctx: "01a2012b-a96b-772f-b388-cdb9fb159e4d", msg: "01a2012b-aafc-78fd-9bbe-ba9528717c3c", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:52:48.764591864Z"},
		{task: "01a2012b-a96b-76db-b012-a7508d771122", ctx: "01a2012b-a96b-772f-b388-cdb9fb159e4d", artifact: "01a2012b-ac8c-7b92-8bdb-dd39087b4783", name: "stream", text: strings.Repeat("x", 100000)},
		{task: "01a2012b-a96b-76db-b012-a7508d771122", ctx: "01a2012b-a96b-772f-b388-cdb9fb159e4d", artifact: "01a2012b-ac8c-7b92-8bdb-dd39087b4783", text: "chunk-2"},
		{task: "01a2012b-a96b-76db-b012-a7508d771122", ctx: "01a2012b-a96b-772f-b388-cdb9fb159e4d", msg: "01a2012b-afae-748a-ab0a-26f837b420bc", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:52:49.966300231Z"},
	}},
	{name: "a2a-go-stream-executor-error", events: []evDigest{
		{task: "01a2012b-a614-744e-880a-19a0bf75cd89", ctx: "01a2012b-a614-7529-9df4-db06a7f73ef1", history: []a2a.Role{a2a.RoleUser}},
		{task: "01a2012b-a614-744e-880a-19a0bf75cd89", ctx: "01a2012b-a614-7529-9df4-db06a7f73ef1", msg: "01a2012b-a7a5-76be-a900-fe7f66014c7c", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:52:47.909444091Z"},
		{code: -32603},
	}},
	{name: "a2a-go-stream-message", events: []evDigest{
		{ctx: "01a2012b-a95f-7725-badb-20d5d542061e", msg: "01a2012b-a95f-7783-b6a0-08cdf1314fb8", role: a2a.RoleAgent, text: "direct reply: message please"},
	}},
	{name: "a2a-go-stream-new", events: []evDigest{
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", history: []a2a.Role{a2a.RoleUser}},
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", msg: "01a2012b-98e0-76dd-8f2f-b24337e26211", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:52:44.128482303Z"},
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", artifact: "01a2012b-9a71-7764-a7f7-28d5f2ef6cbb", name: "stream", text: "chunk-1 "},
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", artifact: "01a2012b-9a71-7764-a7f7-28d5f2ef6cbb", text: "chunk-2"},
		{task: "01a2012b-974f-761f-b805-9c1314c44506", ctx: "01a2012b-974f-76f9-9aea-fd8810f6e4b8", msg: "01a2012b-9d92-7821-9226-d970a8530a0e", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:52:45.330535456Z"},
	}},
	{name: "js-0.3.14-resubscribe-input-required", events: []evDigest{
		{task: "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", ctx: "715e173c-c368-49f4-bebb-6a8e7b55d174", msg: "c8e0c7f1-19fc-4a5c-bfb5-624e7d136cca", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:52:55.196Z", history: []a2a.Role{a2a.RoleUser, a2a.RoleAgent, a2a.RoleAgent}, artifacts: 1},
	}},
	{name: "js-0.3.14-stream-canceled", events: []evDigest{
		{task: "6e8f9a93-30cd-4a18-952b-c96c0117dc93", ctx: "59b72b3f-9d5a-4852-b063-2504a864debe", ts: "2026-11-22T02:53:01.154Z", history: []a2a.Role{a2a.RoleUser}},
		{task: "6e8f9a93-30cd-4a18-952b-c96c0117dc93", ctx: "59b72b3f-9d5a-4852-b063-2504a864debe", msg: "95097cd7-e328-4342-8e9c-6243dbd19f28", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:53:03.155Z"},
		{task: "6e8f9a93-30cd-4a18-952b-c96c0117dc93", ctx: "59b72b3f-9d5a-4852-b063-2504a864debe", ts: "2026-11-22T02:53:03.209Z"},
	}},
	{name: "js-0.3.14-stream-new", events: []evDigest{
		{task: "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", ctx: "715e173c-c368-49f4-bebb-6a8e7b55d174", ts: "2026-11-22T02:52:53.592Z", history: []a2a.Role{a2a.RoleUser}},
		{task: "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", ctx: "715e173c-c368-49f4-bebb-6a8e7b55d174", msg: "b4f49eb6-a538-4fcd-9e62-b6daba0376da", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:52:53.993Z"},
		{task: "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", ctx: "715e173c-c368-49f4-bebb-6a8e7b55d174", artifact: "a48129b5-454c-43ef-93e3-c48d0bcb2b58", name: "stream", text: "chunk-1 "},
		{task: "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", ctx: "715e173c-c368-49f4-bebb-6a8e7b55d174", artifact: "a48129b5-454c-43ef-93e3-c48d0bcb2b58", text: "chunk-2"},
		{task: "b3e066a0-55b8-4a2b-a362-b235fc9a1dce", ctx: "715e173c-c368-49f4-bebb-6a8e7b55d174", msg: "c8e0c7f1-19fc-4a5c-bfb5-624e7d136cca", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:52:55.196Z"},
	}},
	{name: "js-1.3.0-compat03-stream-followup", events: []evDigest{
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", msg: "c8f5d9bf-1351-4988-8d47-1d5ca8ce0888", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:53:13.796Z", history: []a2a.Role{a2a.RoleUser, a2a.RoleAgent, a2a.RoleAgent, a2a.RoleUser}, artifacts: 1},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", ts: "2026-11-22T02:53:13.887Z"},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", artifact: "e6693bc3-4cf5-4ca2-9948-fb0999632c2c", name: "result", text: "result for follow-up: more input"},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", msg: "f0a974c9-15b4-497d-89de-33b12a35c565", role: a2a.RoleAgent, text: "done", ts: "2026-11-22T02:53:14.688Z"},
	}},
	{name: "js-1.3.0-compat03-stream-new", events: []evDigest{
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", ts: "2026-11-22T02:53:12.192Z", history: []a2a.Role{a2a.RoleUser}},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", msg: "21c4e06a-58da-4625-a8a0-b495e70a44e6", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:53:12.593Z"},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", artifact: "5ea3272b-c35e-4652-b4fd-91d73f0c756a", name: "stream", text: "chunk-1 "},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", artifact: "5ea3272b-c35e-4652-b4fd-91d73f0c756a", text: "chunk-2"},
		{task: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ctx: "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3", msg: "c8f5d9bf-1351-4988-8d47-1d5ca8ce0888", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:53:13.796Z"},
	}},
	{name: "js-1.3.0-stream-fail", events: []evDigest{
		{task: "b21828b4-8293-4721-984c-ac472ac20740", ctx: "f6b95cb5-93aa-47ad-9897-2f4855efe1f2", ts: "2026-11-22T02:53:06.049Z", history: []a2a.Role{a2a.RoleUser}},
		{task: "b21828b4-8293-4721-984c-ac472ac20740", ctx: "f6b95cb5-93aa-47ad-9897-2f4855efe1f2", msg: "c7e5973e-965b-4318-a594-9f6632c00d1f", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:53:06.450Z"},
		{task: "b21828b4-8293-4721-984c-ac472ac20740", ctx: "f6b95cb5-93aa-47ad-9897-2f4855efe1f2", artifact: "17904559-bdbd-4d3d-8248-11e4dbce96ce", name: "stream", text: "chunk-1 "},
		{task: "b21828b4-8293-4721-984c-ac472ac20740", ctx: "f6b95cb5-93aa-47ad-9897-2f4855efe1f2", msg: "3d7ee30e-a6f5-4a69-88d1-f6a9192aacfb", role: a2a.RoleAgent, text: "scripted failure", ts: "2026-11-22T02:53:07.251Z"},
	}},
	{name: "js-1.3.0-stream-followup", events: []evDigest{
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "7b37dffc-af78-4808-84d2-5452e8166237", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:53:05.112Z", history: []a2a.Role{a2a.RoleUser, a2a.RoleAgent, a2a.RoleAgent, a2a.RoleUser}, artifacts: 1},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", ts: "2026-11-22T02:53:05.193Z"},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", artifact: "c6ab2f9e-f6c8-43da-916f-34f125ad2c03", name: "result", text: "result for follow-up: more input"},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "aa835777-a60e-4662-8390-10564620ef95", role: a2a.RoleAgent, text: "done", ts: "2026-11-22T02:53:05.994Z"},
	}},
	{name: "js-1.3.0-stream-new", events: []evDigest{
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", ts: "2026-11-22T02:53:03.507Z", history: []a2a.Role{a2a.RoleUser}},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "06325c56-f4d2-49c2-a8ed-1dddcfcdeb6d", role: a2a.RoleAgent, text: "working", ts: "2026-11-22T02:53:03.909Z"},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", artifact: "ee6201aa-c32c-4c5f-afae-b16d97c60692", name: "stream", text: "chunk-1 "},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", artifact: "ee6201aa-c32c-4c5f-afae-b16d97c60692", text: "chunk-2"},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "7b37dffc-af78-4808-84d2-5452e8166237", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:53:05.112Z"},
	}},
	{name: "js-1.3.0-subscribe-input-required", events: []evDigest{
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "7b37dffc-af78-4808-84d2-5452e8166237", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:53:05.112Z", history: []a2a.Role{a2a.RoleUser, a2a.RoleAgent, a2a.RoleAgent}, artifacts: 1},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "7b37dffc-af78-4808-84d2-5452e8166237", role: a2a.RoleAgent, text: "need more input", ts: "2026-11-22T02:53:05.112Z", history: []a2a.Role{a2a.RoleUser, a2a.RoleAgent, a2a.RoleAgent, a2a.RoleUser}, artifacts: 1},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", ts: "2026-11-22T02:53:05.193Z"},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", artifact: "c6ab2f9e-f6c8-43da-916f-34f125ad2c03", name: "result", text: "result for follow-up: more input"},
		{task: "45cca664-8eb5-41df-a5b8-4751ba90c17b", ctx: "dc471aba-e1b1-45fa-9368-8f43db5dcc27", msg: "aa835777-a60e-4662-8390-10564620ef95", role: a2a.RoleAgent, text: "done", ts: "2026-11-22T02:53:05.994Z"},
	}},
}

func TestCaptureFields(t *testing.T) {
	t.Parallel()
	for _, tc := range wantDigests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			events := readSSE(t, readCapture(t, tc.name+".txt"))
			require.Len(t, events, len(tc.events))
			for i, sev := range events {
				env := decodeEnvelope(t, sev.data)
				var got evDigest
				if env.Error != nil {
					got.code = env.Error.Code
				} else {
					ev, err := a2a.Codec{}.DecodeEvent(env.Result)
					require.NoError(t, err)
					got = digestOf(t, ev)
				}
				want := tc.events[i]
				if want.ts != "" {
					ts, err := time.Parse(time.RFC3339Nano, want.ts)
					require.NoError(t, err)
					want.ts = ts.Format(time.RFC3339Nano) // trailing zeros trimmed, as digestOf writes it
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("event %d = %+v; want %+v", i, got, want)
				}
			}
		})
	}
}
