package live

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/window"
)

// TestLivePeakEveryWindow: the live readout (Latest's Peak) of a tone
// between bins (1234.5 Hz, bin 105.33 at N = 4096, 48 kHz; −10 dBFS) is
// within 0.02 bin and 0.02 dB of the truth with every window Prism offers,
// one settings change after another in the same session: the readout's
// table follows the window. Latest does not allocate once warm.
func TestLivePeakEveryWindow(t *testing.T) {
	const hz, levelDB = 1234.5, -10.0
	rec := apptest.StartGenerator(t, "sine:1234.5:-10", 48000, 1)
	l, err := New(rec, testEngines(t)[0], DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var sp Spectrum
	for _, name := range append(window.Names(), "kaiser:2", "kaiser:20", "kaiser:100") {
		w, err := window.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		s := DefaultSettings()
		s.Window = w
		l.Apply(s)
		deadline := time.Now().Add(3 * time.Second)
		for ok := false; !ok && time.Now().Before(deadline); {
			runLive(l, 150*time.Millisecond)
			l.Latest(0, &sp)
			// frames of the new settings published (LongFrames restarts
			// when they are applied, at the first Step), and the readout
			// made from them
			ok = sp.Geometry.FFT == s.FFT && sp.LongFrames > 4 && sp.Peak.Freq != 0
		}
		binHz := sp.BinHz
		p := sp.Peak
		t.Logf("%s: %.4f Hz (%+.4f bin), %.4f dBFS, %s", w, p.Freq, (p.Freq-hz)/binHz, p.LevelDB, p.Note)
		if math.Abs(p.Freq-hz) > 0.02*binHz || math.Abs(p.LevelDB-levelDB) > 0.02 || p.Note != "D#6" {
			t.Errorf("%s: peak %+v, want %g Hz ± %.3f, %g dBFS ± 0.02, D#6", w, p, hz, 0.02*binHz, levelDB)
		}
	}
}
