// Package archtest holds the test that keeps the import graph of the module
// in the shape the design needs. It has no code of its own.
package archtest
