package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The scripted walk (issue 34's "Done when"): the real window under Xvfb,
// driven as a user would, with xdotool's keys, typed text and clicks.
// Every step waits for its effect (a trace event, a file, a change on
// the screen), never for a fixed time. Clicks go to where the side panel
// puts its controls when its sections are as the walk left them (the
// panel is the same at both screen sizes; the status bar's buttons sit
// at the bottom right); a click that lands elsewhere shows as the step's
// effect missing, with the screenshot saved under PRISM_WALK_SHOTS.
//
// Text overlaps are checked by ui's TestNoTextOverlaps (the window's
// object tree laid out by Fyne's test driver at both sizes), which is
// deterministic where a screenshot's pixels are not.

// walkSize is an Xvfb screen size the walk runs at.
type walkSize struct{ w, h int }

// needScreen is needDisplay at size (needDisplay's checks, its own Xvfb).
func needScreen(t *testing.T, size walkSize) string {
	t.Helper()
	needDisplayTools(t)
	return startXvfb(t, size.w, size.h)
}

// walker drives one screen: the binary, the home folder its windows
// share (settings and references survive a restart) and the window.
type walker struct {
	t       *testing.T
	size    walkSize
	display string
	bin     string
	home    string
	out     string // where the walk saves
	args    []string
	w       *window
	starts  int
	began   time.Time
	base    [3]uint8 // the tab bar's corner, no dialog shown
}

// launch starts the window on the walker's screen and home.
func (k *walker) launch() {
	t := k.t
	k.starts++
	w := &window{t: t, display: k.display, trace: filepath.Join(k.home, fmt.Sprintf("trace%d.jsonl", k.starts)),
		stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	w.cmd = exec.Command(k.bin, k.args...)
	w.cmd.Env = append(os.Environ(), "DISPLAY="+k.display, "HOME="+k.home, "XDG_CONFIG_HOME="+filepath.Join(k.home, ".config"),
		"PRISM_UI_TRACE="+w.trace, "LANG=en_US.UTF-8")
	w.cmd.Stderr = w.stderr
	w.cmd.WaitDelay = 5 * time.Second
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.exited <- w.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-w.exited:
			w.exited <- err
		default:
			w.cmd.Process.Kill()
			<-w.exited
		}
		if t.Failed() {
			t.Logf("the trace's last lines:\n%s", traceTail(w.trace, 3))
			t.Logf("stderr:\n%s", w.stderr.String())
		}
	})
	began := time.Now()
	w.ready = waitEvent(t, w.trace, 90*time.Second, func(e event) bool { return e.Event == "ready" })
	t.Logf("%.1f s: the window ready", time.Since(began).Seconds())
	w.id = strings.Fields(xdo(t, k.display, "search", "--sync", "--name", "^Prism$"))[0]
	k.w = w
	if int(w.ready.Window[0]) != k.size.w || int(w.ready.Window[1]) != k.size.h {
		// the window opens at 1280×800: fill the screen, as a user would
		xdo(t, k.display, "windowsize", "--sync", w.id, fmt.Sprint(k.size.w), fmt.Sprint(k.size.h))
		k.until("the window to fill the screen", func() bool {
			c := k.grab().RGBAAt(k.size.w-5, k.size.h-5)
			return c.R+c.G+c.B > 0
		})
	}
	c := k.grab().RGBAAt(k.size.w-5, 5)
	k.base = [3]uint8{c.R, c.G, c.B}
}

// clickPrimary clicks the dialog's primary button.
func (k *walker) clickPrimary(what string) {
	k.t.Helper()
	p := k.primary()
	if p == (image.Point{}) {
		k.fail("%s: no primary button", what)
	}
	k.click(p.X, p.Y)
}

// primary is the middle of the dialog's primary button (the one drawn in
// the theme's primary colour, which the shade darkens everywhere else),
// zero when none is shown.
func (k *walker) primary() image.Point {
	img := k.grab()
	box := image.Rectangle{}
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R == 41 && c.G == 111 && c.B == 246 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if box.Dx() < 20 || box.Dy() < 10 {
		return image.Point{}
	}
	return image.Pt((box.Min.X+box.Max.X)/2, (box.Min.Y+box.Max.Y)/2)
}

