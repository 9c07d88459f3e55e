package gpufft

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// ProbeResult is what a probe reports: every device, and which one
// NewOpenCL with the probe's options opens (−1 with Err when none does).
type ProbeResult struct {
	Devices  []DeviceInfo `json:"devices"`
	Selected int          `json:"selected"`
	Err      string       `json:"error,omitempty"`
}

// WriteProbe is the child side of a crash-safe OpenCL check. It does what
// NewOpenCL does up to a usable queue (load the library, list every
// device, open the selected one) and writes a ProbeResult as one JSON line
// to w. A driver that crashes or hangs in here takes only the probing
// process down; the parent (ReadProbe) sees that and falls back to the
// CPU. The program's only job in such a child is to call WriteProbe and
// exit 0 (an OpenCL error is reported in the result, not in the status).
func WriteProbe(w io.Writer, opts OpenCLOptions) error {
	res := ProbeResult{Selected: -1}
	lib, err := loadLib(opts.Libraries)
	if err == nil {
		res.Devices, err = listDevices(lib)
	}
	var e *OpenCL
	if err == nil {
		if e, err = NewOpenCL(opts); err == nil {
			res.Selected = e.info.Index
		}
	}
	if err != nil {
		res.Err = err.Error()
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n')) // before the engine's release: the parent goes on once it reads this
	if e != nil {
		e.Close()
	}
	return err
}

// ErrProbe wraps a probe that did not report: the child crashed (a
// segfaulting driver), was killed or timed out, or wrote no result. It
// also wraps ErrNoOpenCL, so callers treat it as "no OpenCL".
var ErrProbe = fmt.Errorf("%w: the OpenCL probe failed", ErrNoOpenCL)

// ReadProbe runs cmd, a child process whose only job is WriteProbe (for
// Prism, its own executable with a hidden subcommand), and returns its
// result. Cancel ctx (or give it a deadline) to bound a hanging driver;
// cmd must have been made with exec.CommandContext(ctx, …) for that.
// A child that dies or reports nothing gives an error wrapping ErrProbe
// (and so ErrNoOpenCL) that says how it died; a probe that ran but found
// no usable device gives the result and an error wrapping ErrNoOpenCL.
//
// With $PRISM_PROBE_NOWAIT=1, a result that reads well is returned as
// soon as it is read: the child's own end (its engine's release and its
// exit, 110–140 ms of driver teardown on NVIDIA) goes on beside the
// caller's start-up, and the child is reaped on a goroutine; only a child
// that reports nothing is waited for, to say how it died. Not the
// default: measured only on PoCL (2 cores), where the child's teardown is
// cheap and a first run took the same time either way (medians of 9,
// 0.618 s against 0.620); the H200's first run with an empty program
// cache (0.737–0.752 s, of which the probe about 0.34 s) is where it may
// pay.
func ReadProbe(ctx context.Context, cmd *exec.Cmd) (ProbeResult, error) {
	var errOut bytes.Buffer // the child's stderr: read only after Wait
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return ProbeResult{Selected: -1}, fmt.Errorf("%w: %v", ErrProbe, err)
	}
	if err := cmd.Start(); err != nil {
		return ProbeResult{Selected: -1}, fmt.Errorf("%w: %v", ErrProbe, err)
	}
	line, readErr := bufio.NewReader(io.LimitReader(stdout, 1<<20)).ReadBytes('\n')
	var res ProbeResult
	parsed := readErr == nil && json.Unmarshal(line, &res) == nil
	if parsed && ctx.Err() == nil && envProbeNoWait() {
		go func() { // reap the child once it has ended
			io.Copy(io.Discard, stdout)
			cmd.Wait()
		}()
		return checkProbe(res)
	}
	io.Copy(io.Discard, stdout) // every read is done before Wait
	runErr := cmd.Wait()
	if ctx.Err() != nil {
		return ProbeResult{Selected: -1}, fmt.Errorf("%w: %v", ErrProbe, ctx.Err())
	}
	if runErr != nil || !parsed {
		why := "no result"
		var ee *exec.ExitError
		switch {
		case errors.As(runErr, &ee):
			why = ee.ProcessState.String() // e.g. "signal: segmentation fault"
		case runErr != nil:
			why = runErr.Error()
		}
		if tail := strings.TrimSpace(errOut.String()); tail != "" {
			why += ": " + firstLine(tail)
		}
		return ProbeResult{Selected: -1}, fmt.Errorf("%w: %s", ErrProbe, why)
	}
	return checkProbe(res)
}

// checkProbe is the error of a probe that reported res.
func checkProbe(res ProbeResult) (ProbeResult, error) {
	if res.Err != "" {
		return res, fmt.Errorf("%w: %s", ErrNoOpenCL, res.Err)
	}
	if res.Selected < 0 || res.Selected >= len(res.Devices) {
		return res, fmt.Errorf("%w: probe selected device %d of %d", ErrProbe, res.Selected, len(res.Devices))
	}
	return res, nil
}

// firstLine is where a Go crash says what happened ("fatal error:
// unexpected signal during runtime execution").
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
