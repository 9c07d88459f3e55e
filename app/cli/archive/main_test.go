package archive

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// envChild makes the test binary run one command as prism would (the
// subprocess of the kill test and the Slurm job's tasks).
const envChild = "PRISM_ARCHIVE_TEST_MAIN"

// envHang names a file the child writes after its first output is in
// place; then it waits to be killed.
const envHang = "PRISM_ARCHIVE_TEST_HANG"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(childMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func childMain(args []string) int {
	if marker := os.Getenv(envHang); marker != "" {
		committed = func(path string) {
			// whole or not at all: the parent kills as soon as it sees it
			os.WriteFile(marker+".tmp", []byte(path), 0o666)
			os.Rename(marker+".tmp", marker)
			for {
				time.Sleep(time.Hour) // until kill -9
			}
		}
	}
	return command(args, os.Stdout, os.Stderr)
}

// testFile is one recording of a generated archive.
type testFile struct {
	start time.Time
	secs  float64
}

// writeArchive writes 16-bit mono WAV files at rate Hz, named as an
// AudioMoth names them (YYYYMMDD_HHMMSS.WAV): a sine whose frequency
// changes from file to file over seeded noise.
func writeArchive(t testing.TB, dir string, rate int, files []testFile) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	for i, f := range files {
		n := int(f.secs * float64(rate))
		pcm := make([]byte, 44+2*n)
		copy(pcm, "RIFF")
		binary.LittleEndian.PutUint32(pcm[4:], uint32(36+2*n))
		copy(pcm[8:], "WAVEfmt ")
		binary.LittleEndian.PutUint32(pcm[16:], 16)
		binary.LittleEndian.PutUint16(pcm[20:], 1)
		binary.LittleEndian.PutUint16(pcm[22:], 1)
		binary.LittleEndian.PutUint32(pcm[24:], uint32(rate))
		binary.LittleEndian.PutUint32(pcm[28:], uint32(2*rate))
		binary.LittleEndian.PutUint16(pcm[32:], 2)
		binary.LittleEndian.PutUint16(pcm[34:], 16)
		copy(pcm[36:], "data")
		binary.LittleEndian.PutUint32(pcm[40:], uint32(2*n))
		hz := 300 + 100*float64(i)
		for j := range n {
			v := 0.3*math.Sin(2*math.Pi*hz*float64(j)/float64(rate)) + 0.05*rng.NormFloat64()
			binary.LittleEndian.PutUint16(pcm[44+2*j:], uint16(int16(math.Round(v*32767))))
		}
		name := filepath.Join(dir, f.start.UTC().Format("20060102_150405")+".WAV")
		if err := os.WriteFile(name, pcm, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs a command in this process and fails the test unless it
// succeeds.
func run(t testing.TB, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := command(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
}

// command runs prism's args[0] (ltsa or hmd) with args[1:].
func command(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "ltsa":
		return LTSA(args[1:], stdout, stderr)
	case "hmd":
		return HMD(args[1:], stdout, stderr)
	}
	return 2
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
