package gpufft

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/prismaudio/prism/gpufft/internal/cl"
)

// EnvCacheDir is the environment variable that moves the OpenCL program
// cache (default: os.UserCacheDir()/prism/opencl); "off" disables it.
const EnvCacheDir = "PRISM_OPENCL_CACHE"

// progCache keeps built OpenCL programs on disk as device binaries
// (CL_PROGRAM_BINARIES), so a later process loads a program with
// clCreateProgramWithBinary instead of compiling OpenCL C.
//
// An entry's name is the SHA-256 of everything that decides the binary:
// the platform's name and version, the device's name, OpenCL version and
// driver version, the build options and every source string. A driver
// update or an edited kernel therefore misses, and the stale entry is
// never read. An entry holds a magic, the payload's length, the SHA-256
// of its key and payload, and the payload; one that is short, too long or
// fails the checksum is deleted and rebuilt, and so is one whose binary
// the driver refuses or cannot build. The checksum covers the key, so an
// entry copied or renamed over another's name (a valid binary of another
// program) is rejected too, not loaded and found wanting at every run.
// Entries are written to a temporary file and renamed into place, so a
// crash or a concurrent process leaves either no entry or a whole one. A
// directory that cannot be made or written (read-only, full) turns
// writing off for the engine's lifetime, silently: the cache only ever
// saves time.
//
// The directory may be the user's (PRISM_OPENCL_CACHE can name any), so
// the cache only ever deletes files whose whole name it generates: an
// entry (entryName) or one of its temporaries (tempName).
type progCache struct {
	dir      string // "" when disabled
	ident    string // the platform and device identity, hashed into every key
	readOnly bool   // a write failed: entries are still read, none written
}

// cacheMagic starts every entry; the version changes with the layout
// (PRISMCL1 entries, whose checksum did not cover the key, are rejected
// once and rebuilt).
const cacheMagic = "PRISMCL2"

const cacheHeader = len(cacheMagic) + 8 + sha256.Size

// PoCL keeps its own cache of built programs (~/.cache/pocl/kcache: a
// warm source build costs about what loading our binary does), and asking
// it for a program's binary compiles every kernel once more (3.2 s for
// the three programs of `prism analyze` on the 2-core machine, doubling a
// cold build). So on PoCL the cache is used only where $PRISM_OPENCL_CACHE
// names a directory (as the tests do).
const poclPlatform = "Portable Computing Language"

func newProgCache(info DeviceInfo) progCache {
	dir := envCacheDir()
	if dir == "off" || (dir == "" && info.Platform == poclPlatform) {
		return progCache{}
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return progCache{}
		}
		dir = filepath.Join(base, "prism", "opencl")
	}
	var b bytes.Buffer
	for _, s := range []string{info.Platform, info.PlatformVersion, info.Name, info.Version, info.Driver} {
		writeField(&b, s)
	}
	return progCache{dir: dir, ident: b.String()}
}

func writeField(b *bytes.Buffer, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	b.Write(n[:])
	b.WriteString(s)
}

