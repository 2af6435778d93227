// Package relay turns one A2A task's stream into a Server-Sent Events
// endpoint for browsers that resume exactly once, from any replica, with
// Last-Event-ID.
//
// Events go to an append-only [Log] kept by a [Store]; the store also holds
// what replicas share about a stream: the lease that says which replica
// drives it upstream, its checkpoint, a snapshot for readers that come back
// too late, the answers to prompts and the request to cancel.
package relay
