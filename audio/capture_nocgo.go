//go:build !cgo

package audio

import "fmt"

// Devices reports that this build has no PortAudio (CGO_ENABLED=0 builds,
// such as the GPU-machine bench binary).
func Devices() ([]DeviceInfo, error) {
	return nil, fmt.Errorf("%w: built without cgo, so without PortAudio", ErrNoInputDevice)
}

// OpenCapture reports that this build has no PortAudio.
func OpenCapture(cfg CaptureConfig) (Source, error) {
	return nil, fmt.Errorf("%w: built without cgo, so without PortAudio", ErrNoInputDevice)
}

// Playback is not available without PortAudio.
type Playback struct{}

// OpenPlayback reports that this build has no PortAudio.
func OpenPlayback(cfg PlaybackConfig) (*Playback, error) {
	return nil, fmt.Errorf("%w: built without cgo, so without PortAudio", ErrNoOutputDevice)
}

func (p *Playback) Name() string          { return "" }
func (p *Playback) SampleRate() int       { return 0 }
func (p *Playback) Channels() int         { return 0 }
func (p *Playback) Underflows() uint64    { return 0 }
func (p *Playback) Queued() int           { return 0 }
func (p *Playback) Write([]float32) error { return ErrNoOutputDevice }
func (p *Playback) Close() error          { return nil }

// PortAudio is "" in a build without cgo: there is no PortAudio.
func PortAudio() string { return "" }

// StandardRates are the sample rates the window offers where a device
// takes them, 8 kHz to 768 kHz.
var StandardRates = []int{8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000, 352800, 384000, 705600, 768000}

// SupportedRates reports that this build has no PortAudio.
func SupportedRates(sel string, channels int) ([]int, error) {
	return nil, fmt.Errorf("%w: built without cgo, so without PortAudio", ErrNoInputDevice)
}
