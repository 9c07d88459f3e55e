//go:build race

package cl

const raceEnabled = true // see gpufft/race_test.go
