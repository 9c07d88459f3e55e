// Package devicescmd is `prism devices`: the OpenCL devices, the audio
// devices and the monitor sources a capture can name, as text or JSON.
package devicescmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Run is `prism devices [--json]`.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("devices", "", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := kit.Parse(fs, args, stderr); !ok {
		return code
	}
	devs, err := gpufft.Devices()
	adevs, aerr := audio.Devices()
	mons, merr := audio.Monitors()
	if *asJSON {
		tuning, terr := gpufft.TuningFromEnv()
		out := struct {
			OpenCL      []gpufft.DeviceInfo `json:"opencl"`
			OpenCLError string              `json:"opencl_error,omitempty"`
			Audio       []audio.DeviceInfo  `json:"audio"`
			AudioError  string              `json:"audio_error,omitempty"`
			// the sound server's outputs' monitor sources (--device monitor)
			Monitors     []audio.Monitor `json:"monitors"`
			MonitorError string          `json:"monitor_error,omitempty"`
			// the OpenCL engine's tuning in effect (its environment variables)
			Tuning      gpufft.Tuning `json:"tuning"`
			TuningError string        `json:"tuning_error,omitempty"`
		}{OpenCL: devs, Audio: adevs, Monitors: mons, Tuning: tuning}
		if err != nil {
			out.OpenCLError = err.Error()
		}
		if terr != nil {
			out.TuningError = terr.Error()
		}
		if aerr != nil {
			out.AudioError = aerr.Error()
		}
		if merr != nil {
			out.MonitorError = merr.Error()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return kit.ExitOK
	}
	fmt.Fprintln(stdout, "OpenCL devices:")
	switch {
	case err != nil:
		fmt.Fprintf(stdout, "  none: %v (the CPU engine is used)\n", err)
	case len(devs) == 0:
		fmt.Fprintln(stdout, "  none: the OpenCL library reports no platform (the CPU engine is used)")
	default:
		def, _ := gpufft.SelectDevice(devs, os.Getenv(gpufft.EnvDevice))
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\ttype\tname\tplatform\tversion\tunits\tlocal mem\tmax group\tglobal mem\t")
		for _, d := range devs {
			mark := " "
			if d.Index == def.Index {
				mark = "*"
			}
			fmt.Fprintf(tw, "%s %d\t%s\t%s\t%s\t%s\t%d\t%d KiB\t%d\t%.1f GiB\t\n", mark, d.Index, d.Type, d.Name, d.Platform,
				d.Version, d.ComputeUnits, d.LocalMemBytes>>10, d.MaxWorkGroupSize, float64(d.GlobalMemBytes)/(1<<30))
		}
		tw.Flush()
		fmt.Fprintf(stdout, "  * default (choose with --device or %s: index or name)\n", gpufft.EnvDevice)
	}
	printAudioDevices(stdout, adevs, aerr)
	printMonitors(stdout, mons, merr)
	return kit.ExitOK
}

func printAudioDevices(w io.Writer, devs []audio.DeviceInfo, err error) {
	fmt.Fprintln(w, "\nAudio devices:")
	inputs := 0
	for _, d := range devs {
		if d.MaxInputChannels > 0 {
			inputs++
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(w, "  none: %v (the signal generator is used)\n", err)
		return
	case inputs == 0:
		fmt.Fprintf(w, "  no input device (%d devices, no sound server or no inputs): the signal generator is used\n", len(devs))
	}
	if len(devs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  #	name	host API	in	out	rate	latency low/high	")
	for _, d := range devs {
		mark := " "
		if d.DefaultInput {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %d	%s	%s	%d	%d	%.0f Hz	%v / %v	\n", mark, d.Index, d.Name, d.HostAPI, d.MaxInputChannels,
			d.MaxOutputChannels, d.DefaultRate, d.LowLatency.Round(100*time.Microsecond), d.HighLatency.Round(100*time.Microsecond))
	}
	tw.Flush()
	fmt.Fprintln(w, "  * default input (choose with prism capture --device: index or name)")
}

// printMonitors lists the sound server's monitor sources: what each
// output plays, captured by --device with its name (the default output's
// also by --device monitor).
func printMonitors(w io.Writer, mons []audio.Monitor, err error) {
	fmt.Fprintln(w, "\nMonitor sources (what an output plays; --device NAME):")
	if err != nil {
		fmt.Fprintf(w, "  none: %v\n", err)
		return
	}
	if len(mons) == 0 {
		fmt.Fprintln(w, "  none: the sound server has no outputs")
	}
	for _, m := range mons {
		note := ""
		if m.Default {
			note = "   (the default output's: --device monitor)"
		}
		fmt.Fprintf(w, "  %s, %d Hz%s\n", m.Name, m.Rate, note)
	}
}
