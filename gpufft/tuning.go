package gpufft

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// This file is the one place gpufft reads the process environment: the
// tuning knobs (TuningFromEnv), the device and library choice, the program
// cache's directory and what names the OpenCL installation. Plan code
// reads none of it: an OpenCL engine takes its Tuning when it opens, so a
// plan is a function of the device, the options and the tuning alone.

// Switch is a tuning choice a plan may be forced into: SwitchAuto leaves it
// to the engine's rule for the device and plan.
type Switch int8

const (
	SwitchAuto Switch = iota // the engine's rule
	SwitchOff                // forced off ("0")
	SwitchOn                 // forced on ("1")
)

func (s Switch) String() string {
	switch s {
	case SwitchOff:
		return "off"
	case SwitchOn:
		return "on"
	}
	return "auto"
}

// MarshalText writes "auto", "off" or "on" (`prism devices --json`).
func (s Switch) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// or is the switch's value with def as the engine's rule.
func (s Switch) or(def bool) bool {
	if s == SwitchAuto {
		return def
	}
	return s == SwitchOn
}

// Tuning is the OpenCL engine's tuning: aids for measuring kernel variants
// on new hardware with `prism bench` (the defaults were measured on an
// H200 and on PoCL; docs/gpufft-experiments.md has the numbers). The zero
// value is every default. Each field names the environment variable
// clone is t with nothing shared with t.
func (t Tuning) clone() Tuning {
	t.Defines = slices.Clone(t.Defines)
	if t.HalvesMax != nil {
		t.HalvesMax = new(*t.HalvesMax)
	}
	if t.Persist != nil {
		t.Persist = new(*t.Persist)
	}
	return t
}

// TuningFromEnv reads it from; the engine takes it when it opens
// (OpenCLOptions.Tuning), and plans read nothing else.
type Tuning struct {
	// Radix of the single-pass kernels: 4, 8, 16 or 32; 0 chooses per
	// length. PRISM_OPENCL_RADIX.
	Radix int `json:"radix"`
	// PassRadix of four-step passes below 1024 points: 8, 16 or 32; 0:
	// passGeom's choice. PRISM_OPENCL_PASS_RADIX.
	PassRadix int `json:"pass_radix"`
	// GroupThreads is the work-items a single-pass group aims for (several
	// short transforms share a group up to it): 32…1024; 0: 128.
	// PRISM_OPENCL_GROUP.
	GroupThreads int `json:"group_threads"`
	// SingleMax is the largest single-pass transform, complex points:
	// 16…8192; 0: 8192 (4096 on CPU devices). PRISM_OPENCL_SINGLE_MAX.
	SingleMax int `json:"single_max"`
	// HalvesMax is the largest complex transform done in one group with
	// half of one component in local memory at a time: 0…16384 (0: none);
	// nil: 16384 (none on CPU devices). PRISM_OPENCL_HALVES_MAX.
	HalvesMax *int `json:"halves_max"`
	// FramesPerGroup is the overlapping frames one single-pass spectrogram
	// group does in turn (FPG): 1…64; 0: 1. PRISM_OPENCL_FPG.
	FramesPerGroup int `json:"frames_per_group"`
	// Persist is the groups per compute unit of C2C, R2C and C2R kernels
	// that loop over their transforms: 0…64 (0: none); nil: persistGroups's
	// rule. PRISM_OPENCL_PERSIST.
	Persist *int `json:"persist"`
	// R2CHalves: R2C kernels that keep one component in local memory
	// exchange in halves instead (r2cGeom). PRISM_OPENCL_R2C_HALVES (0/1).
	R2CHalves Switch `json:"r2c_halves"`
	// StageStores: single-pass kernels stage one row's stores through
	// local memory (STAGE_ST, storeDefines). PRISM_OPENCL_STAGE_ST (0/1).
	StageStores Switch `json:"stage_stores"`
	// StoreHint: single-pass kernels store evict-first (STHINT,
	// storeDefines). PRISM_OPENCL_STHINT (0/1).
	StoreHint Switch `json:"store_hint"`
	// Pass1Hint: four-step pass 1 stores evict-first (P1_ST, passDefines).
	// PRISM_OPENCL_P1ST (0/1).
	Pass1Hint Switch `json:"pass1_hint"`
	// Pass2Reverse: four-step pass 2 takes its groups in reverse order
	// (P2_REV, passDefines). PRISM_OPENCL_P2REV (0/1).
	Pass2Reverse Switch `json:"pass2_reverse"`
	// SmallFirstPass: complex four-step plans split with the smaller second
	// pass, as real plans do (fourStepSplit). PRISM_OPENCL_SMALL_A=1.
	SmallFirstPass bool `json:"small_first_pass"`
	// StagedPass1: four-step pass 1 staged through local memory instead of
	// slot-fastest (SLOT_FAST=0, slotFast). PRISM_OPENCL_SLOTFAST=0.
	StagedPass1 bool `json:"staged_pass1"`
	// PlanQueue: each PCM plan enqueues on a queue of its own
	// (planQueues). PRISM_OPENCL_PLAN_QUEUE (0/1).
	PlanQueue Switch `json:"plan_queue"`
	// Defines are extra kernel defines (NAME or NAME=VALUE) added to every
	// FFT kernel build and the live post-processing's, e.g. XCH_F2=0,
	// NV_MAXNREG=128 (ptxcap.go) or PRISM_FLOAT_SUMS. PRISM_OPENCL_TUNE
	// (comma-separated).
	Defines []string `json:"defines"`
	// CompilerOptions are added to every build, e.g. -cl-nv-verbose.
	// PRISM_OPENCL_OPTIONS.
	CompilerOptions string `json:"compiler_options"`
	// BuildLog prints every build log on stderr where OpenCLOptions.BuildLog
	// is nil. PRISM_OPENCL_BUILDLOG (any value).
	BuildLog bool `json:"build_log"`
	// DumpDir is a directory for the device binaries (NVIDIA: PTX); "":
	// none. PRISM_OPENCL_DUMP.
	DumpDir string `json:"dump_dir"`
}

