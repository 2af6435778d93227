// Package clip bounds the server text that an error message quotes: a
// server's error message, the kind of a result it sent, an ID it echoed, a
// header it answered with. Such text comes from a peer the client does not
// control and may be megabytes long; an error message quotes at most a
// bounded prefix of it, cut where a character starts. [Line] also makes
// such text one line for a person (stream.Ending's String): every line
// break, control character and bidirectional control reads as a space.
//
// It is the one such helper of the module: package a2a, package stream and
// package a2atest all cut server text with [Text]. It imports nothing of the
// module, so that a2a, which imports no other package of the module, may
// import it.
package clip
