// Package canonjson writes a JSON value in one canonical form, so that two
// values are equal exactly when their canonical forms are equal byte for
// byte, whatever the order of an object's members, the white space, the
// escapes in strings and the way a number is written.
//
// It is the module's one notion of equal JSON data: a2a.Part.Equal compares
// data parts with [Equal], and the ledger of package dedupe and the digests
// of package stream hash a data part by its [Canonical] form, so that the
// three agree. It imports nothing of the module, so that a2a, which imports
// only such internal packages, may import it.
package canonjson
