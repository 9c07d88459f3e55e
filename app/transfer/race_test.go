//go:build race

package transfer

const raceEnabled = true // see gpufft/race_test.go