// TuningFromEnv reads the tuning from the environment (the variables are
// named at Tuning's fields). A variable that is set but out of range or
// malformed is left at its default, as the engine has always done, and
// named in the error; the Tuning is complete either way.
func TuningFromEnv() (Tuning, error) {
	var t Tuning
	var errs []error
	intVar := func(name string, ok func(int) bool) (int, bool) {
		s := os.Getenv(name)
		if s == "" {
			return 0, false
		}
		v, err := strconv.Atoi(s)
		if err != nil || !ok(v) {
			errs = append(errs, fmt.Errorf("gpufft: %s=%q out of range, ignored", name, s))
			return 0, false
		}
		return v, true
	}
	in := func(lo, hi int) func(int) bool { return func(v int) bool { return v >= lo && v <= hi } }
	switchVar := func(name string) Switch {
		switch s := os.Getenv(name); s {
		case "":
		case "0":
			return SwitchOff
		case "1":
			return SwitchOn
		default:
			errs = append(errs, fmt.Errorf("gpufft: %s=%q is not 0 or 1, ignored", name, s))
		}
		return SwitchAuto
	}
	t.Radix, _ = intVar("PRISM_OPENCL_RADIX", func(r int) bool { return r == 4 || r == 8 || r == 16 || r == 32 })
	t.PassRadix, _ = intVar("PRISM_OPENCL_PASS_RADIX", func(r int) bool { return r == 8 || r == 16 || r == 32 })
	t.GroupThreads, _ = intVar("PRISM_OPENCL_GROUP", in(32, 1024))
	t.SingleMax, _ = intVar("PRISM_OPENCL_SINGLE_MAX", in(16, maxSingle))
	if v, ok := intVar("PRISM_OPENCL_HALVES_MAX", in(0, 2*maxSingle)); ok {
		t.HalvesMax = &v
	}
	t.FramesPerGroup, _ = intVar("PRISM_OPENCL_FPG", in(1, 64))
	if v, ok := intVar("PRISM_OPENCL_PERSIST", in(0, 64)); ok {
		t.Persist = &v
	}
	t.R2CHalves = switchVar("PRISM_OPENCL_R2C_HALVES")
	t.StageStores = switchVar("PRISM_OPENCL_STAGE_ST")
	t.StoreHint = switchVar("PRISM_OPENCL_STHINT")
	t.Pass1Hint = switchVar("PRISM_OPENCL_P1ST")
	t.Pass2Reverse = switchVar("PRISM_OPENCL_P2REV")
	t.PlanQueue = switchVar("PRISM_OPENCL_PLAN_QUEUE")
	t.SmallFirstPass = os.Getenv("PRISM_OPENCL_SMALL_A") == "1"
	t.StagedPass1 = os.Getenv("PRISM_OPENCL_SLOTFAST") == "0"
	for _, d := range strings.Split(os.Getenv("PRISM_OPENCL_TUNE"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			t.Defines = append(t.Defines, d)
		}
	}
	t.CompilerOptions = os.Getenv("PRISM_OPENCL_OPTIONS")
	t.BuildLog = os.Getenv("PRISM_OPENCL_BUILDLOG") != ""
	t.DumpDir = os.Getenv("PRISM_OPENCL_DUMP")
	return t, errors.Join(errs...)
}

// envDevice is $PRISM_OPENCL_DEVICE, the device selector where the caller
// names none (OpenCLOptions.Device).
func envDevice() string { return os.Getenv(EnvDevice) }

// envLibraries is $PRISM_OPENCL_LIBRARY split into the library paths to
// try, or nil for the system's.
func envLibraries() []string {
	if env := os.Getenv(EnvLibrary); env != "" {
		return filepath.SplitList(env)
	}
	return nil
}

// envCacheDir is $PRISM_OPENCL_CACHE (see progcache.go).
func envCacheDir() string { return os.Getenv(EnvCacheDir) }

// envProbeNoWait is $PRISM_PROBE_NOWAIT=1: ReadProbe returns on the
// child's answer without waiting for its exit.
func envProbeNoWait() bool { return os.Getenv("PRISM_PROBE_NOWAIT") == "1" }

// envInstall returns the value of each of probeEnv's variables, in order:
// the part of the environment that decides which OpenCL library and
// driver a process loads (ProbeFingerprint).
func envInstall() []string {
	v := make([]string, len(probeEnv))
	for i, k := range probeEnv {
		v[i] = os.Getenv(k)
	}
	return v
}
