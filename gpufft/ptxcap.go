package gpufft

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"github.com/prismaudio/prism/gpufft/internal/cl"
)

// A register cap for NVIDIA's OpenCL, which has no working option for one
// (doc.go): the define NV_MAXNREG=N on a program makes build rebuild it
// from its PTX with ".maxnreg N" added to every kernel entry, so that more
// work-groups fit a compute unit's registers. The kernels never read the
// define; a device whose binary is no PTX (PoCL) builds the program as
// if it were absent. The patched PTX is what the program cache keeps.
// A tuning aid (PRISM_OPENCL_TUNE=NV_MAXNREG=N); no default uses it.
// NV_MINCTAS=K likewise adds ".minnctapersm K" (CUDA's launch bounds: at
// least K work-groups resident per multiprocessor, the register budget
// ptxas then derives from the group size given by .reqntid).
//
// Measured on the H200 and dropped (`prism bench`, 2^26 samples, two
// alternating rounds, host-timed; registers uncapped / capped, ptxas):
// R2C 1024 (151 registers, 3 groups of 128 items per SM) 0.142 ms, at
// 128 0.145-0.146, at 96 (272 bytes spilled) 0.215-0.223, at 80 0.355;
// C2C 1024 (93) at 80 0.154-0.155 against 0.143; R2C 4096 (71) at 64
// 0.149-0.157 against 0.148, at 56 0.191-0.195; C2C 4096 (64) at 56
// 0.149-0.151 against 0.142; R2C 16384 (255 registers and 120 bytes
// spilled, one persistent group per SM) at 128 (224 bytes spilled) 0.226
// without the loop, 0.525 with two looping groups per SM, against 0.208.
// The spills cost more than the occupancy gains; a capped 512-item HALVES
// kernel (96 registers) also failed to launch (CL_OUT_OF_RESOURCES).
// Again on R2C 16384 (device events; numbers in fft_batch.cl): caps of
// 104-128 registers and .minnctapersm 2 at 256 items, 56 and 64 at 512,
// all slower than uncapped; looping in two groups per SM 2.5-3.4 times
// slower, so the second group never became resident beside the first
// (also at 120 or fewer registers, within the 64K of an SM); the
// "two looping groups per SM" above (0.525) most likely ran one at a
// time as well. What kept the second group out was the 34 KB of local
// memory per group, not the rebuild from PTX, and the loops were slow by
// their spills: exchanging in halves (17 KB, PRISM_OPENCL_R2C_HALVES=1)
// at 128 registers without the loop R2C 16384 ran 0.179-0.180 ms against
// the default's 0.202-0.205; looping in two groups it spilled 460 + 832
// bytes and ran 0.292. Uncapped without the loop it needs 128 registers
// anyway and runs 0.180-0.183, now the default there (gpufft's r2cGeom;
// numbers in fft_batch.cl).

var (
	maxnregDefine = regexp.MustCompile(`-D NV_MAXNREG=([0-9]+)\b`)
	minctasDefine = regexp.MustCompile(`-D NV_MINCTAS=([0-9]+)\b`)
)

// regCap returns the register cap opts ask for, or 0.
func regCap(opts string) int { return defineInt(maxnregDefine, opts) }

// minCTAs returns the work-groups per multiprocessor opts ask for, or 0.
func minCTAs(opts string) int { return defineInt(minctasDefine, opts) }

func defineInt(re *regexp.Regexp, opts string) int {
	m := re.FindStringSubmatch(opts)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// ptxDirectives returns the PTX directives opts ask for (see above), ""
// when none, or an error for a value out of range.
func ptxDirectives(opts string) (string, error) {
	var d string
	if n := regCap(opts); n != 0 {
		if n < 16 || n > 255 {
			return "", fmt.Errorf("%w: NV_MAXNREG=%d (16…255 registers)", ErrInvalid, n)
		}
		d += ".maxnreg " + strconv.Itoa(n) + "\n"
	}
	if k := minCTAs(opts); k != 0 {
		if k > 32 {
			return "", fmt.Errorf("%w: NV_MINCTAS=%d (1…32 work-groups)", ErrInvalid, k)
		}
		d += ".minnctapersm " + strconv.Itoa(k) + "\n"
	}
	return d, nil
}

// capProgram returns p rebuilt with the register cap or resident groups
// opts ask for, where its binary is PTX; otherwise p itself.
func (e *OpenCL) capProgram(p cl.Program, opts string) (cl.Program, error) {
	d, err := ptxDirectives(opts)
	if d == "" || err != nil {
		if err != nil {
			e.lib.ReleaseProgram(p)
		}
		return p, err
	}
	bin, err := e.lib.Binary(p)
	if err != nil {
		e.lib.ReleaseProgram(p)
		return 0, fmt.Errorf("gpufft: binary for a register cap on %s: %w", e.info, err)
	}
	ptx, ok := capRegisters(bin, d)
	if !ok {
		return p, nil // not PTX: no cap
	}
	q, err := e.lib.BuildBinary(e.ctx, e.info.device, opts, ptx)
	e.lib.ReleaseProgram(p)
	if err != nil {
		return 0, fmt.Errorf("gpufft: build with %q on %s: %w", d, e.info, err)
	}
	if e.buildLog != nil {
		log, _ := e.lib.BuildLog(q, e.info.device)
		e.mu.Lock()
		fmt.Fprintf(e.buildLog, "gpufft: rebuilt with %q: %s\n%s\n", d, opts, log)
		e.mu.Unlock()
	}
	return q, nil
}

// capRegisters returns PTX text with directives (whole lines, such as
// ".maxnreg 128\n") before the body of every .entry, and ok = false when
// bin is not PTX (no .version directive or no entry) or an entry has no
// body.
func capRegisters(bin []byte, directives string) (out []byte, ok bool) {
	if !bytes.Contains(bin, []byte(".version")) || !bytes.Contains(bin, []byte(".entry ")) {
		return nil, false
	}
	directive := []byte(directives)
	rest := bin
	for {
		i := bytes.Index(rest, []byte(".entry "))
		if i < 0 {
			break
		}
		j := bytes.Index(rest[i:], []byte("\n{"))
		if j < 0 {
			return nil, false
		}
		cut := i + j + 1 // after the newline, before the body's brace
		out = append(append(out, rest[:cut]...), directive...)
		rest = rest[cut:]
	}
	return append(out, rest...), true
}
