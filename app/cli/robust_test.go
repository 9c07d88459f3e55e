package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestMain lets a test run Run in a child process (for signals): with
// PRISM_CLI_CHILD=1 the test binary is the prism command line.
func TestMain(m *testing.M) {
	if os.Getenv("PRISM_CLI_CHILD") == "1" {
		os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestOutputIsInput: an output that is the input (the same path, a
// symbolic link to it, a WAV named .csv) is refused with exit 2 and the
// input is left as it was.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(8000, 8000, 500, 0.5)})
	csv := filepath.Join(dir, "a.csv")
	apptest.WriteWAV(t, csv, 8000, [][]float32{apptest.Tone(8000, 8000, 500, 0.5)})
	link := filepath.Join(dir, "link.wav")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	want, wantCSV := fileHash(t, in), fileHash(t, csv)
	for _, args := range [][]string{
		{"filter", in, "-o", in, "--band", "lowpass:100", "--quiet"},
		{"filter", in, "-o", link, "--band", "lowpass:100", "--quiet"},
		{"analyze", csv, "-o", csv, "--fft", "256", "--quiet"},
		{"bands", csv, "-o", csv},
	} {
		code, msg := runCLI(append(args, "--engine", "cpu")...)
		if code != ExitUsage || !strings.Contains(msg, "the output is the input") {
			t.Errorf("%v: exit %d, %q; want 2 and 'the output is the input'", args, code, msg)
		}
	}
	if fileHash(t, in) != want || fileHash(t, csv) != wantCSV {
		t.Fatal("an input was changed")
	}
}

// TestBatchNames: inputs that share a base name get NAME.EXT.FORMAT
// outputs, said on stderr; inputs that would still write one file are
// refused before anything is written.
func TestBatchNames(t *testing.T) {
	dir := t.TempDir()
	d1, d2, out := filepath.Join(dir, "d1"), filepath.Join(dir, "d2"), filepath.Join(dir, "out")
	for _, d := range []string{d1, d2} {
		os.Mkdir(d, 0o755)
	}
	x := apptest.Tone(4096, 8000, 500, 0.5)
	for _, p := range []string{filepath.Join(d1, "x.wav"), filepath.Join(d2, "x.wav"), filepath.Join(d1, "x.WAVE")} {
		apptest.WriteWAV(t, p, 8000, [][]float32{x})
	}
	code, msg := runCLI("analyze", filepath.Join(d1, "x.wav"), filepath.Join(d2, "x.wav"), "-o", out+"/", "--format", "npy", "--fft", "256", "--engine", "cpu", "--quiet")
	if code != ExitUsage || !strings.Contains(msg, "would both write") {
		t.Errorf("same names in two folders: exit %d, %q", code, msg)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d files written before the refusal", len(ents))
	}
	code, msg = runCLI("analyze", filepath.Join(d1, "x.wav"), filepath.Join(d1, "x.WAVE"), "-o", out+"/", "--format", "npy", "--fft", "256", "--engine", "cpu", "--quiet")
	if code != ExitOK || !strings.Contains(msg, "x.wav.npy") || !strings.Contains(msg, "x.WAVE.npy") {
		t.Fatalf("shared base name: exit %d, %q", code, msg)
	}
	for _, n := range []string{"x.wav.npy", "x.WAVE.npy"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Error(err)
		}
	}
}

// TestFlagNoise: a bad flag is one line on stderr, not the flag list;
// control characters in names are escaped; an image too large to make is
// refused.
func TestFlagNoise(t *testing.T) {
	code, msg := runCLI("analyze", "x.wav", "-o", "y.png", "--nope")
	if code != ExitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "-nope") {
		t.Errorf("bad flag: exit %d, %q", code, msg)
	}
	var out, errb bytes.Buffer
	code = Run([]string{"analyze", "a\x1b[31mred.wav", "-o", filepath.Join(t.TempDir(), "o.png"), "--engine", "cpu", "--quiet"}, &out, &errb)
	if code != ExitUsage || strings.ContainsRune(errb.String(), 0x1b) || !strings.Contains(errb.String(), `a\x1b[31mred.wav`) {
		t.Errorf("escape sequence in a name: exit %d, %q", code, errb.String())
	}
	code, msg = runCLI("analyze", "x.wav", "-o", "y.png", "--width", "16384", "--height", "16384")
	if code != ExitUsage || !strings.Contains(msg, "pixels in all") {
		t.Errorf("16384×16384: exit %d, %q", code, msg)
	}
}

