package message

import (
	"bytes"
	"strings"
	"testing"
)

// TestMessageLines: a message of several lines (a compiler's build log,
// as an OpenCL fallback notice carries it) is one prism: line with the
// others indented under it; tabs and control characters are escaped.
func TestMessageLines(t *testing.T) {
	var b bytes.Buffer
	w := NewSafeWriter(&b, nil)
	w.Write([]byte("prism: gpufft: build fft_power: clBuildProgram: -11 (options \"-D SIZE=64\"):\n<source>:3:1: error: x\n\n\tfix it\x1b[31m\n"))
	want := "prism: gpufft: build fft_power: clBuildProgram: -11 (options \"-D SIZE=64\"):\n" +
		continuation + "<source>:3:1: error: x\n\n" + continuation + `\tfix it\x1b[31m` + "\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if l != "" && !strings.HasPrefix(l, "prism: ") && !strings.HasPrefix(l, continuation) {
			t.Errorf("line %q neither prism: nor indented", l)
		}
	}
}
