//go:build race

package app

const raceEnabled = true // see gpufft/race_test.go
