// Package ledger is the exactly-once ledger that package dedupe offers to
// applications and that package stream's driver runs on. It holds the
// questions only the driver asks (Covers, ChangesStatus, Pending, Hold,
// Place) beside dedupe's API; dedupe wraps it.
//
// DESIGN.md maps its decision tables and the files that hold them; the
// user's view of what it guarantees is dedupe's package documentation.
package ledger
