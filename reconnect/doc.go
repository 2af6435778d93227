// Package reconnect describes how a stream heals dropped connections: the
// constant-backoff [Policy] (the number of consecutive attempts without
// progress a stream may make, and the wait before each), and the [*Error]
// that ends a stream once those attempts are spent, or when the connection
// dropped before any task was known ([ErrNoTask]).
//
// A stream never re-sends the user's message to recover. It resubscribes to
// the task by ID (tasks/resubscribe in A2A 0.3, SubscribeToTask in 1.0), and
// every new event it delivers restores the attempts.
package reconnect
