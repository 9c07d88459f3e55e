//go:build cgo

package audio

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gordonklaus/portaudio"
)

// paMu serialises PortAudio's global Initialize/Terminate and device scans.
var paMu sync.Mutex

// Devices lists the audio devices PortAudio sees (it initialises PortAudio
// for the scan, so hot-plugged devices appear). No sound server or no
// devices gives an empty list, not an error.
func Devices() ([]DeviceInfo, error) {
	paMu.Lock()
	defer paMu.Unlock()
	if err := portaudio.Initialize(); err != nil {
		return nil, fmt.Errorf("audio: PortAudio: %w", err)
	}
	defer portaudio.Terminate()
	return scan()
}

func scan() ([]DeviceInfo, error) {
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("audio: list devices: %w", err)
	}
	defIn, _ := portaudio.DefaultInputDevice()
	out := make([]DeviceInfo, len(devs))
	for i, d := range devs {
		host := ""
		if d.HostApi != nil {
			host = d.HostApi.Name
		}
		out[i] = DeviceInfo{Index: i, Name: d.Name, HostAPI: host, MaxInputChannels: d.MaxInputChannels,
			MaxOutputChannels: d.MaxOutputChannels, DefaultRate: d.DefaultSampleRate,
			LowLatency: d.DefaultLowInputLatency, HighLatency: d.DefaultHighInputLatency,
			DefaultInput: defIn != nil && d.Name == defIn.Name && d.HostApi == defIn.HostApi}
	}
	return out, nil
}

// pickDevice finds the input (or output) device sel names: "" for the
// default, an index from Devices, or a case-insensitive substring of a
// name. Errors wrap ErrNoInputDevice (ErrNoOutputDevice). Callers hold
// paMu and have initialised PortAudio.
func pickDevice(sel string, input bool) (*portaudio.DeviceInfo, error) {
	none, kind := ErrNoInputDevice, "input"
	if !input {
		none, kind = ErrNoOutputDevice, "output"
	}
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("audio: list devices: %w", err)
	}
	channels := func(d *portaudio.DeviceInfo) int {
		if input {
			return d.MaxInputChannels
		}
		return d.MaxOutputChannels
	}
	var dev *portaudio.DeviceInfo
	switch sel = strings.TrimSpace(sel); {
	case sel == "":
		if input {
			dev, err = portaudio.DefaultInputDevice()
		} else {
			dev, err = portaudio.DefaultOutputDevice()
		}
		if err != nil || dev == nil || channels(dev) < 1 {
			return nil, fmt.Errorf("%w: no default %s device (%d devices seen)", none, kind, len(devs))
		}
		return dev, nil
	default:
		if i, err := strconv.Atoi(sel); err == nil {
			if i < 0 || i >= len(devs) {
				return nil, fmt.Errorf("%w: index %d (have 0…%d)", none, i, len(devs)-1)
			}
			dev = devs[i]
		} else {
			for _, d := range devs {
				if channels(d) > 0 && strings.Contains(strings.ToLower(d.Name), strings.ToLower(sel)) {
					dev = d
					break
				}
			}
		}
		if dev == nil || channels(dev) < 1 {
			return nil, fmt.Errorf("%w: no %s device matches %q", none, kind, sel)
		}
		return dev, nil
	}
}

// Capture is a PortAudio input stream read with the blocking API from the
// caller's goroutine: no Go code runs in PortAudio's real-time callback
// (measured here, Go code there stalled up to 162 ms under GC), PortAudio
// buffers on the C side meanwhile.
type Capture struct {
	name      string
	rate      int
	channels  int
	stream    *portaudio.Stream
	buf       []float32 // one PortAudio buffer, interleaved
	pending   []float32 // the part of buf not yet returned
	overflows atomic.Uint64
	closeOnce sync.Once
}

// OpenCapture opens an input device: cfg.Device is "" (the default input),
// an index from Devices, or a case-insensitive substring of a device name.
// It returns an error wrapping ErrNoInputDevice when there is none.
func OpenCapture(cfg CaptureConfig) (*Capture, error) {
	paMu.Lock()
	defer paMu.Unlock()
	if err := portaudio.Initialize(); err != nil {
		return nil, fmt.Errorf("%w: PortAudio: %v", ErrNoInputDevice, err)
	}
	c, err := openLocked(cfg)
	if err != nil {
		portaudio.Terminate()
		return nil, err
	}
	return c, nil
}

func openLocked(cfg CaptureConfig) (*Capture, error) {
	if m, ok, err := monitorFor(cfg.Device); ok {
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoInputDevice, err)
		}
		return openMonitorLocked(cfg, m)
	}
	dev, err := pickDevice(cfg.Device, true)
	if err != nil {
		return nil, err
	}
	return openDeviceLocked(cfg, dev)
}

// openMonitorLocked opens monitor m through the ALSA pulse plugin's device
// ("pulse", else "default"), with PULSE_SOURCE naming m while the stream
// opens (libpulse reads it then; it is put back after).
func openMonitorLocked(cfg CaptureConfig, m Monitor) (*Capture, error) {
	dev, err := pickExact("pulse", "default")
	if err != nil {
		return nil, err
	}
	prev, had := os.LookupEnv("PULSE_SOURCE")
	os.Setenv("PULSE_SOURCE", m.Source)
	defer func() {
		if had {
			os.Setenv("PULSE_SOURCE", prev)
		} else {
			os.Unsetenv("PULSE_SOURCE")
		}
	}()
	if cfg.Rate == 0 {
		cfg.Rate = m.Rate
	}
	c, err := openDeviceLocked(cfg, dev)
	if err != nil {
		return nil, err
	}
	c.name = m.Name
	return c, nil
}

