package out

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/prismaudio/prism/app/encode"
)

// Provenance is the record of one run, written as JSON beside its
// output (ProvenancePath).
type Provenance struct {
	Command    string         `json:"command"` // "ltsa", "hmd" or "ltsa merge"
	Args       []string       `json:"args"`
	Version    any            `json:"version"` // internal/version.Info
	Engine     string         `json:"engine"`
	Shard      string         `json:"shard,omitempty"` // "K/N"
	Parameters map[string]any `json:"parameters"`
	Outputs    []string       `json:"outputs"`
	Inputs     []Input        `json:"inputs"`
	Started    string         `json:"started_utc"`
	Seconds    float64        `json:"seconds"`
	Status     string         `json:"status"` // "ok" or the error
}

// Input is one input file of a run: its size, the first 16 hex digits of
// the SHA-256 of its first MiB (HashInput), what became of it and how
// long it took.
type Input struct {
	Path    string  `json:"path"`
	Size    int64   `json:"size"`
	SHA256  string  `json:"sha256_first_mib"`
	Status  string  `json:"status"` // "ok", "skipped (…)", "not run" or the error
	Seconds float64 `json:"seconds"`
}

// hashedBytes is how much of an input HashInput reads: enough to tell
// files apart without reading an archive twice.
const hashedBytes = 1 << 20

// HashInput is the first 16 hex digits of the SHA-256 of the file's
// first MiB.
func HashInput(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("out: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, hashedBytes)); err != nil {
		return "", fmt.Errorf("out: %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// ProvenancePath is the provenance file of output path: OUT.nc →
// OUT.provenance.json (for a folder of daily files, DIR/provenance….json
// is named by the caller).
func ProvenancePath(path string) string {
	if i := strings.LastIndexByte(path, '.'); i > strings.LastIndexByte(path, '/') {
		path = path[:i]
	}
	return path + ".provenance.json"
}

// WriteProvenance writes p to path through a temporary file.
func WriteProvenance(path string, p *Provenance) error {
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return fmt.Errorf("out: provenance: %w", err)
	}
	o, err := encode.CreateWith(path, encode.CreateOptions{Force: true})
	if err != nil {
		return fmt.Errorf("out: %w", err)
	}
	defer o.Discard()
	if _, err := o.W.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("out: write: %w", err)
	}
	return o.Commit()
}
