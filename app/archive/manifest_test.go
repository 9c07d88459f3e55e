package archive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	x := [][]float32{make([]float32, 2*48000)}
	writeWAV(t, filepath.Join(dir, "a.wav"), 48000, x, nil)
	writeWAV(t, filepath.Join(dir, "SM4_20210315_120000.wav"), 48000, x, nil)
	writeWAV(t, filepath.Join(dir, "c.wav"), 48000, x, nil)
	if err := os.WriteFile(filepath.Join(dir, "sens.csv"), []byte("hz,db\n10,-170\n1000,-165\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := "path,start_utc,rate_correction,transducer,sensitivity_db,gain_db,full_scale_v,sensitivity_file\n" +
		"a.wav,2021-03-15T11:59:59.9Z,1.00001,hydrophone,-170,12,2.5,\n" +
		"SM4_20210315_120000.wav,,,hydrophone,,12,2.5,sens.csv\n" +
		"# a comment line\n" +
		"c.wav,2021-03-15T13:00:05+01:00,,,,,,\n"
	mpath := filepath.Join(dir, "archive.csv")
	if err := os.WriteFile(mpath, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := ReadManifest(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Files) != 3 {
		t.Fatalf("%d files", len(cat.Files))
	}
	a, b, c := cat.Files[0], cat.Files[1], cat.Files[2]
	if filepath.Base(a.Path) != "a.wav" || !a.Start.Equal(at(-0.1)) || a.Rate != 48000*1.00001 || a.Clock != "manifest" ||
		a.Cal.Transducer != Hydrophone || a.Cal.SensitivityDB != -170 || a.Cal.GainDB != 12 || a.Cal.FullScaleV != 2.5 {
		t.Errorf("a: %+v", a)
	}
	if !b.Start.Equal(at(0)) || b.Clock != "name" || len(b.Cal.Curve) != 2 || b.Cal.Curve[1] != (CurvePoint{1000, -165}) {
		t.Errorf("SM4: %+v", b)
	}
	if filepath.Base(c.Path) != "c.wav" || !c.Start.Equal(time.Date(2021, 3, 15, 12, 0, 5, 0, time.UTC)) || c.Cal.Transducer != Uncalibrated {
		t.Errorf("c: %+v", c)
	}
	// a overlaps the SM4 file by 1.9 s; c starts 3 s after it ends
	if len(cat.Overlaps) != 1 || filepath.Base(cat.Overlaps[0].Second) != "SM4_20210315_120000.wav" ||
		len(cat.Gaps) != 1 || cat.Gaps[0].Length != 3*time.Second || filepath.Base(cat.Gaps[0].Before) != "c.wav" {
		t.Errorf("gaps %+v overlaps %+v", cat.Gaps, cat.Overlaps)
	}
	for _, bad := range []string{
		"path,start\na.wav,x\n",               // unknown column
		"start_utc\n2021-03-15T12:00:00Z\n",   // no path
		"path,start_utc\na.wav,15 March\n",    // not RFC 3339
		"path,transducer\na.wav,hydrophone\n", // no sensitivity
		"path,rate_correction\na.wav,48000\n", // a rate, not a factor
		"path\nmissing.wav\n",                 // no such file
	} {
		if err := os.WriteFile(mpath, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(mpath); err == nil || !strings.HasPrefix(err.Error(), "archive: manifest") {
			t.Errorf("manifest %q: error %v, want one naming the manifest", bad, err)
		}
	}
}
