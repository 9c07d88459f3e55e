package gpufft

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A child-process probe (WriteProbe/ReadProbe) costs a second OpenCL
// start-up (about 0.25 s on NVIDIA), so it is worth running once per
// OpenCL installation, not once per command. ProbeFingerprint names the
// installation as far as it can be seen without loading it; a probe that
// succeeded is recorded under that name in the program cache's directory
// (RecordProbe), and ProbeNeeded says whether the current installation
// has such a record. A driver upgrade, a new or edited ICD file or another
// library changes the fingerprint, and the next run probes again.

// probeEnv is every variable that changes which OpenCL library or driver
// is loaded.
var probeEnv = []string{EnvLibrary, "OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "OPENCL_VENDOR_PATH", "LD_LIBRARY_PATH", "LD_PRELOAD"}

// probeLibDirs are where a bare library name is looked for (after
// LD_LIBRARY_PATH), for its size and modification time.
var probeLibDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib", "/lib/x86_64-linux-gnu", "/lib64", "/lib"}

// ProbeFingerprint hashes what decides which OpenCL code a process would
// run: the variables above, the OpenCL library file, and every ICD vendor
// file (its name and contents) with the driver library it names (size and
// modification time).
func ProbeFingerprint() string {
	h := sha256.New()
	env := map[string]string{}
	for i, v := range envInstall() {
		env[probeEnv[i]] = v
		fmt.Fprintf(h, "%s=%s\x00", probeEnv[i], v)
	}
	libs := []string{"libOpenCL.so.1"}
	if l := env[EnvLibrary]; l != "" {
		libs = filepath.SplitList(l)
	}
	vendors := env["OCL_ICD_VENDORS"]
	if vendors == "" {
		vendors = "/etc/OpenCL/vendors"
	}
	icds, _ := filepath.Glob(filepath.Join(vendors, "*.icd"))
	if st, err := os.Stat(vendors); err == nil && !st.IsDir() {
		icds = []string{vendors} // OCL_ICD_VENDORS may name one file
	}
	sort.Strings(icds)
	for _, icd := range icds {
		b, err := readSmall(icd)
		fmt.Fprintf(h, "icd %s %v\x00%s\x00", icd, err, b)
		if name := strings.TrimSpace(string(b)); name != "" {
			libs = append(libs, name)
		}
	}
	for _, l := range libs {
		fmt.Fprintf(h, "lib %s %s\x00", l, libStamp(l, env["LD_LIBRARY_PATH"]))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// readSmall reads at most 4 KiB of a file (an ICD file is one line).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// libStamp is the size and modification time of the file a library name
// resolves to (searched like the dynamic loader, roughly, ldPath first),
// or "missing".
func libStamp(name, ldPath string) string {
	dirs := []string{""}
	if !strings.Contains(name, "/") {
		dirs = append(filepath.SplitList(ldPath), probeLibDirs...)
	}
	for _, d := range dirs {
		p := name
		if d != "" {
			p = filepath.Join(d, name)
		}
		if st, err := os.Stat(p); err == nil { // follows the .so.1 → .so.5xx link
			return fmt.Sprintf("%s %d %d", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	return "missing"
}

func probeRecordPath() string {
	c := newProgCache(DeviceInfo{})
	if c.dir == "" {
		return ""
	}
	return filepath.Join(c.dir, "probe-ok-"+ProbeFingerprint())
}

// ProbeNeeded reports whether no successful probe is recorded for the
// current OpenCL installation (always true with the cache off).
func ProbeNeeded() bool {
	p := probeRecordPath()
	if p == "" {
		return true
	}
	_, err := os.Stat(p)
	return err != nil
}

// RecordProbe records a successful probe of the current installation, so
// ProbeNeeded is false until it changes. An unwritable cache is an error
// the caller may ignore (the next run probes again).
func RecordProbe() error {
	p := probeRecordPath()
	if p == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o644)
}
