package audio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Monitor sources: what an output of the sound server (PulseAudio, or
// PipeWire's PulseAudio server) plays, captured as an input. PortAudio
// reaches the server through ALSA's pulse plugin, one device for every
// source; which source it records is chosen by the PULSE_SOURCE
// variable, which libpulse reads when the stream is opened. The server's
// outputs and their monitors are listed by pactl (pulseaudio-utils; also
// what PipeWire's pulse server answers), as JSON.

// Monitor is the monitor source of one output.
type Monitor struct {
	Source  string `json:"source"`  // the server's name of the source, e.g. "alsa_output.pci-0000_00_1f.3.analog-stereo.monitor"
	Name    string `json:"name"`    // "Monitor of " and the output's description: what the source menu shows
	Rate    int    `json:"rate"`    // the output's sample rate, Hz
	Default bool   `json:"default"` // it monitors the default output
}

// MonitorDevice is the --device value for the default output's monitor.
const MonitorDevice = "monitor"

// monitorPrefix begins every monitor's name.
const monitorPrefix = "Monitor of "

// pactl runs the sound server's control client (a variable for tests).
var pactl = func(ctx context.Context, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, "pactl", args...).Output()
}

// Monitors lists the sound server's outputs' monitor sources, the default
// output's first. Without a server (or pactl) it says why.
func Monitors() ([]Monitor, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := pactl(ctx, "--format=json", "list", "sinks")
	if err != nil {
		return nil, fmt.Errorf("audio: monitor sources: no PulseAudio or PipeWire server answered pactl: %w", err)
	}
	var sinks []struct {
		Name          string `json:"name"`
		Description   string `json:"description"`
		MonitorSource string `json:"monitor_source"`
		Spec          string `json:"sample_specification"`
	}
	if err := json.Unmarshal(out, &sinks); err != nil {
		return nil, fmt.Errorf("audio: monitor sources: pactl's list of outputs: %w", err)
	}
	def, _ := pactl(ctx, "get-default-sink")
	defName := strings.TrimSpace(string(def))
	var mons []Monitor
	for _, s := range sinks {
		if s.MonitorSource == "" {
			continue
		}
		desc := s.Description
		if desc == "" {
			desc = s.Name
		}
		m := Monitor{Source: s.MonitorSource, Name: monitorPrefix + desc, Rate: specRate(s.Spec), Default: s.Name == defName}
		if m.Default {
			mons = append([]Monitor{m}, mons...)
		} else {
			mons = append(mons, m)
		}
	}
	return mons, nil
}

// specRate reads the rate of a sample specification such as
// "s16le 2ch 48000Hz" (0 if there is none).
func specRate(spec string) int {
	for _, f := range strings.Fields(spec) {
		if r, ok := strings.CutSuffix(f, "Hz"); ok {
			if n, err := strconv.Atoi(r); err == nil {
				return n
			}
		}
	}
	return 0
}

// monitorFor says whether a --device value names a monitor source —
// "monitor" (the default output's) or a case-insensitive part of a
// monitor's name that begins with "monitor of" — and which.
func monitorFor(sel string) (Monitor, bool, error) {
	s := strings.ToLower(strings.TrimSpace(sel))
	if s != MonitorDevice && !strings.HasPrefix(s, strings.ToLower(monitorPrefix)) {
		return Monitor{}, false, nil
	}
	mons, err := Monitors()
	if err != nil {
		return Monitor{}, true, err
	}
	for _, m := range mons {
		if (s == MonitorDevice && m.Default) || (s != MonitorDevice && strings.Contains(strings.ToLower(m.Name), s)) {
			return m, true, nil
		}
	}
	if s == MonitorDevice {
		return Monitor{}, true, errors.New("audio: the sound server has no default output to monitor")
	}
	names := make([]string, len(mons))
	for i, m := range mons {
		names[i] = strconv.Quote(m.Name)
	}
	return Monitor{}, true, fmt.Errorf("audio: no monitor source matches %q (there are %s)", sel, strings.Join(names, ", "))
}
