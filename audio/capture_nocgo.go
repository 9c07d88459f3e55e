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
