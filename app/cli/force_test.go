package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestForceReplacesProtectedOutput: every command that writes a file
// refuses, before any work (exit 2, the file untouched), to replace an
// output whose permission bits forbid writing it, and replaces it with
// --force. The bits decide for root too (encode.ErrNotWritable), so the
// test means the same as root and as a user.
func TestForceReplacesProtectedOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	tone := apptest.Tone(16000, 8000, 500, 0.5)
	apptest.WriteWAV(t, in, 8000, [][]float32{tone, tone})
	for _, c := range []struct {
		name string
		out  string
		args []string
	}{
		{"analyze", "a.npy", []string{"analyze", in, "--fft", "1024", "--engine", "cpu"}},
		{"spectrum", "s.csv", []string{"spectrum", in, "--fft", "1024", "--engine", "cpu"}},
		{"bands", "b.csv", []string{"bands", in, "--engine", "cpu"}},
		{"filter", "f.wav", []string{"filter", in, "--band", "lowpass:1000", "--engine", "cpu"}},
		{"transfer", "t.csv", []string{"transfer", in, "--ref-channel", "0", "--fft", "1024", "--engine", "cpu"}},
		{"capture", "c.npy", []string{"capture", "--generator", "sine:1000:-6", "--seconds", "0.2", "--fft", "1024", "--engine", "cpu"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.out)
			if err := os.WriteFile(out, []byte("keep me"), 0o444); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{}, c.args...), "-o", out)
			code, stderr := runCLI(args...)
			if b, _ := os.ReadFile(out); code != ExitUsage || !strings.Contains(stderr, "not writable") || string(b) != "keep me" {
				t.Fatalf("without --force: exit %d, file %q, stderr:\n%s\nwant exit 2, the file kept, \"not writable\"", code, b, stderr)
			}
			code, stderr = runCLI(append(args, "--force")...)
			if b, _ := os.ReadFile(out); code != ExitOK || string(b) == "keep me" || len(b) == 0 {
				t.Fatalf("with --force: exit %d, file %q, stderr:\n%s\nwant exit 0 and the output written", code, b[:min(len(b), 40)], stderr)
			}
		})
	}
}
