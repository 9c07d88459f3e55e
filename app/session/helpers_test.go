package session

import (
	"testing"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// testEngines is every pair of engines there is here: the CPU alone, and
// the GPU with the CPU where OpenCL is usable.
func testEngines(t *testing.T) []engine.Pair {
	return apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} })
}
