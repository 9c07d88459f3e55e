package gpufft

import (
	"errors"
	"strings"
	"testing"
)

// TestCapRegisters: the PTX patch puts ".maxnreg N" between each entry's
// parameters and its body (and nowhere else), leaves non-PTX binaries
// alone, and regCap reads the define from build options only as a whole
// define.
func TestCapRegisters(t *testing.T) {
	ptx := ".version 8.4\n.target sm_90\n.func (.reg .f32 r) helper(\n.param .f32 a\n)\n{\nret;\n}\n" +
		".visible .entry fft_r2c(\n\t.param .u64 src,\n\t.param .u32 count\n)\n.reqntid 256, 1, 1\n{\n\tret;\n}\n" +
		".visible .entry fft_c2r(\n\t.param .u64 src\n)\n{\n\tret;\n}\n"
	got, ok := capRegisters([]byte(ptx), ".maxnreg 96\n")
	if !ok {
		t.Fatal("PTX not recognized")
	}
	want := strings.Replace(ptx, ".reqntid 256, 1, 1\n{", ".reqntid 256, 1, 1\n.maxnreg 96\n{", 1)
	want = strings.Replace(want, "\t.param .u64 src\n)\n{", "\t.param .u64 src\n)\n.maxnreg 96\n{", 1)
	if string(got) != want {
		t.Errorf("patched PTX:\n%s\nwant:\n%s", got, want)
	}
	if strings.Count(string(got), ".maxnreg") != 2 {
		t.Errorf("%d directives, want one per entry (2)", strings.Count(string(got), ".maxnreg"))
	}
	for _, bin := range []string{"\x7fELF\x02\x01 pocl binary", ".version 8.4\n.target sm_90\n", ".version 8.4\n.entry k(\n)\n"} {
		if out, ok := capRegisters([]byte(bin), ".maxnreg 96\n"); ok {
			t.Errorf("%q patched as PTX: %q", bin, out)
		}
	}
	for opts, want := range map[string]int{
		"-cl-std=CL1.2 -D LEN=512 -D NV_MAXNREG=128 -D S=8": 128,
		"-cl-std=CL1.2 -D LEN=512 -D NV_MAXNREG=96":         96,
		"-cl-std=CL1.2 -D LEN=512 -D X_NV_MAXNREG=96":       0,
		"-cl-std=CL1.2 -D LEN=512":                          0,
	} {
		if got := regCap(opts); got != want {
			t.Errorf("regCap(%q) = %d, want %d", opts, got, want)
		}
	}
	for opts, want := range map[string]string{
		"-D LEN=512 -D NV_MAXNREG=128 -D NV_MINCTAS=2": ".maxnreg 128\n.minnctapersm 2\n",
		"-D NV_MINCTAS=3 -D S=8":                       ".minnctapersm 3\n",
		"-D LEN=512":                                   "",
	} {
		if got, err := ptxDirectives(opts); got != want || err != nil {
			t.Errorf("ptxDirectives(%q) = %q, %v; want %q", opts, got, err, want)
		}
	}
	for _, opts := range []string{"-D NV_MAXNREG=8", "-D NV_MAXNREG=256", "-D NV_MINCTAS=33"} {
		if _, err := ptxDirectives(opts); !errors.Is(err, ErrInvalid) {
			t.Errorf("ptxDirectives(%q): %v, want ErrInvalid", opts, err)
		}
	}
}
