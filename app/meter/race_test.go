//go:build race

package meter

const raceEnabled = true // see gpufft/race_test.go
