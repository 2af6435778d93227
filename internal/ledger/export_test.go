package ledger

// Seen reports whether a message with this ID was delivered or recorded.
func (l *Ledger) Seen(messageID string) bool { return l.msgs.known(messageID) }

// InReplayWindow reports whether the replay window is open.
func (l *Ledger) InReplayWindow() bool { return l.win.open }
