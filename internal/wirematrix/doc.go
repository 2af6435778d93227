// Package wirematrix is test support, imported only by _test.go files: the
// scenarios of the library's guarantees that every wire must keep, defined
// once and run on each wire by whoever can build a client for it. stream's
// tests run them on the four HTTP wires (JSON-RPC and HTTP+JSON, A2A 0.3
// and 1.0); the grpc module's tests run them on gRPC 0.3 and 1.0, through
// grpc/a2agrpctest, which the library's module cannot import. Six wires,
// one definition.
//
// A [Wire] says how to make an a2atest agent that speaks the wire and a
// stream client that reaches it; each scenario takes a *testing.T and a
// Wire and runs its subtests, each in a testing/synctest bubble, where the
// agent's pauses take no wall time:
//
//   - cuts and drops: [CutAnywhere] (every event boundary, random byte
//     offsets, the three resubscribe styles), [DropsAreHealed],
//     [StylesMixedPerReconnect] (a hand-written server whose style changes
//     per leg, over seeded timelines; a wire reaches it with
//     [Wire.HandlerClient]);
//   - human input: [HumanInTheLoop], [HumanInTheLoopAcrossDrops] (the reply
//     and its leg cut, under each style);
//   - no resend of what got a response: [FirstSendNeverResent],
//     [FirstSendCutAtEveryByte] (the first send stream cut at every byte
//     offset, or around each event where [Wire.CutOffsets] says so:
//     [CutsAroundEvents]), [ReplyNeverResent] (streamed and polled, under
//     each style);
//   - credentials: [Credentials] (auth-required, streamed and polled, and a
//     caller's header on every call), [CredentialsRenewedOnRefusal] (a
//     resubscribe refused as unauthenticated);
//   - polling: [Polling] (an agent that cannot stream, polls dropped or
//     refused as busy);
//   - checkpoints: [ResumeFromACheckpoint] (a restart after every event,
//     under each style and polling);
//   - endings: [Endings] (what Stream.Ending reads of the endings any wire
//     can make).
//
// [Scenarios] lists them, and [RunAll] runs them all on the wires a runner
// can build (grpc/a2agrpctest's TestMatrix); stream's tests run each under
// its own test name ([Named], [Scenario.On]), and its endings test adds the
// HTTP wires' own endings to [EndingCases].
//
// The helpers the scenarios use are stream's tests' too, defined here once:
// the scripts ([Paced], [Asking], [ChunkyScript], [AskScript],
// [ResumeScript]), the drain that checks the fold ([Drain], [DrainEach]),
// the checks against the server ([RequireSameAsServer],
// [RequireHandedOverOnce]), the counts of what the agent received ([Sends],
// [Resubscribes], [CountMethod], [SendCountsOf], [FollowUps]) and the hooks
// ([Recorder], [HitlFunc]).
//
// It imports stream, a2atest, internal/foldcheck and testify's require,
// which library code never does; internal/archtest checks that only test
// files import it.
package wirematrix
