//go:build !race

package pitch

const raceScale = 1
