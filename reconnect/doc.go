// Package reconnect describes how a stream heals dropped connections: the
// constant-backoff [Policy], the retry [Budget] that counts consecutive
// attempts without progress, and the [*Error] that ends a stream once the
// budget is spent.
//
// A stream never re-sends the user's message to recover. It resubscribes to
// the task by ID (tasks/resubscribe in A2A 0.3, SubscribeToTask in 1.0), and
// every new event it delivers resets the budget.
package reconnect
