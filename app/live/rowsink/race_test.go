//go:build race

package rowsink

const raceEnabled = true // see gpufft/race_test.go
