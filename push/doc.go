// Package push receives the push notifications of A2A agents: the events
// of a task that an agent POSTs to a webhook the client registered, so
// that a client learns of a long task's progress without holding a
// connection open.
//
// Make one Receiver for the application, with the public URL where it is
// mounted, as the agent will reach it, and mount it there:
//
//	recv, err := push.NewReceiver("https://app.example/hooks/a2a")
//	mux.Handle("POST /hooks/a2a/{id}", recv)
//	// or: mux.Handle("/hooks/a2a/", http.StripPrefix("/hooks/a2a", recv))
//
// For each push config, call Register: the Registration gives the ID, the
// URL (the base URL, "/", the ID) and the token to put in the config the
// client registers with the agent, in the send or with the push-config
// calls. Bind the registration to its task, or let the first notification
// bind it; then wait for notifications with a select on Ready beside a
// timer, and Take them. Close the registration when the task is done with.
//
// What the Receiver guarantees, against anyone who can reach the URL:
//
//   - A notification is queued only for the registration its path names,
//     only with that registration's token in X-A2A-Notification-Token
//     (compared in constant time), and only for the registration's task.
//     An unknown registration and a wrong token get the same answer, and
//     no refusal says more than its status.
//   - An exact replay of one of a registration's last 64 bodies is answered
//     2xx and not queued again (a2a-js 1.3.0 pushes a cancel twice, byte
//     for byte). Equal events in different bodies are not replays: the
//     consumer deduplicates events, as it does those of a stream.
//   - The Receiver never waits for the application. Each registration's
//     queue is bounded (WithQueueLimit), and a body is read under a limit
//     (WithMaxBodySize); a notification that does not fit is dropped, the
//     agent is answered 2xx, and Take reports the loss.
//   - Nothing of a token, an Authorization header or a body reaches the
//     logger (WithLogger).
//
// A push is not a delivery guarantee. Agents try each notification once,
// with no retry and no sequence number; a 0.3 agent pushes the whole task
// after each event, not the event. Take what a Registration gives as news
// to reconcile with the task (fetch it when a notification was lost, and
// before acting on an ending), never as the only copy of an event.
//
// Registrations are held in memory by the Receiver that made them.
// Without a Share, a notification that reaches another process (another
// replica) is refused there as unknown. With WithShare (package relay's
// MemoryStore, or the Redis store of relay/redisrelay), each Receiver
// stores a record of its registrations (the SHA-256 digest of the token,
// the task; never the token), refreshed while the registration is open and
// expiring after WithShareTTL when its holder is gone. A Receiver that gets
// a notification for a registration it does not hold checks it against
// that record, with the same checks and answers as its holder (token in
// constant time, then the body and its task), and rings the registration's
// ID through the Share; the holder's Registration is then rung as for a
// lost notification: Ready fires, Take reports a loss and no notification,
// and the consumer fetches the task. Nothing a notification carries
// travels; such a Receiver remembers the last 1,024 notifications it rang,
// and answers a replay of one as a replay, without ringing: a captured
// notification sent again and again costs its holder at most one fetch per
// replica (and one more each time it falls out of that window). The
// holder puts its records again when the Share lost them (a restart, an
// outage longer than the TTL). With a Share, Register and
// Bind do I/O and take a context; Close deletes the record best effort.
//
// A registration outlives the Receiver that made it: another Receiver of
// the same Share takes it over with Adopt (a replica that resumes a stream
// from its checkpoint, as package stream does with WithPush), so that the
// push config the agent holds goes on reaching the application and no new
// one is registered. Each record names its holder, and only the holder
// writes it: the Receiver that held it before (a replica that lost its
// lease and still runs) deletes nothing when it closes the registration,
// and at its next refresh stops holding it and rings its consumer once.
// A holder that stops following a task that still runs (a replica that
// shuts down) hands the registration on with Leave rather than Close: its
// record stays for the next holder to adopt, until it expires.
package push
