//go:build race

package gpufft

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so
// allocation counts are not meaningful; `make test` runs the allocation
// tests again without -race.
const raceEnabled = true
