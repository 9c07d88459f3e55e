//go:build race

package tfr

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so
// allocation counts are not meaningful under it (the tests run again
// without -race).
const raceEnabled = true
