package kernels

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// specs is every kernel's argument spec (args.go).
var specs = []any{&FFTC2C, &FFTR2C, &FFTC2R, &Spectrogram, &FFTPass, &R2CPost, &Frames, &SpecPost, &SpecMul,
	&ReduceMax, &SumSlices, &SumParts, &LiveUpdate, &LiveBands, &PCMPlanar, &TransferUpdate, &TransferPhat, &TransferPeak,
	&SpectralFrames, &SpectralKernel}

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	kernelDecl   = regexp.MustCompile(`(?s)__kernel\b[^;{]*?\bvoid\s+(\w+)\s*\(([^)]*)\)`)
	paramName    = regexp.MustCompile(`(\w+)\s*$`)
)

// signatures parses every __kernel function of the embedded sources:
// kernel name → its file and its parameters' names in order.
func signatures(t *testing.T) map[string]struct {
	file   string
	params []string
} {
	t.Helper()
	out := map[string]struct {
		file   string
		params []string
	}{}
	for file, src := range map[string]string{"fft_common.cl": Common, "fft_batch.cl": Batch, "fft_passes.cl": Passes,
		"reduce.cl": Reduce, "post.cl": Post, "pcm.cl": PCM, "transfer.cl": Transfer,
		"spectral.cl": Spectral} {
		src = lineComment.ReplaceAllString(blockComment.ReplaceAllString(src, ""), "")
		for _, m := range kernelDecl.FindAllStringSubmatch(src, -1) {
			var params []string
			for _, p := range strings.Split(m[2], ",") {
				n := paramName.FindStringSubmatch(strings.TrimSpace(p))
				if n == nil {
					t.Fatalf("%s: %s: parameter %q has no name", file, m[1], p)
				}
				params = append(params, n[1])
			}
			if prev, ok := out[m[1]]; ok && (prev.file != file || !reflect.DeepEqual(prev.params, params)) {
				t.Fatalf("kernel %s declared twice with different signatures: %s%v and %s%v", m[1], prev.file, prev.params, file, params)
			}
			out[m[1]] = struct {
				file   string
				params []string
			}{file, params}
		}
	}
	return out
}

// TestKernelArgIndices checks every kernel's named argument indices
// (args.go) against the signatures in the .cl sources: each field names
// the parameter at its index, every parameter has a field, the counts
// agree, and every __kernel in the sources has a spec. Changing an index
// or a signature alone fails here.
func TestKernelArgIndices(t *testing.T) {
	sigs := signatures(t)
	if len(sigs) < len(specs) {
		t.Fatalf("parsed %d kernels from the sources, want at least %d: the parser missed some", len(sigs), len(specs))
	}
	seen := map[string]bool{}
	for _, s := range specs {
		v := reflect.ValueOf(s).Elem()
		k := v.Field(0).Interface().(Kernel)
		seen[k.Name] = true
		sig, ok := sigs[k.Name]
		if !ok {
			t.Errorf("%s: no __kernel of that name in the sources", k.Name)
			continue
		}
		if sig.file != k.File {
			t.Errorf("%s: spec says %s, defined in %s", k.Name, k.File, sig.file)
		}
		if k.Params != len(sig.params) {
			t.Errorf("%s: spec says %d parameters, the source has %d %v", k.Name, k.Params, len(sig.params), sig.params)
		}
		named := make([]string, len(sig.params))
		for i := 1; i < v.NumField(); i++ {
			field, idx := v.Type().Field(i).Name, int(v.Field(i).Int())
			if idx < 0 || idx >= len(sig.params) {
				t.Errorf("%s.%s = %d: out of range of %v", k.Name, field, idx, sig.params)
				continue
			}
			if p := sig.params[idx]; p != field && p != lowerFirst(field) {
				t.Errorf("%s.%s = %d: parameter %d is %q (%v)", k.Name, field, idx, idx, p, sig.params)
			}
			if named[idx] != "" {
				t.Errorf("%s: index %d named twice (%s and %s)", k.Name, idx, named[idx], field)
			}
			named[idx] = field
		}
		for i, f := range named {
			if f == "" {
				t.Errorf("%s: parameter %d (%s) has no named index", k.Name, i, sig.params[i])
			}
		}
	}
	for name, sig := range sigs {
		if !seen[name] {
			t.Errorf("%s (%s): a __kernel without an argument spec in args.go", name, sig.file)
		}
	}
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