// quit ends the window with SIGTERM, which must end it cleanly.
func (k *walker) quit() {
	k.t.Helper()
	if err := k.w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		k.t.Fatal(err)
	}
	select {
	case err := <-k.w.exited:
		k.w.exited <- err
		if err != nil {
			k.t.Fatalf("after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		k.t.Fatal("SIGTERM did not end the window within 30 s")
	}
}

// fail saves the screen (under PRISM_WALK_SHOTS, if set) and fails.
func (k *walker) fail(format string, args ...any) {
	k.t.Helper()
	msg := fmt.Sprintf(format, args...)
	if dir := os.Getenv("PRISM_WALK_SHOTS"); dir != "" {
		name := filepath.Join(dir, fmt.Sprintf("fail-%dx%d.png", k.size.w, k.size.h))
		if f, err := os.Create(name); err == nil {
			png.Encode(f, screenshot(k.t, k.display))
			f.Close()
			msg += " (screen: " + name + ")"
		}
	}
	k.t.Fatalf("%dx%d: %s", k.size.w, k.size.h, msg)
}

// shot saves the screen as name under PRISM_WALK_SHOTS, if set.
func (k *walker) shot(name string) {
	if dir := os.Getenv("PRISM_WALK_SHOTS"); dir != "" {
		if f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%dx%d.png", name, k.size.w, k.size.h))); err == nil {
			png.Encode(f, screenshot(k.t, k.display))
			f.Close()
		}
	}
}

