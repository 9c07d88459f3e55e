package analysis

import (
	"sync"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/window"
)

// viewKernel is the window kernel of the file view's latest window and
// FFT size: the peak readout's table is built once when they change, not
// per cursor move.
var viewKernel struct {
	sync.Mutex
	win window.Func
	k   *dsp.WindowKernel
}

// Peak is the dominant peak of col, one of s's columns (dBFS, FFT/2+1
// bins), by the rule every peak readout uses (dsp's WindowKernel.PeakDB
// on s's window). A column that folds several frames holds each bin's
// maximum, which leaves a steady tone's peak as it is. Any goroutine may
// call it; it does not allocate once the kernel for s's window and size
// is built. The zero Peak if the window cannot have one.
func (s *FileSpectrogram) Peak(col []float32) dsp.Peak {
	viewKernel.Lock()
	defer viewKernel.Unlock()
	if k := viewKernel.k; k == nil || k.N() != s.FFT || viewKernel.win != s.Window {
		k, err := dsp.NewWindowKernel(s.Window.Values(s.FFT))
		if err != nil {
			return dsp.Peak{}
		}
		viewKernel.k, viewKernel.win = k, s.Window
	}
	return viewKernel.k.PeakDB(col, s.BinHz())
}
