//go:build race

package a2aotel_test

// raceEnabled reports a build with the race detector, whose sync.Pool drops
// a share of what is put back: allocation counts are not the product's then.
const raceEnabled = true
