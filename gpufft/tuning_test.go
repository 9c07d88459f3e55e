package gpufft

import (
	"reflect"
	"strings"
	"testing"
)

// TestTuningFromEnv: every variable lands in its field, unset ones leave
// the zero value (every default), and set but invalid ones are ignored
// and named in the error, as the engine always ignored them.
func TestTuningFromEnv(t *testing.T) {
	vars := map[string]string{
		"PRISM_OPENCL_RADIX": "16", "PRISM_OPENCL_PASS_RADIX": "8", "PRISM_OPENCL_GROUP": "256",
		"PRISM_OPENCL_SINGLE_MAX": "1024", "PRISM_OPENCL_HALVES_MAX": "0", "PRISM_OPENCL_FPG": "4",
		"PRISM_OPENCL_PERSIST": "2", "PRISM_OPENCL_R2C_HALVES": "1", "PRISM_OPENCL_STAGE_ST": "1",
		"PRISM_OPENCL_STHINT": "0", "PRISM_OPENCL_P1ST": "1", "PRISM_OPENCL_P2REV": "0",
		"PRISM_OPENCL_SMALL_A": "1", "PRISM_OPENCL_SLOTFAST": "0", "PRISM_OPENCL_PLAN_QUEUE": "1",
		"PRISM_OPENCL_TUNE": " XCH_F2=0, ,PAD_BASE=1", "PRISM_OPENCL_OPTIONS": "-cl-nv-verbose",
		"PRISM_OPENCL_BUILDLOG": "yes", "PRISM_OPENCL_DUMP": "/tmp/d",
	}
	for k := range vars {
		t.Setenv(k, "")
	}
	if got, err := TuningFromEnv(); err != nil || !reflect.DeepEqual(got, Tuning{}) {
		t.Fatalf("nothing set: %+v, %v; want the zero Tuning", got, err)
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	zero, two := 0, 2
	want := Tuning{Radix: 16, PassRadix: 8, GroupThreads: 256, SingleMax: 1024, HalvesMax: &zero, FramesPerGroup: 4,
		Persist: &two, R2CHalves: SwitchOn, StageStores: SwitchOn, StoreHint: SwitchOff, Pass1Hint: SwitchOn,
		Pass2Reverse: SwitchOff, SmallFirstPass: true, StagedPass1: true, PlanQueue: SwitchOn,
		Defines: []string{"XCH_F2=0", "PAD_BASE=1"}, CompilerOptions: "-cl-nv-verbose", BuildLog: true, DumpDir: "/tmp/d"}
	if got, err := TuningFromEnv(); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v\nwant %+v", got, err, want)
	}
	bad := map[string]string{"PRISM_OPENCL_RADIX": "12", "PRISM_OPENCL_FPG": "0", "PRISM_OPENCL_PERSIST": "65",
		"PRISM_OPENCL_GROUP": "x", "PRISM_OPENCL_P2REV": "yes"}
	for k, v := range bad {
		t.Setenv(k, v)
	}
	got, err := TuningFromEnv()
	if got.Radix != 0 || got.FramesPerGroup != 0 || got.Persist != nil || got.GroupThreads != 0 || got.Pass2Reverse != SwitchAuto {
		t.Errorf("invalid values taken: %+v", got)
	}
	if got.PassRadix != 8 || got.SingleMax != 1024 {
		t.Errorf("valid values lost beside invalid ones: %+v", got)
	}
	for k := range bad {
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("error %v does not name %s", err, k)
		}
	}
}

// TestPlansIgnoreEnvironment: plan code follows the engine's Tuning, not
// the variables set after it opened.
func TestPlansIgnoreEnvironment(t *testing.T) {
	t.Setenv("PRISM_OPENCL_PERSIST", "3")
	t.Setenv("PRISM_OPENCL_P2REV", "0")
	t.Setenv("PRISM_OPENCL_FPG", "8")
	e := &OpenCL{info: DeviceInfo{Type: "GPU"}} // zero Tuning: the defaults
	if got := e.persistGroups(geom{len: 8192, radix: 32, s: 1}, "fft_r2c"); got != 1 {
		t.Errorf("persistGroups %d, want the default 1", got)
	}
	if got := e.passDefines(false, 256, true); got[0] != "P2_REV=1" {
		t.Errorf("passDefines %v, want the default P2_REV=1", got)
	}
	if got := e.framesPerGroup(); got != 1 {
		t.Errorf("framesPerGroup %d, want the default 1", got)
	}
	e.tuning.FramesPerGroup = 2
	if got := e.framesPerGroup(); got != 2 {
		t.Errorf("framesPerGroup %d with Tuning.FramesPerGroup 2", got)
	}
}
