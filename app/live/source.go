package live

import (
	"errors"
	"fmt"

	"github.com/prismaudio/prism/audio"
)

// DefaultGenerator is the source used when there is no input device.
const DefaultGenerator = "sine:1000:-6"

// OpenSource returns a recorder's source opener: the generator when spec
// is set, else the capture device, else (no device at all, a normal
// state) the default generator with a notice saying so. rate and channels
// 0 take the device's (the generator's: 48000 Hz, 2 channels). The source
// is opened once here to check it, then closed.
func OpenSource(device string, rate, channels int, spec string) (func() (audio.Source, error), string, error) {
	if spec != "" {
		open, err := generatorSource(spec, rate, channels)
		return open, "", err
	}
	cfg := audio.CaptureConfig{Device: device, Rate: rate, Channels: channels}
	src, err := audio.OpenCapture(cfg)
	if err == nil {
		src.Close()
		return func() (audio.Source, error) { return audio.OpenCapture(cfg) }, "", nil
	}
	if device != "" || !errors.Is(err, audio.ErrNoInputDevice) {
		return nil, "", err
	}
	open, gerr := generatorSource(DefaultGenerator, rate, channels)
	return open, fmt.Sprintf("%v: using the generator %s", err, DefaultGenerator), gerr
}

func generatorSource(spec string, rate, channels int) (func() (audio.Source, error), error) {
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		return nil, err
	}
	if rate == 0 {
		rate = 48000
	}
	if channels == 0 {
		channels = 2
	}
	if _, err := audio.NewGenerator(gs, rate, channels, true); err != nil {
		return nil, err
	}
	return func() (audio.Source, error) { return audio.NewGenerator(gs, rate, channels, true) }, nil
}

// ErrIncomplete says a capture ended at its deadline with less than the
// time asked for: the source stopped delivering (an outage to the end), or
// the analysis fell too far behind a source that kept delivering; the
// error wrapping it says which. What was captured is written, the rest of
// the timeline as gap rows.
var ErrIncomplete = errors.New("incomplete")
