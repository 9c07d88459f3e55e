//go:build race

package tfrlive

const raceEnabled = true // the race detector allocates (see gpufft/race_test.go)