// TestFilterEmpty: filtering a WAV with no samples is bad input, as
// analyze and bands say, and writes nothing.
func TestFilterEmpty(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "empty.wav"), filepath.Join(dir, "o.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{{}})
	code, msg := runCLI("filter", in, "-o", out, "--band", "lowpass:1000", "--engine", "cpu", "--quiet")
	if _, err := os.Stat(out); code != ExitUsage || err == nil || !strings.Contains(msg, "no samples") {
		t.Errorf("exit %d, %q, output %v", code, msg, err)
	}
}

// TestInterruptFIFO: SIGINT while the input cannot even be opened (a FIFO
// with no writer blocks open(2)) ends the command with exit 1 and no
// output; the time it took is logged (the target is 0.5 s).
func TestInterruptFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "o.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		cmd := exec.Command(os.Args[0], "analyze", fifo, "-o", out, "--engine", "cpu")
		cmd.Env = append(os.Environ(), "PRISM_CLI_CHILD=1")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // the child is blocked in open(2)
		sent := time.Now()
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: the command did not end", sig)
		}
		t.Logf("%v: ended %.0f ms after the signal", sig, time.Since(sent).Seconds()*1e3)
		if code := cmd.ProcessState.ExitCode(); code != ExitFailure || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%v: exit %d, %q", sig, code, errb.String())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%v: %d files in the output folder, want only the FIFO", sig, len(ents))
		}
	}
}

// TestFilterManyChannels: a 1024-channel file filters (each channel on
// its own), where the batch of blocks once passed the engine's limit.
func TestFilterManyChannels(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "many.wav"), filepath.Join(dir, "o.wav")
	ch := make([][]float32, 1024)
	for c := range ch {
		ch[c] = apptest.Tone(3000, 8000, float64(100+c), 0.25)
	}
	apptest.WriteWAV(t, in, 8000, ch)
	if code, msg := runCLI("filter", in, "-o", out, "--band", "lowpass:3000", "--engine", "cpu", "--quiet"); code != ExitOK {
		t.Fatalf("exit %d, %q", code, msg)
	}
	f, y := apptest.ReadAll(t, out)
	if f.Channels != 1024 || len(y) != 1024*3000 {
		t.Fatalf("%d channels, %d samples", f.Channels, len(y))
	}
	// a pass-band tone comes through: channel 7 (107 Hz) after the start
	rms := 0.0
	for i := 1000; i < 2000; i++ {
		rms += float64(y[i*1024+7]) * float64(y[i*1024+7])
	}
	if rms = math.Sqrt(rms / 1000); math.Abs(rms-0.25/math.Sqrt2) > 0.01 {
		t.Errorf("channel 7 RMS %.4f, want %.4f", rms, 0.25/math.Sqrt2)
	}
}

// TestCaptureStatsPeak: --stats names the captured tone: its frequency
// between bins within 0.02 bin, its level within 0.02 dB, and its note.
func TestCaptureStatsPeak(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run([]string{"capture", "--generator", "sine:1234.5:-10", "--seconds", "1", "--stats", "--engine", "cpu",
		"--window", "hann", "-o", filepath.Join(t.TempDir(), "c.npy"), "--quiet"}, &out, &errb)
	var st struct {
		Hz   float64 `json:"peak_hz"`
		DBFS float64 `json:"peak_dbfs"`
		Note string  `json:"peak_note"`
	}
	if err := json.Unmarshal(out.Bytes(), &st); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v, %s", code, err, errb.String())
	}
	binHz := 48000.0 / 4096
	if math.Abs(st.Hz-1234.5) > 0.02*binHz || math.Abs(st.DBFS+10) > 0.02 || st.Note != "D#6" {
		t.Errorf("peak %+v, want 1234.5 Hz at −10 dBFS, D#6", st)
	}
}

