//go:build race

package live

const raceEnabled = true // see gpufft/race_test.go