// until polls ok (every 100 ms, 30 s at most) or fails saying what.
func (k *walker) until(what string, ok func() bool) {
	k.t.Helper()
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > 1500*time.Millisecond {
			k.t.Logf("%.1f s: %s", d.Seconds(), what)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		k.w.alive("waiting for " + what)
		if time.Now().After(deadline) {
			k.fail("no %s within 30 s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// perf waits for a perf event, after the first n events of the trace,
// that ok accepts, and returns it.
func (k *walker) perf(what string, n int, ok func(e event) bool) event {
	k.t.Helper()
	var got event
	k.until(what, func() bool {
		evs := readTrace(k.t, k.w.trace)
		for _, e := range evs[min(n, len(evs)):] {
			if e.Event == "perf" && ok(e) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// events is how many events the trace holds now.
func (k *walker) events() int { return len(readTrace(k.t, k.w.trace)) }

// modal says whether a dialog is shown: the tab bar's corner is darker
// under a dialog's shade.
func (k *walker) modal() bool {
	c := k.grab().RGBAAt(k.size.w-5, 5)
	return int(c.R)+int(c.G)+int(c.B)+24 < int(k.base[0])+int(k.base[1])+int(k.base[2])
}

func (k *walker) key(keys ...string) { k.t.Helper(); k.w.key(keys...) }

func (k *walker) click(x, y int) {
	k.t.Helper()
	xdo(k.t, k.display, "mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", "1") // (no --sync: it waits for a move where the pointer already is)
}

// dialog opens a dialog with open (a key or a click), retrying a click
// the window may have taken as the end of the previous one.
func (k *walker) dialog(what string, open func()) {
	k.t.Helper()
	for try := 0; ; try++ {
		open()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if k.modal() {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		if try == 2 {
			k.fail("%s: no dialog", what)
		}
	}
}

// typeIn replaces the focused entry's text with s and presses Enter,
// then waits for the dialog to close.
func (k *walker) typeIn(what, s string) {
	k.t.Helper()
	k.key("ctrl+a")
	xdo(k.t, k.display, "type", "--window", k.w.id, "--delay", "0", s)
	k.key("Return")
	k.until(what+": the dialog closed", func() bool { return !k.modal() })
}

// typeInOpen replaces the focused entry's text with s and presses Enter
// (a dialog may follow).
func (k *walker) typeInOpen(s string) {
	k.t.Helper()
	k.key("ctrl+a")
	xdo(k.t, k.display, "type", "--window", k.w.id, "--delay", "0", s)
	k.key("Return")
}

// writeToneAt writes a 16-bit WAV of seconds of a tone of hz at 48 kHz,
// the same on each of ch channels.
func writeToneAt(t *testing.T, path string, ch int, seconds, hz float64) {
	t.Helper()
	const rate = 48000
	n := int(seconds * rate)
	b := make([]byte, 44, 44+2*ch*n)
	copy(b, "RIFF\x00\x00\x00\x00WAVEfmt ")
	le := binary.LittleEndian
	le.PutUint32(b[4:], uint32(36+2*ch*n))
	le.PutUint32(b[16:], 16)
	le.PutUint16(b[20:], 1)
	le.PutUint16(b[22:], uint16(ch))
	le.PutUint32(b[24:], rate)
	le.PutUint32(b[28:], uint32(2*ch*rate))
	le.PutUint16(b[32:], uint16(2*ch))
	le.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(2*ch*n))
	for i := range n {
		v := int16(16000 * math.Sin(2*math.Pi*hz*float64(i)/rate))
		for range ch {
			b = le.AppendUint16(b, uint16(v))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// exists waits for path to be in place (outputs are renamed into place
// when complete) and returns its text.
func (k *walker) exists(path string) string {
	k.t.Helper()
	k.until(path, func() bool { _, err := os.Stat(path); return err == nil })
	b, _ := os.ReadFile(path)
	return string(b)
}

// prefs are the window's saved settings.
func (k *walker) prefs() map[string]any {
	k.t.Helper()
	b, err := os.ReadFile(filepath.Join(k.home, ".config", "fyne", "io.github.prismaudio.prism", "preferences.json"))
	if err != nil {
		k.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		k.t.Fatal(err)
	}
	return m
}

// analysisPrefs are the saved settings a stress preset changes.
func analysisPrefs(m map[string]any) string {
	var s []string
	for _, key := range []string{"fft", "overlap", "engine", "source.kind", "source.generator", "source.rate", "source.channels", "unit"} {
		s = append(s, fmt.Sprintf("%s=%v", key, m["prism."+key]))
	}
	return strings.Join(s, " ")
}

// region is the part r of the screen, for comparisons.
func (k *walker) region(r image.Rectangle) *image.RGBA {
	return k.grab().SubImage(r).(*image.RGBA)
}

// grab is the screen, read with xwd (its raw dump costs a fraction of
// import's PNG at 1920×1080 on a loaded machine).
func (k *walker) grab() *image.RGBA {
	k.t.Helper()
	cmd := exec.Command("xwd", "-root", "-silent")
	cmd.Env = append(os.Environ(), "DISPLAY="+k.display)
	raw, err := cmd.Output()
	if err != nil {
		return screenshot(k.t, k.display) // no xwd: import's PNG
	}
	img, err := decodeXWD(raw)
	if err != nil {
		k.t.Fatalf("xwd: %v", err)
	}
	return img
}

// decodeXWD reads an X window dump of 32 bits per pixel, 8 bits a
// colour (Xvfb's 24-bit screen) into RGBA.
func decodeXWD(raw []byte) (*image.RGBA, error) {
	be := binary.BigEndian
	if len(raw) < 100 {
		return nil, fmt.Errorf("%d bytes", len(raw))
	}
	field := func(i int) int { return int(be.Uint32(raw[4*i:])) }
	headerSize, w, h := field(0), field(4), field(5)
	byteOrder, bpp, stride, ncolors := field(7), field(11), field(12), field(19)
	redMask, greenMask, blueMask := field(14), field(15), field(16)
	if bpp != 32 || redMask != 0xff0000 || greenMask != 0xff00 || blueMask != 0xff {
		return nil, fmt.Errorf("%d bits per pixel, masks %x %x %x", bpp, redMask, greenMask, blueMask)
	}
	data := raw[headerSize+12*ncolors:]
	if len(data) < stride*h {
		return nil, fmt.Errorf("%d bytes of pixels, want %d", len(data), stride*h)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		row := data[y*stride:]
		for x := range w {
			var v uint32
			if byteOrder == 0 { // LSBFirst
				v = binary.LittleEndian.Uint32(row[4*x:])
			} else {
				v = be.Uint32(row[4*x:])
			}
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(v>>16), uint8(v>>8), uint8(v), 255
		}
	}
	return img, nil
}

func sameRegion(a, b *image.RGBA) bool {
	if a.Rect.Size() != b.Rect.Size() {
		return false
	}
	for y := 0; y < a.Rect.Dy(); y++ {
		ra := a.Pix[a.PixOffset(a.Rect.Min.X, a.Rect.Min.Y+y):][:4*a.Rect.Dx()]
		rb := b.Pix[b.PixOffset(b.Rect.Min.X, b.Rect.Min.Y+y):][:4*b.Rect.Dx()]
		if string(ra) != string(rb) {
			return false
		}
	}
	return true
}

// statusLine is a perf event's second status line (the source, or the
// file shown).
func statusLine(e event) string {
	lines := strings.SplitN(e.Status, "\n", 3)
	if len(lines) < 2 {
		return ""
	}
	return lines[1]
}

// Where the side panel's controls are (pixels from the top left; the
// same at both sizes). The sections start as the window opens them
// (Engine, Source and Analysis open); walkPanel's steps say what they
// open and close.
const (
	xPanel      = 200 // the middle of the panel's full-width rows
	yStress     = 101 // Stress test (Engine)
	yAnalysisHd = 299 // the Analysis header, Source open
	ySourceHd   = 141 // the Source header
	yFFT        = 338 // FFT (Analysis, Source open)
	xFFT        = 320 // the FFT dropdown, right of the Mode dropdown on its row
	yUnitsHd    = 261 // Units and calibration, Source and Analysis closed
	yUnit       = 301 // its Unit
	yRefsHd     = 460 // References and distortion, Units open
	yLoad       = 500 // its Load… (x 297)
	yDiff0      = 547 // Difference to, with no reference; a reference's row adds 36
	yOption     = 35  // a dropdown's first option below the dropdown; each next one 39 more
	yOptionStep = 39
	xHarm       = 18 // the Harmonics box: 40 below Difference to
	yHarmBelow  = 40
	yRefsHd0    = 655 // References and distortion, as the window opens
	yDiffBelow  = 87  // Difference to below the References header, no reference
)

// TestDesktopWalk is the scripted walk at 1280×800 and 1920×1080 (each
// its own Xvfb screen, window and home folder):
//
//   - two files opened in turn with Ctrl+O and their absolute paths typed:
//     the file line names each with its own format and duration, and the
//     spectrum under the cursor (the mouse left where it was) follows the
//     second file without a mouse move;
//   - at 1280×800: a reference stored with S (named in its dialog), the
//     spectrum exported with Ctrl+E to a typed path, the unit changed to
//     dBFS/Hz and the export loaded back with Load… (kept as a second
//     reference in its own unit, dBFS); the stress preset toggled twice
//     (192 kHz × 8 while on; the saved settings never change; the status
//     back to 48000 Hz × 2, N=4096 after); two dropdowns (Unit, Difference
//     to) each chosen then Space pausing and Space resuming, then D drawing
//     the harmonics on the paused display; Ctrl+S, Ctrl+Shift+S, ● Record
//     audio (to FLAC, which `flac -t` verifies) and Record analysis saved
//     to typed absolute paths; and a restart (SIGTERM, then the same
//     command) with the settings as they were, not the stress preset's;
//   - at 1920×1080 (not with -short): the FFT dropdown chosen, then Space pausing and D
//     drawing on the paused display, and the stress preset toggled twice.
func TestDesktopWalk(t *testing.T) {
	sizes := []walkSize{{1280, 800}, {1920, 1080}}
	if testing.Short() {
		sizes = sizes[:1] // the flows, at the smaller screen
	}
	bin := buildPrism(t)
	start := time.Now()
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			home := t.TempDir()
			k := &walker{t: t, size: size, display: needScreen(t, size), bin: bin, home: home,
				out:  filepath.Join(home, "out"),
				args: []string{"--generator", "sine:1000:-6", "--fft", "4096", "--hop", "1024"}}
			if err := os.Mkdir(k.out, 0o755); err != nil {
				t.Fatal(err)
			}
			k.began = time.Now()
			k.launch()
			k.shot("first")
			k.walkFiles()
			t.Logf("%.1f s: files", time.Since(k.began).Seconds())
			if size.w == 1280 {
				k.walkPanel()
			} else {
				k.walkLarge()
			}
		})
	}
	t.Logf("the walk took %.1f s (the build before it not counted)", time.Since(start).Seconds())
}

// walkFiles opens two files in turn by typed paths; each one's line
// and the spectrum under the cursor follow it.
func (k *walker) walkFiles() {
	t := k.t
	a, b := filepath.Join(k.home, "a.wav"), filepath.Join(k.home, "b.wav")
	writeToneAt(t, a, 1, 1, 1000)
	writeToneAt(t, b, 2, 2, 3000)
	// the spectrum under the cursor: the lower plot of the File tab
	lower := image.Rect(460, k.size.h*66/100, k.size.w-40, k.size.h*84/100)
	n := k.events()
	k.dialog("Ctrl+O", func() { k.key("ctrl+o") })
	k.typeIn("open a.wav", a)
	ea := k.perf("the file line of a.wav", n, func(e event) bool { return strings.HasPrefix(statusLine(e), "File a.wav") })
	empty := k.region(lower)
	// over the spectrogram, below the File tab's bars of controls
	xdo(t, k.display, "mousemove", "--sync", fmt.Sprint(k.size.w/2+100), fmt.Sprint(k.size.h*45/100))
	xdo(t, k.display, "mousemove_relative", "--sync", "3", "3")
	var readA *image.RGBA
	k.shot("file-a-open")
	k.until("the spectrum under the cursor in a.wav", func() bool { readA = k.region(lower); return !sameRegion(readA, empty) })
	k.shot("file-a")
	n = k.events()
	k.dialog("Ctrl+O again", func() { k.key("ctrl+o") })
	k.typeIn("open b.wav", b)
	eb := k.perf("the file line of b.wav", n, func(e event) bool { return strings.HasPrefix(statusLine(e), "File b.wav") })
	if !strings.Contains(statusLine(ea), "× 1 · 1.000 s") || !strings.Contains(statusLine(eb), "× 2 · 2.000 s") {
		t.Errorf("file lines %q and %q: want 1 channel, 1 s and 2 channels, 2 s", statusLine(ea), statusLine(eb))
	}
	k.until("the spectrum under the cursor to follow b.wav (the mouse not moved)", func() bool {
		r := k.region(lower)
		return !sameRegion(r, readA) && !sameRegion(r, empty)
	})
	k.shot("file-b")
	// back to Live
	n = k.events()
	k.click(420, 21)
	k.perf("the live line", n, func(e event) bool { return strings.HasPrefix(statusLine(e), "generator ") })
}

// pausedThenD pauses with Space (after a choice in a dropdown; that the
// display then holds is TestDesktopSpacePauses's), then D turns the harmonics on (their box at
// (xHarm, yHarm) changes) and off again; Space resumes.
func (k *walker) pausedThenD(after string, yHarm int) {
	k.t.Helper()
	n := k.events()
	k.key("space")
	k.perf("Space to pause after "+after, n, func(e event) bool { return e.Paused })
	box := image.Rect(xHarm-8, yHarm-8, xHarm+8, yHarm+8)
	off := k.region(box)
	k.key("d")
	k.until("D to turn the harmonics on after "+after, func() bool { return !sameRegion(k.region(box), off) })
	k.key("d")
	k.until("D to turn them off again", func() bool { return sameRegion(k.region(box), off) })
	n = k.events()
	k.key("space")
	k.perf("Space to resume", n, func(e event) bool { return !e.Paused })
}

// choose opens the dropdown at (x, y) and clicks its i-th option.
func (k *walker) choose(what string, x, y, i int) {
	k.t.Helper()
	below := image.Rect(x-20, y+yOption-10, x+20, y+yOption+10)
	before := k.region(below)
	for try := 0; ; try++ {
		k.click(x, y)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && sameRegion(k.region(below), before) {
			time.Sleep(100 * time.Millisecond)
		}
		if !sameRegion(k.region(below), before) {
			break
		}
		if try == 2 {
			k.fail("%s: the dropdown did not open", what)
		}
	}
	k.click(x, y+yOption+i*yOptionStep)
}

// stressTwice toggles the stress preset on and off: 192 kHz × 8 while
// on, the saved settings untouched, and the line as it was after.
func (k *walker) stressTwice() {
	k.t.Helper()
	before := analysisPrefs(k.prefs())
	n := k.events()
	k.click(xPanel, yStress)
	k.perf("the stress preset's 192000 Hz × 8", n, func(e event) bool { return strings.Contains(statusLine(e), "192000 Hz × 8") })
	if got := analysisPrefs(k.prefs()); got != before {
		k.t.Errorf("the stress preset was saved: %s, before %s", got, before)
	}
	k.shot("stress")
	n = k.events()
	k.click(xPanel, yStress)
	k.perf("the settings back after the second press", n, func(e event) bool {
		l := statusLine(e)
		return strings.Contains(l, "48000 Hz × 2") && !strings.Contains(l, "192000")
	})
	if got := analysisPrefs(k.prefs()); got != before {
		k.t.Errorf("after the stress preset: %s, before %s", got, before)
	}
}

// walkPanel is the 1280×800 walk's side panel, keys and save dialogs,
// then the restart.
func (k *walker) walkPanel() {
	t := k.t
	refs := filepath.Join(k.home, ".config", "prism", "references")
	// store a reference (S, its name typed)
	k.dialog("S", func() { k.key("s") })
	k.typeIn("store", "walk ref")
	if got := k.exists(filepath.Join(refs, "001 walk ref.csv")); !strings.Contains(got, "# unit: dBFS\n") {
		t.Errorf("the stored reference: %.80q", got)
	}
	k.t.Logf("%.1f s: stored", time.Since(k.began).Seconds())
	// export the spectrum to a typed absolute path
	csv := filepath.Join(k.out, "spectrum.csv")
	k.dialog("Ctrl+E", func() { k.key("ctrl+e") })
	k.typeIn("export the spectrum", csv)
	if got := k.exists(csv); !strings.HasPrefix(got, "freq_hz,") {
		t.Errorf("the export: %.80q", got)
	}
	k.t.Logf("%.1f s: exported", time.Since(k.began).Seconds())
	// the Units and References sections (Source and Analysis closed)
	k.click(xPanel, yAnalysisHd)
	k.click(xPanel, ySourceHd)
	k.click(xPanel, yUnitsHd)
	k.click(xPanel, yRefsHd)
	k.choose("Unit", xPanel, yUnit, 1) // dBFS/Hz
	k.until("the unit dBFS/Hz saved", func() bool { return k.prefs()["prism.unit"] == "dbfs-hz" })
	// load the export back, on the dBFS/Hz axis
	k.dialog("Load…", func() { k.click(297, yLoad) })
	k.typeInOpen(csv)
	// it holds three traces: a dialog asks which (the average, proposed)
	k.until("the dialog asking which trace", func() bool { return k.primary() != image.Point{} })
	k.clickPrimary("Load (the average)")
	k.until("the trace dialog closed", func() bool { return !k.modal() })
	k.until("the loaded reference kept", func() bool {
		m, _ := filepath.Glob(filepath.Join(refs, "002 *.csv"))
		return len(m) == 1
	})
	m, _ := filepath.Glob(filepath.Join(refs, "002 *.csv"))
	if b, _ := os.ReadFile(m[0]); !strings.Contains(string(b), "# unit: dBFS\n") {
		t.Errorf("the loaded reference %s: %.80q, want its own unit dBFS", filepath.Base(m[0]), b)
	}
	k.shot("references")
	k.t.Logf("%.1f s: loaded", time.Since(k.began).Seconds())
	// the stress preset, twice
	k.stressTwice()
	k.t.Logf("%.1f s: stress", time.Since(k.began).Seconds())
	// dropdowns, then Space and D
	k.choose("Unit", xPanel, yUnit, 0) // dBFS
	yDiff := yDiff0 + 2*36             // two references
	k.pausedThenD("the Unit dropdown", yDiff+yHarmBelow)
	k.choose("Difference to", xPanel, yDiff, 1) // the first reference
	k.pausedThenD("the Difference to dropdown", yDiff+yHarmBelow)
	k.t.Logf("%.1f s: dropdowns", time.Since(k.began).Seconds())
	// the other save dialogs, typed absolute paths
	save := func(what, key, name string) {
		p := filepath.Join(k.out, name)
		k.dialog(what, func() { k.key(key) })
		k.typeIn(what, p)
		k.exists(p)
	}
	save("Ctrl+S", "ctrl+s", "view.png")
	bar := func(fromRight int) (int, int) { return k.size.w - fromRight, k.size.h - 23 }
	for _, s := range []struct {
		what      string
		fromRight int
		path      string
	}{{"● Record audio", 394, "input.flac"}, {"Record analysis", 267, "frames.npy"}} {
		p := filepath.Join(k.out, s.path)
		x, y := bar(s.fromRight)
		k.dialog(s.what, func() { k.click(x, y) })
		k.typeIn(s.what, p)
		// recording: its temporary file beside the destination
		tmp := filepath.Join(k.out, "."+s.path+".prism-*")
		recording := func() bool { m, _ := filepath.Glob(tmp); return len(m) > 0 }
		k.until(s.what+" recording", recording)
		n := k.events()
		k.perf("a second recorded", n, func(e event) bool { return e.FrameS > 0 })
		// stop (again if the click was taken as the end of the dialog)
		for try := 0; ; try++ {
			k.click(x, y)
			deadline := time.Now().Add(5 * time.Second)
			for recording() && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if !recording() || try == 2 {
				break
			}
		}
		k.exists(p)
	}
	// the history (after the recordings: seconds of it since the last
	// change of settings cleared it)
	save("Ctrl+Shift+S", "ctrl+shift+s", "history.npy")
	if tool, err := exec.LookPath("flac"); err == nil {
		if out, err := exec.Command(tool, "-t", "-s", filepath.Join(k.out, "input.flac")).CombinedOutput(); err != nil {
			t.Errorf("flac -t on the recording: %v: %s", err, out)
		}
	}
	k.t.Logf("%.1f s: saves", time.Since(k.began).Seconds())
	// restart: the settings as they were
	before := analysisPrefs(k.prefs())
	k.quit()
	k.launch()
	k.perf("the line after the restart", 0, func(e event) bool {
		l := statusLine(e)
		return strings.HasPrefix(l, "generator sine:1000:-6 · 48000 Hz × 2 · N=4096")
	})
	if got := analysisPrefs(k.prefs()); got != before {
		t.Errorf("after the restart: %s, before %s", got, before)
	}
	k.shot("restarted")
}

// walkLarge is the 1920×1080 walk's FFT dropdown, Space and D, and the
// stress preset.
func (k *walker) walkLarge() {
	k.click(xPanel, yRefsHd0)
	n := k.events()
	k.choose("FFT", xFFT, yFFT, 1)
	k.perf("an FFT size chosen", n, func(e event) bool { return e.FFT != 4096 && e.FFT != 0 })
	k.pausedThenD("the FFT dropdown", yRefsHd0+yDiffBelow+yHarmBelow)
	k.stressTwice()
	k.shot("large")
}