// TestCutShortWarning: a WAV whose data chunk is cut short (it declares
// more than the file holds) is analyzed as far as it goes, and every file
// command says so — bands and filter too.
func TestCutShortWarning(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cut.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(16000, 8000, 500, 0.5)})
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(in, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"analyze", in, "-o", filepath.Join(dir, "a.npy"), "--fft", "256", "--engine", "cpu", "--quiet"},
		{"bands", in, "-o", filepath.Join(dir, "b.csv"), "--engine", "cpu"},
		{"bands", in, "-o", filepath.Join(dir, "b2.csv"), "--engine", "cpu", "--fraction", "1", "--min-freq", "31.5", "--max-freq", "63"},
		{"filter", in, "-o", filepath.Join(dir, "f.wav"), "--band", "lowpass:1000", "--engine", "cpu", "--quiet"},
		{"spectrum", in, "-o", filepath.Join(dir, "s.csv"), "--fft", "256", "--engine", "cpu", "--quiet"},
		{"levels", in},
	} {
		code, msg := runCLI(args...)
		if code != ExitOK || !strings.Contains(msg, "prism: warning: ") || !strings.Contains(msg, "analyzing what is there") {
			t.Errorf("%s: exit %d, %q; want 0 and the cut-short warning (analyzing what is there)", args[0], code, msg)
		}
	}
}

// TestAnalyzeSeveralToFile: several inputs with -o naming a file of an
// output format (out.npy) are refused (exit 2, nothing made); -o DIR/, an
// existing directory or a name without such an extension is a directory.
func TestAnalyzeSeveralToFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav")
	for _, p := range []string{a, b} {
		apptest.WriteWAV(t, p, 8000, [][]float32{apptest.Tone(4096, 8000, 500, 0.5)})
	}
	out := filepath.Join(dir, "out.npy")
	code, msg := runCLI("analyze", a, b, "-o", out, "--fft", "256", "--engine", "cpu", "--quiet")
	if _, err := os.Stat(out); code != ExitUsage || !strings.Contains(msg, "several inputs need a directory") || err == nil {
		t.Errorf("-o out.npy: exit %d, %q, stat %v; want 2, the rule and nothing made", code, msg, err)
	}
	for _, o := range []string{filepath.Join(dir, "d1") + "/", filepath.Join(dir, "d2"), dir} {
		code, msg := runCLI("analyze", a, b, "-o", o, "--format", "npy", "--fft", "256", "--engine", "cpu", "--quiet")
		if _, err := os.Stat(filepath.Join(o, "b.npy")); code != ExitOK || err != nil {
			t.Errorf("-o %s: exit %d, %q, %v", o, code, msg, err)
		}
	}
}

// TestAnalyzePNGFromPipe: a WAV streamed into a FIFO (no length in its
// header) analyzes to PNG as the same file does, byte for byte, and
// leaves no copy behind.
func TestAnalyzePNGFromPipe(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the copy goes
	os.Mkdir(filepath.Join(dir, "p"), 0o755)
	os.Mkdir(filepath.Join(dir, "f"), 0o755)
	fifo, whole := filepath.Join(dir, "p", "in.wav"), filepath.Join(dir, "f", "in.wav") // one name: one title
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	x := apptest.Tone(8000, 8000, 500, 0.5)
	pcm := make([]byte, 2*len(x))
	for i, v := range x {
		s := int16(math.Round(float64(v) * 32767))
		pcm[2*i], pcm[2*i+1] = byte(s), byte(s>>8)
	}
	hdr := streamHeader(8000)
	full := append(append([]byte{}, hdr...), pcm...)
	binary.LittleEndian.PutUint32(full[4:], uint32(len(full)-8))
	binary.LittleEndian.PutUint32(full[40:], uint32(len(pcm)))
	if err := os.WriteFile(whole, full, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(hdr)
		w.Write(pcm)
		w.Close()
	}()
	args := []string{"--fft", "256", "--engine", "cpu", "--quiet", "--width", "200", "--height", "100"}
	piped, direct := filepath.Join(dir, "p.png"), filepath.Join(dir, "f.png")
	if code, msg := runCLI(append([]string{"analyze", fifo, "-o", piped}, args...)...); code != ExitOK {
		t.Fatalf("from the FIFO: exit %d, %q", code, msg)
	}
	if code, msg := runCLI(append([]string{"analyze", whole, "-o", direct}, args...)...); code != ExitOK {
		t.Fatalf("from the file: exit %d, %q", code, msg)
	}
	if fileHash(t, piped) != fileHash(t, direct) {
		t.Error("the PNG from the FIFO differs from the file's")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("copies left: %v", left)
	}
}