// key names the entry for a program built with options from sources.
func (c *progCache) key(options string, sources ...string) string {
	var b bytes.Buffer
	b.WriteString(cacheMagic)
	writeField(&b, c.ident)
	writeField(&b, options)
	for _, s := range sources {
		writeField(&b, s)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

func (c *progCache) path(key string) string { return filepath.Join(c.dir, key+".clbin") }

// The names the cache writes, and so the only ones it removes: an entry is
// its key (64 lowercase hex digits) and ".clbin"; a temporary is the key,
// 16 random hex digits and ".tmp" (tmpNameOld: os.CreateTemp's key+".tmp"
// and decimal digits, written by earlier versions).
var (
	entryName  = regexp.MustCompile(`^[0-9a-f]{64}\.clbin$`)
	tmpName    = regexp.MustCompile(`^[0-9a-f]{64}\.[0-9a-f]{16}\.tmp$`)
	tmpNameOld = regexp.MustCompile(`^[0-9a-f]{64}\.tmp[0-9]+$`)
)

// load returns the entry's binary, or nil when there is none; damaged
// says there was one, but damaged (it is removed).
func (c *progCache) load(key string) (bin []byte, damaged bool) {
	if c.dir == "" {
		return nil, false
	}
	f, err := os.Open(c.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && st.Mode().IsRegular() && st.Size() >= int64(cacheHeader) && st.Size() <= int64(cacheHeader)+cl.MaxBinaryBytes {
		buf := make([]byte, st.Size())
		if _, err = io.ReadFull(f, buf); err == nil {
			if bin, err = decodeEntry(key, buf); err == nil {
				return bin, false
			}
		}
	}
	c.remove(key)
	return nil, true
}

var errBadEntry = errors.New("gpufft: damaged program cache entry")

// entrySum is the checksum of an entry: the SHA-256 of its key's length,
// its key and its payload.
func entrySum(key string, payload []byte) [sha256.Size]byte {
	var b bytes.Buffer
	writeField(&b, key)
	h := sha256.New()
	h.Write(b.Bytes())
	h.Write(payload)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// decodeEntry returns the payload of buf, the contents of key's entry
// file, or errBadEntry.
func decodeEntry(key string, buf []byte) ([]byte, error) {
	if len(buf) < cacheHeader || string(buf[:len(cacheMagic)]) != cacheMagic {
		return nil, errBadEntry
	}
	n := binary.LittleEndian.Uint64(buf[len(cacheMagic):])
	payload := buf[cacheHeader:]
	if n != uint64(len(payload)) || n == 0 {
		return nil, errBadEntry
	}
	sum := entrySum(key, payload)
	if !bytes.Equal(sum[:], buf[len(cacheMagic)+8:cacheHeader]) {
		return nil, errBadEntry
	}
	return payload, nil
}

// encodeEntry returns the contents of key's entry file holding bin.
func encodeEntry(key string, bin []byte) []byte {
	buf := make([]byte, cacheHeader, cacheHeader+len(bin))
	copy(buf, cacheMagic)
	binary.LittleEndian.PutUint64(buf[len(cacheMagic):], uint64(len(bin)))
	sum := entrySum(key, bin)
	copy(buf[len(cacheMagic)+8:], sum[:])
	return append(buf, bin...)
}

// store writes an entry atomically. An error means nothing was written,
// and the cache is read-only from then on.
func (c *progCache) store(key string, bin []byte) error {
	if c.dir == "" || c.readOnly {
		return nil
	}
	err := c.write(key, bin)
	if err != nil {
		c.readOnly = true
		return fmt.Errorf("gpufft: program cache: %w", err)
	}
	c.prune(time.Now())
	return nil
}

// Entries not used for cacheMaxAge (a hit refreshes an entry's time) and
// temporary files older than an hour (left by a crash) are removed when a
// new entry is written, so entries of old drivers and old kernels do not
// pile up. Only regular files with the names the cache generates are
// touched; every other file in the directory is the user's.
const cacheMaxAge = 60 * 24 * time.Hour

func (c *progCache) prune(now time.Time) {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, d := range ents {
		name := d.Name()
		entry := entryName.MatchString(name)
		temp := tmpName.MatchString(name) || tmpNameOld.MatchString(name)
		if !entry && !temp {
			continue // not ours: the user's files, probe records
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		age := now.Sub(info.ModTime())
		if (entry && age > cacheMaxAge) || (temp && age > time.Hour) {
			_ = os.Remove(filepath.Join(c.dir, name)) // best effort
		}
	}
}

// touch marks an entry as used (for prune).
func (c *progCache) touch(key string) {
	now := time.Now()
	_ = os.Chtimes(c.path(key), now, now) // best effort: read-only caches keep their times
}

func (c *progCache) write(key string, bin []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	f, err := createTemp(c.dir, key)
	if err != nil {
		return err
	}
	_, err = f.Write(encodeEntry(key, bin))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path(key))
	}
	if err != nil {
		os.Remove(f.Name()) // best effort: a leftover temporary is never read as an entry
	}
	return err
}

// createTemp creates a new temporary file for key's entry in dir, named
// key, 16 random hex digits and ".tmp" (tmpName).
func createTemp(dir, key string) (*os.File, error) {
	for range 100 {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, key+"."+hex.EncodeToString(r[:])+".tmp"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no new temporary name in %s", dir)
}

// remove deletes a damaged entry. In a read-only directory it stays, and
// is checked (and distrusted) again by the next process.
func (c *progCache) remove(key string) { _ = os.Remove(c.path(key)) }