// pickExact finds the first input device named exactly one of names.
func pickExact(names ...string) (*portaudio.DeviceInfo, error) {
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("audio: list devices: %w", err)
	}
	for _, n := range names {
		for _, d := range devs {
			if d.Name == n && d.MaxInputChannels > 0 {
				return d, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: no ALSA device %q reaches the sound server (libasound2-plugins' pulse plugin)", ErrNoInputDevice, names[0])
}

func openDeviceLocked(cfg CaptureConfig, dev *portaudio.DeviceInfo) (*Capture, error) {
	var err error
	rate, ch := cfg.Rate, cfg.Channels
	if rate == 0 {
		rate = int(dev.DefaultSampleRate)
	}
	if ch == 0 {
		ch = min(2, dev.MaxInputChannels)
	}
	if ch > dev.MaxInputChannels {
		return nil, fmt.Errorf("audio: %s has %d input channels, %d asked for", dev.Name, dev.MaxInputChannels, ch)
	}
	fpb := cfg.FramesPerBuffer
	if fpb == 0 {
		fpb = max(64, rate/200) // 5 ms
	}
	c := &Capture{name: dev.Name, rate: rate, channels: ch, buf: make([]float32, fpb*ch)}
	p := portaudio.StreamParameters{
		Input:           portaudio.StreamDeviceParameters{Device: dev, Channels: ch, Latency: dev.DefaultLowInputLatency},
		SampleRate:      float64(rate),
		FramesPerBuffer: fpb,
	}
	if err := portaudio.IsFormatSupported(p, c.buf); err != nil {
		return nil, fmt.Errorf("audio: %s does not take %d Hz × %d channels (%v); it takes %s", dev.Name, rate, ch, err, rateList(ratesOf(dev, ch)))
	}
	if c.stream, err = portaudio.OpenStream(p, c.buf); err != nil {
		return nil, fmt.Errorf("audio: open %s: %w", dev.Name, err)
	}
	if err := c.stream.Start(); err != nil {
		c.stream.Close()
		return nil, fmt.Errorf("audio: start %s: %w", dev.Name, err)
	}
	return c, nil
}

func (c *Capture) Name() string      { return c.name }
func (c *Capture) SampleRate() int   { return c.rate }
func (c *Capture) Channels() int     { return c.channels }
func (c *Capture) Overflows() uint64 { return c.overflows.Load() }

// Read implements Source: it blocks in PortAudio until a buffer is there.
// An input overflow (PortAudio dropped input because it was not read in
// time) is counted, not an error.
func (c *Capture) Read(dst []float32) (int, time.Time, error) {
	if len(c.pending) == 0 {
		err := c.stream.Read()
		if errors.Is(err, portaudio.InputOverflowed) {
			c.overflows.Add(1)
		} else if err != nil {
			return 0, time.Time{}, fmt.Errorf("audio: read %s: %w", c.name, err)
		}
		c.pending = c.buf
	}
	n := min(len(dst), len(c.pending)) / c.channels * c.channels
	copy(dst, c.pending[:n])
	c.pending = c.pending[n:]
	return n / c.channels, time.Now(), nil
}

// Close aborts and closes the stream (a blocked Read returns with an error)
// and terminates this user of PortAudio, so a later open rescans devices.
func (c *Capture) Close() error {
	var err error
	c.closeOnce.Do(func() {
		paMu.Lock()
		defer paMu.Unlock()
		c.stream.Abort()
		err = c.stream.Close()
		portaudio.Terminate()
	})
	return err
}

// PortAudio is the PortAudio library this build captures with ("" in a
// build without cgo): its version text.
func PortAudio() string { return portaudio.VersionText() }

// StandardRates are the sample rates the window offers where a device
// takes them, 8 kHz to 768 kHz.
var StandardRates = []int{8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000, 352800, 384000, 705600, 768000}

// SupportedRates lists the standard rates the input device sel (as
// OpenCapture takes it; a monitor source is asked through the sound
// server's device) takes with channels channels (0: up to 2), by
// PortAudio's format check.
func SupportedRates(sel string, channels int) ([]int, error) {
	paMu.Lock()
	defer paMu.Unlock()
	if err := portaudio.Initialize(); err != nil {
		return nil, fmt.Errorf("%w: PortAudio: %v", ErrNoInputDevice, err)
	}
	defer portaudio.Terminate()
	var dev *portaudio.DeviceInfo
	var err error
	if _, ok, merr := monitorFor(sel); ok {
		if merr != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoInputDevice, merr)
		}
		dev, err = pickExact("pulse", "default")
	} else {
		dev, err = pickDevice(sel, true)
	}
	if err != nil {
		return nil, err
	}
	if channels == 0 {
		channels = min(2, dev.MaxInputChannels)
	}
	return ratesOf(dev, channels), nil
}

// ratesOf is the standard rates dev takes with ch input channels.
func ratesOf(dev *portaudio.DeviceInfo, ch int) []int {
	var rates []int
	for _, r := range StandardRates {
		p := portaudio.StreamParameters{
			Input:      portaudio.StreamDeviceParameters{Device: dev, Channels: ch, Latency: dev.DefaultLowInputLatency},
			SampleRate: float64(r),
		}
		if portaudio.IsFormatSupported(p, make([]float32, ch)) == nil {
			rates = append(rates, r)
		}
	}
	return rates
}

// rateList writes rates for a message: "no standard rate" or "8000, …, 192000 Hz".
func rateList(rates []int) string {
	if len(rates) == 0 {
		return "no standard rate"
	}
	s := make([]string, len(rates))
	for i, r := range rates {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ", ") + " Hz"
}
