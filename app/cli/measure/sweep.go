package measure

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/sweep"
)

const sweepUsage = `  prism sweep -o SWEEP.wav --from F0 --to F1 --seconds S [--rate R]
      [--level DB] [--fade MS]
  An exponential sine sweep (Farina: sin(2π·F0·L·(e^{t/L} − 1)),
  L = S/ln(F1/F0)) from F0 to F1 Hz in S seconds, its peak at --level
  dBFS, faded in and out over --fade ms (raised cosine), with 0.2 s of
  silence before it and 1 s after (for the latency and the decay), as a
  mono 32-bit float WAV at --rate Hz. Beside it, SWEEP.inverse.wav holds
  its inverse filter (the sweep time-reversed, weighted +6 dB per octave
  and scaled so that the sweep convolved with it is a unit impulse in
  F0…F1), the same format. Both carry the sweep's parameters in their
  INFO comment, which prism ir --sweep reads back. Play SWEEP.wav through
  the system and record it from its start, then run prism ir.
`

// sweepFlags are `prism sweep`'s flags.
type sweepFlags struct {
	out                              string
	from, to, seconds, level, fadeMs float64
	rate                             int
	quiet, force                     bool
}

func Sweep(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("sweep", sweepUsage, stderr)
	var f sweepFlags
	fs.StringVar(&f.out, "o", "", "output: SWEEP.wav (and SWEEP.inverse.wav beside it)")
	fs.Float64Var(&f.from, "from", 0, "start frequency F0 in Hz")
	fs.Float64Var(&f.to, "to", 0, "end frequency F1 in Hz (above F0, at most half the rate)")
	fs.Float64Var(&f.seconds, "seconds", 0, "the sweep's length in seconds, without the silences")
	fs.IntVar(&f.rate, "rate", 48000, "sample rate in Hz")
	fs.Float64Var(&f.level, "level", sweep.DefaultLevelDB, "peak level in dBFS (−120…0)")
	fs.Float64Var(&f.fadeMs, "fade", sweep.DefaultFadeSec*1000, "fade-in and fade-out in ms")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary on stdout")
	kit.RegisterForce(fs, &f.force)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("sweep", stderr)
	if len(pos) != 0 {
		return usage("unexpected argument %q (prism sweep -o SWEEP.wav --from F0 --to F1 --seconds S)", pos[0])
	}
	if !strings.EqualFold(fileExt(f.out), ".wav") {
		return usage("-o SWEEP.wav is required")
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, name := range []string{"from", "to", "seconds"} {
		if !set[name] {
			return usage("--%s is required", name)
		}
	}
	s := sweep.Spec{From: f.from, To: f.to, Seconds: f.seconds, Rate: f.rate, LevelDB: f.level,
		FadeSec: f.fadeMs / 1000, LeadSec: sweep.DefaultLeadSec, TailSec: sweep.DefaultTailSec}
	if err := s.Check(); err != nil {
		return usage("%s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	inv := inversePath(f.out)
	if err := kit.CheckReplace(f.force, f.out, inv); err != nil {
		return usage("%v", err)
	}
	comment := sweepComment(s)
	if err := writeSweepWAV(f.out, s.Rate, s.Signal(), comment, f.force); err != nil {
		fmt.Fprintf(stderr, "prism: sweep: %v\n", err)
		return kit.ExitFailure
	}
	if err := writeSweepWAV(inv, s.Rate, s.Inverse(), comment+" inverse", f.force); err != nil {
		fmt.Fprintf(stderr, "prism: sweep: %v\n", err)
		return kit.ExitFailure
	}
	if !f.quiet {
		fmt.Fprintf(stdout, "sweep %g → %g Hz in %g s at %d Hz, %g dBFS, fades %g ms; %.3f s with its silences: %s; inverse filter: %s\n",
			s.From, s.To, s.Seconds, s.Rate, s.LevelDB, f.fadeMs, float64(s.Samples())/float64(s.Rate), f.out, inv)
	}
	return kit.ExitOK
}

// inversePath is where the inverse filter of the sweep at path goes:
// SWEEP.inverse.wav beside SWEEP.wav.
func inversePath(path string) string {
	return path[:len(path)-len(fileExt(path))] + ".inverse" + fileExt(path)
}

func fileExt(path string) string {
	i := strings.LastIndexByte(path, '.')
	if i < 0 || strings.ContainsRune(path[i:], os.PathSeparator) {
		return ""
	}
	return path[i:]
}

// sweepMark opens the INFO comment of the files prism sweep writes.
const sweepMark = "prism sweep"

// sweepComment is the sweep's parameters as the files' INFO comment:
// "prism sweep from=F0 to=F1 seconds=S rate=R level=DB fade=S lead=S tail=S".
func sweepComment(s sweep.Spec) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("%s from=%s to=%s seconds=%s rate=%d level=%s fade=%s lead=%s tail=%s", sweepMark,
		g(s.From), g(s.To), g(s.Seconds), s.Rate, g(s.LevelDB), g(s.FadeSec), g(s.LeadSec), g(s.TailSec))
}

// parseSweepComment reads sweepComment back.
func parseSweepComment(c string) (sweep.Spec, error) {
	var s sweep.Spec
	if !strings.HasPrefix(c, sweepMark+" ") {
		return s, fmt.Errorf("no %q parameters in its INFO comment", sweepMark)
	}
	vals := map[string]*float64{"from": &s.From, "to": &s.To, "seconds": &s.Seconds, "level": &s.LevelDB,
		"fade": &s.FadeSec, "lead": &s.LeadSec, "tail": &s.TailSec}
	seen := map[string]bool{}
	for _, kv := range strings.Fields(c[len(sweepMark):]) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue // "inverse"
		}
		var err error
		switch p := vals[k]; {
		case k == "rate":
			s.Rate, err = strconv.Atoi(v)
		case p != nil:
			*p, err = strconv.ParseFloat(v, 64)
		default:
			continue
		}
		if err != nil {
			return s, fmt.Errorf("its INFO comment's %s=%q is not a number", k, v)
		}
		seen[k] = true
	}
	if len(seen) != len(vals)+1 {
		return s, fmt.Errorf("its INFO comment %q lacks parameters", c)
	}
	if err := s.Check(); err != nil {
		return s, fmt.Errorf("its INFO comment: %v", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	return s, nil
}

// writeSweepWAV writes x as a mono 32-bit float WAV at rate with comment
// as its LIST/INFO ICMT chunk (before the samples).
func writeSweepWAV(path string, rate int, x []float32, comment string, force bool) error {
	o, err := encode.CreateWith(path, encode.CreateOptions{Force: force})
	if err != nil {
		return err
	}
	defer o.Discard()
	le := binary.LittleEndian
	icmt := append([]byte(comment), 0)
	if len(icmt)%2 == 1 {
		icmt = append(icmt, 0)
	}
	var b bytes.Buffer
	data := 4 * len(x)
	list := 4 + 8 + len(icmt)
	b.WriteString("RIFF")
	binary.Write(&b, le, uint32(4+(8+18)+(8+4)+(8+list)+(8+data)))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, le, []uint32{18})
	binary.Write(&b, le, []uint16{3, 1})
	binary.Write(&b, le, []uint32{uint32(rate), uint32(4 * rate)})
	binary.Write(&b, le, []uint16{4, 32, 0})
	b.WriteString("fact")
	binary.Write(&b, le, []uint32{4, uint32(len(x))})
	b.WriteString("LIST")
	binary.Write(&b, le, uint32(list))
	b.WriteString("INFOICMT")
	binary.Write(&b, le, uint32(len(icmt)))
	b.Write(icmt)
	b.WriteString("data")
	binary.Write(&b, le, uint32(data))
	o.W.Write(b.Bytes())
	var raw [4]byte
	for _, v := range x {
		le.PutUint32(raw[:], math.Float32bits(v))
		o.W.Write(raw[:])
	}
	return o.Commit()
}

// readSweepSpec reads the parameters of a sweep prism sweep wrote from
// its INFO comment. Any failure is an *analysis.InputError.
func readSweepSpec(path string) (sweep.Spec, error) {
	bad := func(err error) (sweep.Spec, error) {
		return sweep.Spec{}, &analysis.InputError{Err: fmt.Errorf("ir: --sweep %s: %w", path, err)}
	}
	f, err := os.Open(path)
	if err != nil {
		return bad(err)
	}
	defer f.Close()
	head := make([]byte, 1<<16)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if n < 12 || string(head[:4]) != "RIFF" || string(head[8:12]) != "WAVE" {
		return bad(fmt.Errorf("not a WAV file"))
	}
	for at := 12; at+8 <= len(head); {
		id, size := string(head[at:at+4]), int(binary.LittleEndian.Uint32(head[at+4:]))
		body := head[at+8 : min(len(head), at+8+size)]
		if id == "data" {
			break
		}
		if id == "LIST" && len(body) >= 4 && string(body[:4]) == "INFO" {
			for i := 4; i+8 <= len(body); {
				sid, ssize := string(body[i:i+4]), int(binary.LittleEndian.Uint32(body[i+4:]))
				if sid == "ICMT" {
					txt := body[i+8 : min(len(body), i+8+ssize)]
					s, err := parseSweepComment(strings.TrimRight(string(txt), "\x00"))
					if err != nil {
						return bad(err)
					}
					return s, nil
				}
				i += 8 + ssize + ssize%2
			}
		}
		at += 8 + size + size%2
	}
	return bad(fmt.Errorf("no %q parameters (write it with prism sweep, or give --from, --to and --seconds)", sweepMark))
}
