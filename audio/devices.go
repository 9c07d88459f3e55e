package audio

import (
	"errors"
	"time"
)

// ErrNoInputDevice: no sound server, no input device, or none matching the
// choice. A normal state for Prism: it says so and uses the generator.
var ErrNoInputDevice = errors.New("audio: no input device")

// ErrNoOutputDevice: no sound server, no output device, or none matching
// the choice. The monitor output then stays off and says so.
var ErrNoOutputDevice = errors.New("audio: no output device")

// PlaybackConfig chooses and configures an output device.
type PlaybackConfig struct {
	Device          string // "", an index, or a name substring
	Rate            int    // Hz, required
	Channels        int    // required
	FramesPerBuffer int    // 0: 10 ms
}

// DeviceInfo describes an audio device as PortAudio reports it.
type DeviceInfo struct {
	Index             int
	Name              string
	HostAPI           string
	MaxInputChannels  int
	MaxOutputChannels int
	DefaultRate       float64
	LowLatency        time.Duration // default low input latency
	HighLatency       time.Duration
	DefaultInput      bool
}

// CaptureConfig chooses and configures an input device.
type CaptureConfig struct {
	Device          string // "", an index, or a name substring
	Rate            int    // Hz; 0: the device's default
	Channels        int    // 0: up to 2
	FramesPerBuffer int    // 0: 5 ms
}
