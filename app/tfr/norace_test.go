//go:build !race

package tfr

const raceEnabled = false
