package archive

import (
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestCalibrationFlags: each flag set gives the calibration it names,
// checked by the level a full-scale sine (0.5 FS²) reads, computed here
// from the definitions (volts = FS·full-scale; dB re 1 V/µPa).
func TestCalibrationFlags(t *testing.T) {
	curve := filepath.Join(t.TempDir(), "sens.csv")
	os.WriteFile(curve, []byte("hz,db\n10,-180\n1000,-170\n"), 0o666)
	sine := 10 * math.Log10(0.5)
	for _, c := range []struct {
		args  []string
		unit  string
		level float64 // what a full-scale sine reads at 1 kHz
	}{
		{nil, "dBFS/Hz", sine},
		// 2 V peak at full scale, 20 dB gain: the hydrophone sees 0.2 V peak
		// = 0.2 V / 10^(−170/20) V/µPa peak; its mean square is half that squared
		{[]string{"--sensitivity", "-170", "--gain", "20", "--full-scale", "2"}, "dB re 1 µPa²/Hz",
			20*math.Log10(0.2/math.Pow(10, -170.0/20)) + sine},
		{[]string{"--sensitivity-file", curve}, "dB re 1 µPa²/Hz", 20*math.Log10(1/math.Pow(10, -170.0/20)) + sine},
		// −26 dB re 1 V/Pa: 1 V peak is 20 Pa peak
		{[]string{"--sensitivity", "-26", "--microphone"}, "dB re (20 µPa)²/Hz", 20*math.Log10(1/math.Pow(10, -26.0/20)/20e-6) + sine},
		{[]string{"--cal-dbspl", "120"}, "dB re (20 µPa)²/Hz", 120},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f calFlags
		f.register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cal, err := f.calibration()
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := sine + cal.OffsetDB(1000); cal.Unit() != c.unit || math.Abs(got-c.level) > 1e-9 {
			t.Errorf("%v: a full-scale sine reads %.6f %s, want %.6f %s", c.args, got, cal.Unit(), c.level, c.unit)
		}
	}
	var f calFlags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f.register(fs)
	fs.Parse([]string{"--sensitivity", "-170", "--cal-dbspl", "94"})
	if _, err := f.calibration(); err == nil {
		t.Error("--sensitivity with --cal-dbspl accepted")
	}
}
