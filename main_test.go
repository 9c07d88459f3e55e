package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needDisplay starts a private Xvfb (1280×800, 24 bit) and returns its
// DISPLAY; without Xvfb, xdotool and ImageMagick the test skips, or fails
// under PRISM_REQUIRE_DISPLAY=1.
func needDisplay(t *testing.T) string {
	t.Helper()
	needDisplayTools(t)
	return startXvfb(t, 1280, 800)
}

// needDisplayTools skips (or fails under PRISM_REQUIRE_DISPLAY=1) without
// Xvfb, xdotool and ImageMagick.
func needDisplayTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PRISM_REQUIRE_DISPLAY") == "1" {
				t.Fatalf("%s required (PRISM_REQUIRE_DISPLAY=1): %v", tool, err)
			}
			t.Skipf("no %s: %v", tool, err)
		}
	}
}

// startXvfb starts a private Xvfb of w×h (24 bit), ended with the test,
// and returns its DISPLAY.
func startXvfb(t *testing.T, width, height int) string {
	t.Helper()
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", width, height), "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{wr}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb did not say its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// buildPrism builds the real binary into a temporary directory.
func buildPrism(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prism")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// event is a line of the window's trace.
type event struct {
	Event  string             `json:"event"`
	Window []float64          `json:"window"`
	Plot   []float64          `json:"plot"`
	Axis   map[string]any     `json:"axis"`
	Engine string             `json:"engine"`
	FPS    float64            `json:"fps"`
	CPU    float64            `json:"cpu_percent"`
	EngMs  map[string]float64 `json:"engine_ms"`
	FrameS float64            `json:"frames_per_s"`
	Status string             `json:"status"`
	Paused bool               `json:"paused"`
	FFT    int                `json:"fft"`
}

// readTrace returns the events written so far.
func readTrace(t *testing.T, path string) []event {
	t.Helper()
	raw, _ := os.ReadFile(path)
	var evs []event
	for _, line := range strings.Split(string(raw), "\n") {
		var e event
		if json.Unmarshal([]byte(line), &e) == nil && e.Event != "" {
			evs = append(evs, e)
		}
	}
	return evs
}

func waitEvent(t *testing.T, path string, d time.Duration, ok func(e event) bool) event {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, e := range readTrace(t, path) {
			if ok(e) {
				return e
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no such event in %s within %v:\n%s", path, d, mustRead(path))
	return event{}
}

func mustRead(path string) string { b, _ := os.ReadFile(path); return string(b) }

func screenshot(t *testing.T, display string) *image.RGBA {
	t.Helper()
	cmd := exec.Command("import", "-window", "root", "png:-")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	return rgba
}

// TestDesktopSmoke starts the real binary on the generator under Xvfb,
// checks the window's size and that the spectrum shows the 1 kHz tone at
// 1 kHz on the log axis, toggles the engine with the G key, reports the
// frame rate and CPU load at N=4096 hop 256 (48 kHz stereo), and quits it
// with SIGTERM, which must exit cleanly.
func TestDesktopSmoke(t *testing.T) {
	display := needDisplay(t)
	bin := buildPrism(t)
	home := t.TempDir()
	trace := filepath.Join(home, "trace.jsonl")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--generator", "sine:1000:-6", "--fft", "4096", "--hop", "256")
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"PRISM_UI_TRACE="+trace, "LANG=en_US.UTF-8")
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second // a sound server it started may hold stderr open
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	done := false
	defer func() {
		if !done {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()

	ready := waitEvent(t, trace, 90*time.Second, func(e event) bool { return e.Event == "ready" })
	if len(ready.Window) != 2 || ready.Window[0] != 1280 || ready.Window[1] != 800 {
		t.Errorf("window %v, want 1280×800", ready.Window)
	}
	geo := xdo(t, display, "search", "--sync", "--name", "^Prism$", "getwindowgeometry")
	if !strings.Contains(geo, "Geometry: 1280x800") {
		t.Errorf("xdotool: %s", geo)
	}
	// let averages settle and the waterfall fill a little
	waitEvent(t, trace, 30*time.Second, func(e event) bool { return e.Event == "perf" && e.FrameS > 150 })
	img := screenshot(t, display)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 {
		t.Fatalf("screenshot %v", b)
	}
	if path := os.Getenv("PRISM_SCREENSHOT"); path != "" { // `make screenshot`: the README's picture
		if err := writePNGFile(path, img); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if t.Failed() {
			f, err := os.Create(filepath.Join(os.TempDir(), "prism-smoke.png"))
			if err == nil {
				png.Encode(f, img)
				f.Close()
				t.Logf("screenshot: %s", f.Name())
			}
		}
	}()
	// the highest point of the traces (the mix's teal, or the paler teal
	// where the average lies over the current spectrum; never the grey
	// of text and grid) in the plot: the tone. The exponential average
	// (1 s) drawn over the spectrum rises to the tone's level from the
	// analysis's start (about −8 dB after 1 s), so the check waits for it
	// (15 s at most, a bound for a loaded machine) with new screenshots.
	px, py, pw, ph := int(ready.Plot[0]), int(ready.Plot[1]), int(ready.Plot[2]), int(ready.Plot[3])
	toneTop := func(img *image.RGBA) (top, topX int) {
		top, topX = py+ph, -1
		for x := px; x < px+pw; x++ {
			for y := py; y < py+ph; y++ {
				c := img.RGBAAt(x, y)
				if c.G > 170 && c.B > 150 && int(c.G)-int(c.R) > 60 {
					if y < top {
						top, topX = y, x
					}
					break
				}
			}
		}
		return top, topX
	}
	// −6 dBFS on the −120…0 axis; the trace between bins reads up to the
	// Hann window's 1.42 dB scalloping loss below the interpolated peak
	dbOf := func(top int) float64 { return -float64(top-py) / float64(ph-1) * 120 }
	settled := func(db float64) bool { return db >= -6-1.42-0.5 && db <= -6+0.5 }
	top, topX := toneTop(img)
	for deadline := time.Now().Add(15 * time.Second); !settled(dbOf(top)) && time.Now().Before(deadline); {
		img = screenshot(t, display)
		top, topX = toneTop(img)
	}
	lo, hi := ready.Axis["low"].(float64), ready.Axis["high"].(float64)
	wantX := float64(px) + math.Log(1000/lo)/math.Log(hi/lo)*float64(pw)
	if math.Abs(float64(topX)-wantX) > 3 {
		t.Errorf("the spectrum peaks at x=%d, want %.1f (1 kHz on the log axis %g…%g Hz)", topX, wantX, lo, hi)
	}
	if db := dbOf(top); !settled(db) {
		t.Errorf("the tone's top at y=%d: %.2f dBFS, want −6 (−1.4 dB scalloping allowed)", top, db)
	}

	// engine toggle by key, when there is a GPU engine to toggle
	first := waitEvent(t, trace, 5*time.Second, func(e event) bool { return e.Event == "perf" && e.Status != "" })
	if first.Engine == "opencl" {
		wid := strings.TrimSpace(xdo(t, display, "search", "--name", "^Prism$"))
		xdo(t, display, "key", "--window", strings.Fields(wid)[0], "g")
		waitEvent(t, trace, 20*time.Second, func(e event) bool { return e.Event == "engine" && e.Engine == "cpu" })
		waitEvent(t, trace, 20*time.Second, func(e event) bool { return e.Event == "perf" && e.Engine == "cpu" })
		// the status bar says so
		st := waitEvent(t, trace, 20*time.Second, func(e event) bool { return e.Event == "perf" && e.Engine == "cpu" && e.Status != "" })
		if !strings.Contains(st.Status, "CPU (Go,") || strings.Contains(st.Status, "GPU (") {
			t.Errorf("status bar after the toggle: %q", st.Status)
		}
		if !strings.Contains(first.Status, "GPU (") {
			t.Errorf("status bar before the toggle: %q", first.Status)
		}
	} else if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
		t.Errorf("the window started on %q without OpenCL", first.Engine)
	}

	// frame rate and CPU load over the run (reported, not asserted: the
	// machine is shared)
	var fps, cpu []float64
	for _, e := range readTrace(t, trace) {
		if e.Event == "perf" {
			fps, cpu = append(fps, e.FPS), append(cpu, e.CPU)
		}
	}
	t.Logf("UI at 1280×800, N=4096 hop 256, 48 kHz stereo: %d s: frames/s median %.1f (min %.1f), process CPU median %.0f%% of one core",
		len(fps), median(fps), minOf(fps), median(cpu))

	// quit cleanly on SIGTERM
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		done = true
		if err != nil {
			t.Errorf("prism after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("prism did not exit within 15 s of SIGTERM")
	}
}

// TestNoDisplay: without a display prism says so and lists the CLI.
func TestNoDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPrism(t)
	cmd := exec.Command(bin)
	cmd.Env = append(filterEnv(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY="), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	s := stderr.String()
	if code != 1 || !strings.Contains(s, "no display") || !strings.Contains(s, "analyze") {
		t.Errorf("exit %d, stderr:\n%s", code, s)
	}
	// a bad window flag is a usage error
	cmd = exec.Command(bin, "--fft", "1000")
	cmd.Env = cmd.Environ()
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "--fft 1000") {
		t.Errorf("--fft 1000: exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}

func filterEnv(env []string, drop ...string) []string {
	var out []string
	for _, e := range env {
		keep := true
		for _, d := range drop {
			keep = keep && !strings.HasPrefix(e, d)
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

func xdo(t *testing.T, display string, args ...string) string {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
	return string(out)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// window is a running prism window under Xvfb, on the generator.
type window struct {
	t       *testing.T
	display string
	trace   string
	cmd     *exec.Cmd
	stderr  *bytes.Buffer
	exited  chan error
	ready   event
	id      string // the X window
}

// startWindow builds prism and starts its window on Xvfb with args; it
// is killed when the test ends (unless quit ended it).
func startWindow(t *testing.T, args ...string) *window {
	display := needDisplay(t)
	bin := buildPrism(t)
	home := t.TempDir()
	w := &window{t: t, display: display, trace: filepath.Join(home, "trace.jsonl"), stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	w.cmd = exec.Command(bin, args...)
	w.cmd.Env = append(os.Environ(), "DISPLAY="+display, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"PRISM_UI_TRACE="+w.trace, "LANG=en_US.UTF-8")
	w.cmd.Stderr = w.stderr
	w.cmd.WaitDelay = 5 * time.Second
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.exited <- w.cmd.Wait() }()
	t.Cleanup(func() {
		var exit error
		died := false
		select { // Wait has returned (the stderr copy is complete) once exited has spoken
		case exit = <-w.exited:
			died = true
		default:
			w.cmd.Process.Kill()
			<-w.exited
		}
		if t.Failed() {
			if died { // a signal from a thread the Go runtime does not own leaves stderr empty
				t.Logf("prism had ended on its own: %v", exit)
			}
			t.Logf("the trace's last lines:\n%s", traceTail(w.trace, 4))
			t.Logf("stderr:\n%s", w.stderr.String())
		}
	})
	w.ready = waitEvent(t, w.trace, 90*time.Second, func(e event) bool { return e.Event == "ready" })
	w.id = strings.Fields(xdo(t, display, "search", "--sync", "--name", "^Prism$"))[0]
	return w
}

// traceTail is the last n lines of a trace file, each cut to 300 bytes.
func traceTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines = lines[max(0, len(lines)-n):]
	for i, l := range lines {
		lines[i] = l[:min(len(l), 300)]
	}
	return strings.Join(lines, "\n")
}

// alive fails the test if the process has exited.
func (w *window) alive(when string) {
	w.t.Helper()
	select {
	case err := <-w.exited:
		w.exited <- err
		w.t.Fatalf("prism died %s: %v\n%s", when, err, w.stderr.String())
	default:
	}
}

// key sends X key names (xdotool's) to the window.
func (w *window) key(keys ...string) {
	w.t.Helper()
	xdo(w.t, w.display, append([]string{"key", "--window", w.id, "--delay", "0"}, keys...)...)
}

// lastPerf is the newest perf event and how many there are.
func (w *window) lastPerf() (event, int) {
	var last event
	n := 0
	for _, e := range readTrace(w.t, w.trace) {
		if e.Event == "perf" {
			last, n = e, n+1
		}
	}
	return last, n
}

// plots is the screenshot's region above the status area: the plots and
// their labels (the status strip's figures change while paused).
func (w *window) plots(img *image.RGBA) *image.RGBA {
	px, py, pw := int(w.ready.Plot[0]), int(w.ready.Plot[1]), int(w.ready.Plot[2])
	r := image.Rect(px, py, px+pw, int(w.ready.Window[1])-120)
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Rect, img, r.Min, draw.Src)
	return out
}

func samePixels(a, b *image.RGBA) bool { return bytes.Equal(a.Pix, b.Pix) }

// stressKeys are every keyboard shortcut that does not open a dialog
// (xdotool key names).
var stressKeys = []string{
	"space", "g", "f", "m", "a", "h", "r", "v", "o", "p", "t", "bracketleft", "bracketright",
	"Up", "Down", "plus", "minus", "Left", "Right", "0",
}

// TestDesktopKeyStress hammers every shortcut in a seeded random order
// with random gaps, ]/[ (the FFT size) in bursts, for PRISM_STRESS_SECONDS
// (60 by default, 10 with -short, at most 600): the process must live
// throughout and keep drawing (a perf event a second), and at the end the
// display, resumed, still changes on noise.
func TestDesktopKeyStress(t *testing.T) {
	seconds := 60.0
	if testing.Short() {
		seconds = 10
	}
	if v, err := strconv.ParseFloat(os.Getenv("PRISM_STRESS_SECONDS"), 64); err == nil && v > 0 {
		seconds = min(v, 600)
	}
	seed := time.Now().UnixNano()
	if v, err := strconv.ParseInt(os.Getenv("PRISM_STRESS_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (PRISM_STRESS_SEED=%d repeats it), %g s", seed, seed, seconds)
	rng := rand.New(rand.NewSource(seed))
	w := startWindow(t, "--generator", "white:-20", "--fft", "4096", "--hop", "1024")
	waitEvent(t, w.trace, 30*time.Second, func(e event) bool { return e.Event == "perf" })

	end := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	nextCheck := time.Now().Add(5 * time.Second)
	_, perfBefore := w.lastPerf()
	sent, dbSteps := 0, 0 // Up and Down move the dB range (−120…0 at first) 10 dB
	for time.Now().Before(end) {
		var keys []string
		if rng.Intn(4) == 0 { // a burst of FFT-size changes, as in the crash report
			for range 2 + rng.Intn(6) {
				keys = append(keys, []string{"bracketleft", "bracketright"}[rng.Intn(2)])
			}
		} else {
			keys = append(keys, stressKeys[rng.Intn(len(stressKeys))])
		}
		for _, k := range keys { // the window keeps its range within −300…+100 dB
			switch {
			case k == "Up" && dbSteps < 10:
				dbSteps++
			case k == "Down" && dbSteps > -18:
				dbSteps--
			}
		}
		w.key(keys...)
		sent += len(keys)
		time.Sleep(time.Duration(rng.Intn(150)) * time.Millisecond)
		if time.Now().After(nextCheck) {
			w.alive(fmt.Sprintf("after %d keys", sent))
			_, n := w.lastPerf()
			if n <= perfBefore {
				t.Fatalf("no perf event (a drawn second) in the last 5 s after %d keys", sent)
			}
			perfBefore, nextCheck = n, time.Now().Add(5*time.Second)
		}
	}
	w.alive(fmt.Sprintf("after %d keys", sent))
	// resume if the last Space paused it, then the live display must change
	time.Sleep(time.Second)
	if last, _ := w.lastPerf(); last.Paused {
		w.key("space")
		waitEvent(t, w.trace, 10*time.Second, func(e event) bool { return e.Event == "perf" && !e.Paused })
	}
	// the dB range back where it started: a random walk of Up and Down
	// over minutes leaves the noise far above or below it, every trace
	// clipped and the waterfall one colour (a 300-s run failed so, the
	// window drawing at 42 fps); R restarts the averages and holds
	back := []string{}
	for ; dbSteps > 0; dbSteps-- {
		back = append(back, "Down")
	}
	for ; dbSteps < 0; dbSteps++ {
		back = append(back, "Up")
	}
	// and the FFT size down to 32768 or less: the walk may have left it at
	// 2^20, whose first frame spans 21.8 s of input at 48 kHz, nearly the
	// whole wait below (the countdown in the status strip says so)
	w.key(append(back, "bracketleft", "bracketleft", "bracketleft", "bracketleft", "bracketleft", "r")...)
	// the engine may still be working through the last sizes (a
	// 32768-point frame spans 0.68 s, and PoCL compiles each new plan):
	// give the display 30 s to show new frames
	changed := false
	for start := time.Now(); !changed && time.Since(start) < 30*time.Second; {
		a := w.plots(screenshot(t, w.display))
		time.Sleep(time.Second)
		changed = !samePixels(a, w.plots(screenshot(t, w.display)))
	}
	last, n := w.lastPerf()
	if !changed {
		t.Errorf("after the stress the live display no longer changes (last perf event: %+v)", last)
	}
	w.alive("at the end")
	t.Logf("%d keys in %g s; %d perf events; last: %.0f fps, %.0f frames/s, N=%d", sent, seconds, n, last.FPS, last.FrameS, last.FFT)
	// and the analysis runs (a perf event's second with frames analyzed)
	waitEvent(t, w.trace, 30*time.Second, func(e event) bool { return e.Event == "perf" && e.FrameS > 0 })
	if last.FPS <= 0 {
		t.Errorf("last perf event: %.1f fps", last.FPS)
	}
}

// TestDesktopLargestFFT: the window at 2^20 points (0.046 Hz bins at 48
// kHz) keeps drawing — a perf event (a drawn second) at least every 5 s —
// through the 21.8 s its first frame takes to fill, which the status
// strip counts down, and once frames are analyzed at that size (each
// trace half a million bins; PoCL falls behind and skips hops, counted).
func TestDesktopLargestFFT(t *testing.T) {
	w := startWindow(t, "--generator", "sine:1000:-6", "--fft", "1048576", "--hop", "1024")
	waitEvent(t, w.trace, 30*time.Second, func(e event) bool { return e.Event == "perf" })
	countdown, analyzed := false, false
	_, before := w.lastPerf()
	for start, check := time.Now(), time.Now(); time.Since(start) < 60*time.Second; {
		time.Sleep(500 * time.Millisecond)
		w.alive("at 2^20 points")
		last, n := w.lastPerf()
		if n > before {
			before, check = n, time.Now()
		} else if time.Since(check) > 5*time.Second {
			t.Fatalf("no perf event (a drawn second) in 5 s at 2^20 points; the last: %+v", last)
		}
		countdown = countdown || strings.Contains(last.Status, "first frame in")
		if last.FFT == 1<<20 && last.FrameS > 0 {
			analyzed = true
		}
		if analyzed && time.Since(start) > 35*time.Second {
			break
		}
	}
	last, n := w.lastPerf()
	t.Logf("%d perf events; last: %.0f fps, %.1f frames/s, N=%d, status %q", n, last.FPS, last.FrameS, last.FFT, last.Status)
	if !countdown || !analyzed {
		t.Errorf("countdown shown: %v; frames analyzed at 2^20: %v", countdown, analyzed)
	}
}

// TestDesktopSpacePauses: one Space press pauses the display (two
// screenshots a second apart are identical, on white noise), the status
// says PAUSED, and another press resumes it.
func TestDesktopSpacePauses(t *testing.T) {
	w := startWindow(t, "--generator", "white:-20", "--fft", "2048", "--hop", "512")
	waitEvent(t, w.trace, 30*time.Second, func(e event) bool { return e.Event == "perf" && e.FrameS > 50 })
	a := w.plots(screenshot(t, w.display))
	time.Sleep(time.Second)
	if samePixels(a, w.plots(screenshot(t, w.display))) {
		t.Fatal("the live display does not change on white noise")
	}
	w.key("space")
	p := waitEvent(t, w.trace, 10*time.Second, func(e event) bool { return e.Event == "perf" && e.Paused })
	if !strings.Contains(p.Status, "PAUSED") {
		t.Errorf("paused, status %q", p.Status)
	}
	// the last frame before the pause is painted when two screenshots
	// 300 ms apart agree (however late a loaded machine paints it); then
	// the display holds for a second
	a = w.plots(screenshot(t, w.display))
	for start := time.Now(); ; a = w.plots(screenshot(t, w.display)) {
		time.Sleep(300 * time.Millisecond)
		if samePixels(a, w.plots(screenshot(t, w.display))) {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("paused, yet the display still changes after 10 s")
		}
	}
	time.Sleep(time.Second)
	b := w.plots(screenshot(t, w.display))
	if !samePixels(a, b) {
		t.Error("paused, yet the display changed within a second")
	}
	// the pause holds (one press is one toggle)
	time.Sleep(1500 * time.Millisecond)
	if last, _ := w.lastPerf(); !last.Paused {
		t.Error("one Space press paused and resumed")
	}
	w.key("space")
	waitEvent(t, w.trace, 10*time.Second, func(e event) bool {
		return e.Event == "perf" && !e.Paused && !strings.Contains(e.Status, "PAUSED")
	})
	time.Sleep(time.Second)
	if samePixels(b, w.plots(screenshot(t, w.display))) {
		t.Error("resumed, yet the display did not change")
	}
}

// TestQuietTerminal: `prism --help` under LANG=C.UTF-8 (no LANGUAGE)
// prints no Fyne locale error, and `prism devices` no ALSA or JACK lines
// of their own, unless PRISM_VERBOSE asks for them.
func TestQuietTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPrism(t)
	env := append(filterEnv(os.Environ(), "LANGUAGE=", "LANG=", "LC_ALL=", "LC_MESSAGES=", "PRISM_VERBOSE="), "LANG=C.UTF-8", "HOME="+t.TempDir())
	run := func(env []string, args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := run(env, "--help"); strings.Contains(out, "locale") || !strings.Contains(out, "Usage") {
		t.Errorf("prism --help under LANG=C.UTF-8:\n%s", out)
	}
	noisy := func(out string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "ALSA lib") || strings.Contains(l, "jack server") || strings.Contains(l, "JackShmReadWritePtr") ||
				strings.HasPrefix(l, "Cannot connect to server") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	if lines := noisy(run(env, "devices")); len(lines) > 0 {
		t.Errorf("prism devices printed %d library lines, first %q", len(lines), lines[0])
	}
	loud := noisy(run(append(env, "PRISM_VERBOSE=1"), "devices"))
	t.Logf("with PRISM_VERBOSE=1: %d library lines (this machine has %s)", len(loud), map[bool]string{true: "no sound card: ALSA complains", false: "nothing for ALSA to complain about"}[len(loud) > 0])
}

// writeTone writes a 16-bit WAV of seconds of a 1 kHz tone at 48 kHz,
// the same on each of ch channels.
func writeTone(t *testing.T, path string, ch int, seconds float64) {
	t.Helper()
	writeToneAt(t, path, ch, seconds, 1000)
}

// TestAddressSpaceLimit: under a 1 GiB address-space limit (ulimit -v, as
// batch schedulers set) analyze, levels and spectrum of a small WAV
// succeed (glibc's malloc arenas are limited: internal/proc); OpenCL may
// be refused there (PoCL wants about 2 GiB), then the CPU engine is used.
// Below 1 GiB, where the Go runtime itself may not start, Prism refuses
// with one line and exit 1, never exit 2 (bad input).
func TestAddressSpaceLimit(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit:", err)
	}
	bin := buildPrism(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "tone.wav")
	writeTone(t, in, 2, 3)
	for _, args := range [][]string{
		{"analyze", in, "-o", filepath.Join(dir, "o.png")},
		{"levels", in},
		{"spectrum", in, "-o", filepath.Join(dir, "s.csv")},
	} {
		out, err := exec.Command("prlimit", append([]string{"--as=1073741824", bin}, args...)...).CombinedOutput()
		if err != nil {
			t.Errorf("%s under 1 GiB: %v\n%.600s", args[0], err, out)
		}
	}
	for _, p := range []string{"o.png", "s.csv"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	cmd := exec.Command("prlimit", "--as=268435456", bin, "levels", in)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.HasPrefix(string(out), "prism: the address-space limit") || strings.Count(string(out), "\n") != 1 {
		t.Errorf("under 256 MiB: exit %d, %q; want 1 and one line", code, out)
	}
}

// writePNGFile writes img to path as PNG.
func writePNGFile(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestDesktopSourceChannelChanges (issue 33, item 12): the real window on
// the stereo generator has its live source switched (through
// PRISM_UI_SOURCES, as the Source control switches it) to a mono WAV
// played in real time, back to the stereo generator, and once more each
// way, while its views pull: after each switch the window lives and
// draws a perf event whose status names the new source with its channel
// count (× 1, × 2), and SIGTERM then ends it cleanly (exit 0).
func TestDesktopSourceChannelChanges(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "sources")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	mono := filepath.Join(dir, "mono.wav")
	writeTone(t, mono, 1, 3)
	t.Setenv("PRISM_UI_SOURCES", fifo)
	const gen = "sine:1000:-6"
	w := startWindow(t, "--generator", gen, "--fft", "4096", "--hop", "1024")
	ctl, err := os.OpenFile(fifo, os.O_WRONLY, 0) // the window opened it for reading at start
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	// perfAfter waits for a perf event after the first n events whose
	// status names source and "× ch".
	perfAfter := func(n int, source string, ch int) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			w.alive("after the switch to " + source)
			evs := readTrace(t, w.trace)
			for _, e := range evs[min(n, len(evs)):] {
				if e.Event == "perf" && strings.Contains(e.Status, source) && strings.Contains(e.Status, fmt.Sprintf("× %d ·", ch)) {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no perf event of %s with %d channels within 60 s:\n%s", source, ch, traceTail(w.trace, 4))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	perfAfter(0, "generator "+gen, 2)
	for _, step := range []struct {
		line string
		ch   int
	}{{"file " + mono, 1}, {"generator " + gen, 2}, {"file " + mono, 1}, {"generator " + gen, 2}} {
		n := len(readTrace(t, w.trace))
		if _, err := fmt.Fprintln(ctl, step.line); err != nil {
			t.Fatalf("PRISM_UI_SOURCES: %v", err)
		}
		perfAfter(n, step.line, step.ch)
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.exited:
		w.exited <- err // (the cleanup reads it)
		if err != nil {
			t.Fatalf("after SIGTERM: %v\n%s", err, w.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("SIGTERM did not end the window within 30 s")
	}
}
