package ui

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
)

// chanEngine is the fake engine with live.Live's contract for an output
// channel the source no longer has (its channel count changed after the
// window chose the channel): Latest leaves the traces and bands empty and
// Columns returns no column; stale counts such calls.
type chanEngine struct {
	*fakeEngine
	stale atomic.Int64
}

// outOfRange reports (and counts) whether c is neither a channel of the
// source nor its mix (c = channels).
func (e *chanEngine) outOfRange(c int) bool {
	e.mu.Lock()
	ch := e.ch
	e.mu.Unlock()
	if c >= 0 && c <= ch {
		return false
	}
	e.stale.Add(1)
	return true
}

func (e *chanEngine) Latest(c int, dst *live.Spectrum) {
	if !e.outOfRange(c) {
		e.fakeEngine.Latest(c, dst)
		return
	}
	dst.Current, dst.ExpAvg, dst.LinAvg = dst.Current[:0], dst.ExpAvg[:0], dst.LinAvg[:0]
	dst.LongAvg, dst.PeakHold, dst.MinHold = dst.LongAvg[:0], dst.PeakHold[:0], dst.MinHold[:0]
	dst.Bands, dst.Peak = dst.Bands[:0], dsp.Peak{}
}

func (e *chanEngine) Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry) {
	if e.outOfRange(c) {
		return 0, after, live.Geometry{}
	}
	return e.fakeEngine.Columns(c, dst, after)
}

// setChannels changes the source's channel count under the window.
func (e *chanEngine) setChannels(n int) {
	e.mu.Lock()
	e.ch = n
	e.mu.Unlock()
}

// TestSourceChannelCountChanges: the source's channel count changes (2 →
// 1 → 2 → 8 → 1 → 6 → 2: a stereo generator, a mono file in real time, an
// 8-channel preset, …) while the views pull, showing all channels and the
// mix (a single trace), above the waterfall and the RTA bars. Pulls
// between the change and the window's next reading of the statistics ask
// for channels chosen for the old count (the engine answers those empty):
// nothing panics, and after that reading the views pull exactly the new
// count's channels (each of them, or the mix: index = count) and the
// spectrum's legend names them (L/R, ch 1…; none for one trace), the status strip
// says "× count", and every pulled spectrum has its bins.
func TestSourceChannelCountChanges(t *testing.T) {
	for _, view := range []string{"all", "mix"} {
		for _, lower := range []string{"waterfall", "rta"} {
			t.Run(view+"/"+lower, func(t *testing.T) {
				e := &chanEngine{fakeEngine: newFakeEngine()}
				e.queue(make([]float32, e.fft/2+1))
				w := newChanWindow(t, e)
				w.change(func(s *Settings) { s.Channels, s.Lower = view, lower })
				settle(t, w)
				for _, n := range []int{2, 1, 2, 8, 1, 6, 2} {
					e.setChannels(n)
					e.queue(make([]float32, e.fft/2+1))
					w.statusDue = time.Now().Add(time.Hour) // the window still has the old count
					for range 3 {
						w.Pull()
					}
					w.statusDue = time.Time{}
					w.Pull()
					w.win.Canvas().Capture() // draws the legend
					checkChannels(t, w, e, view, n)
				}
				if e.stale.Load() == 0 {
					t.Error("no pull asked for a channel of the old count: the test did not exercise the change")
				}
			})
		}
	}
}

// checkChannels checks that the window's views pull and name n channels
// (view "all") or the mix (view "mix", and any mono source).
func checkChannels(t *testing.T, w *Window, e *chanEngine, view string, n int) {
	t.Helper()
	want := []int{n} // the mix: one trace, its legend names the traces only
	var names []string
	switch {
	case n == 1:
	case view == "all" && n == 2:
		want, names = []int{0, 1}, []string{"L", "R"}
	case view == "all":
		want, names = nil, nil
		for c := range n {
			want = append(want, c)
			names = append(names, fmt.Sprintf("ch %d", c+1))
		}
	}
	if !slices.Equal(w.chans, want) {
		t.Errorf("%d channels, %s: the views pull channels %v, want %v", n, view, w.chans, want)
	}
	var legend []string
	for _, it := range w.spec.Legend() {
		legend = append(legend, it.Text())
	}
	for _, name := range names {
		if !slices.ContainsFunc(legend, func(l string) bool { return strings.HasPrefix(l, name) }) {
			t.Errorf("%d channels, %s: legend %q does not name %q", n, view, legend, name)
		}
	}
	if names == nil && slices.ContainsFunc(legend, func(l string) bool { return strings.HasPrefix(l, "L") || strings.HasPrefix(l, "ch ") }) {
		t.Errorf("%d channels, %s: legend %q names channels of a single trace", n, view, legend)
	}
	if st := w.statusText(); !strings.Contains(st, fmt.Sprintf("× %d ·", n)) {
		t.Errorf("%d channels: status %q", n, st)
	}
	for _, c := range want {
		var sp live.Spectrum
		e.Latest(c, &sp)
		if len(sp.Current) != e.fft/2+1 {
			t.Errorf("%d channels: channel %d has %d bins", n, c, len(sp.Current))
		}
	}
}

// newChanWindow is newTestWindowWith for a chanEngine.
func newChanWindow(t *testing.T, e *chanEngine) *Window {
	t.Helper()
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	w := New(a, win, e, Options{Manual: true, Do: func(f func()) { uiQueue <- f }})
	w.pullShare = 0
	e.settle = func() { settle(t, w) }
	t.Cleanup(func() {
		w.Close()
		for {
			select {
			case <-uiQueue:
			default:
				return
			}
		}
	})
	w.statusDue = time.Time{}
	w.Pull()
	return w
}
