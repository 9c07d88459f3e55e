//go:build !race

package tfrlive

const raceEnabled = false
