//go:build race

package pitch

// raceScale thins the tests' frames under the race detector (it makes
// the FFTs ~15× slower): every raceScale-th hop.
const raceScale = 4
