//go:build race

package analysis

const raceEnabled = true // see gpufft/race_test.go
