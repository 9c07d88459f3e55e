//go:build !race

package gpufft

const raceEnabled = false
