// Package hitl (human in the loop) defines how a stream asks a person, or any
// other source of answers, for the input an agent requests.
//
// When a task enters input-required, the stream calls the configured [Hook]
// with the assembled task and the agent's prompt, sends the returned parts to
// the agent as a new message on the same task, and keeps streaming. A hook
// is called from the consumer's goroutine, after the prompt has been yielded
// to the application, and is never asked the same prompt twice.
//
// Without a hook, or when the hook fails or times out, the stream ends with an
// [*Error] that carries the task, so the caller can answer later by sending a
// message with the task's ID.
package hitl
