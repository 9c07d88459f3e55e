//go:build !race

package rowsink

const raceEnabled = false
