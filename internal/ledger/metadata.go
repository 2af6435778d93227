package ledger

import "github.com/a2astream/a2astream/a2a"

// foldMetadata folds md, the metadata of a status update or of a task, into
// the assembled task's, key by key. With wins, md's values replace those
// held; without (md may be the past), md only adds the keys the task lacks.
// No key is ever taken away, and folding the same md again changes nothing,
// so that a redelivered event cannot break exactly-once.
//
// The task's map is the ledger's own, never md: the events it came from are
// delivered, or belong to the caller. The values are shared, not copied: the
// ledger replaces a value, it never changes one.
func foldMetadata(t *a2a.Task, md map[string]any, wins bool) {
	if len(md) == 0 {
		return
	}
	if t.Metadata == nil {
		t.Metadata = make(map[string]any, len(md))
	}
	for k, v := range md {
		if _, held := t.Metadata[k]; held && !wins {
			continue
		}
		t.Metadata[k] = v
	}
}
