//go:build !race

package cl

const raceEnabled = false
