package audio

import (
	"errors"
	"time"
)

// ErrNoInputDevice: no sound server, no input device, or none matching the
// choice. A normal state for Prism: it says so and uses the generator.
var ErrNoInputDevice = errors.New("audio: no input device")

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
