package live

import (
	"sync/atomic"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// runState is the engine goroutine's input side of Live: the recorder, the
// engine and its plan, and the samples held between batches.
type runState struct {
	rec         *audio.Recorder
	eng         gpufft.Engine
	set         Settings
	cfg         gpufft.SpectrogramConfig // the live plan's spectrogram
	plan        gpufft.LivePlan
	rate, ch    int
	outCh       int                // ch + 1: every channel and the mix
	tmp         []float32          // interleaved frames from the ring
	planar      []float32          // outCh blocks of cfg.MaxSamples
	pack        []float32          // the engine's contiguous copy of planar
	have        int                // samples per channel in planar
	pos         uint64             // stream position of planar's first sample
	out         *gpufft.LiveOutput // the plan's output
	settingsErr bool               // the status holds an Apply error
	lostFrames  uint64             // whole frames of input the ring overwrote (gaps in the timeline)
	lostSamples uint64             // samples lost not yet counted in lostFrames
	audio       *audioRecording    // the input's recording (audiorec.go), nil: none
	onRead      func(got int)      // called after each ring read with the frames read into tmp (Live.tapAudio)
}

// Tee receives a copy of every block of input Live reads, on the engine
// goroutine, also while Live is paused: a playthrough's ring, a transfer
// analyzer's feed. Write must not block (an *audio.Ring never does).
type Tee interface {
	Write(p []float32, t time.Time) // interleaved frames of Channels samples
	Channels() int
}

// Tee slots: Live copies its input to the Tee in each slot that holds one.
const (
	TeePlaythrough = iota // the monitor output (SetTee)
	TeeTransfer           // a transfer analyzer
	TeeMeasure            // a sweep measurement's recording
	TeeLevels             // a level log (prism capture --levels-every)
	TeeMode               // an analysis mode's runner (package tfrlive)
	teeSlots
)

// teeBox holds a Tee for an atomic pointer.
type teeBox struct{ t Tee }

// teeRing is where Live copies its input: one Tee per slot (nil: none).
type teeRing [teeSlots]atomic.Pointer[teeBox]

// write copies got frames of ch channels from p to every Tee of ch
// channels.
func (tr *teeRing) write(p []float32, got, ch int) {
	if got == 0 {
		return
	}
	for i := range tr {
		if b := tr[i].Load(); b != nil && b.t.Channels() == ch {
			b.t.Write(p[:got*ch], time.Now())
		}
	}
}

// reset sizes the buffers for the current plan and starts at stream
// position pos with nothing held.
func (r *runState) reset(pos uint64) {
	maxLen := r.cfg.MaxSamples
	r.tmp = make([]float32, maxLen*r.ch)
	r.planar = make([]float32, r.outCh*maxLen)
	r.pack = make([]float32, r.outCh*maxLen)
	r.have, r.pos = 0, pos
}

// take reads what the ring holds (up to the room left) into the planar
// blocks, copying it to tee, and returns the frames read (they stay in
// tmp until the next read). When input was
// overwritten before it was read, the stream jumped: the samples held no
// longer continue it and are dropped.
func (r *runState) take(tee *teeRing) int {
	ring := r.rec.Ring()
	room := r.cfg.MaxSamples - r.have
	lostBefore := ring.Lost()
	got := ring.Read(r.tmp[:room*r.ch])
	tee.write(r.tmp, got, r.ch)
	if r.onRead != nil && got > 0 {
		r.onRead(got)
	}
	if lost := ring.Lost() - lostBefore; lost != 0 {
		// the held samples and the lost ones are a gap in the timeline:
		// count it in frames, so sinks can keep real time
		r.lostSamples += uint64(r.have) + lost
		r.lostFrames += r.lostSamples / uint64(r.set.Hop)
		r.lostSamples %= uint64(r.set.Hop)
		r.have = 0
		r.pos = ring.Position() - uint64(got)
	}
	Deinterleave(r.planar, r.tmp, r.ch, r.cfg.MaxSamples, r.have, got)
	r.have += got
	return got
}

// keepUp skips the oldest whole hops held when the analysis has fallen
// behind (the ring more than half full, with more unread input than the
// held samples leave room for) and returns the input frames skipped.
// Left to itself the ring would overwrite input, which breaks the stream:
// take drops everything held, and where a frame is longer than the ring
// (2 s) the next one waits for the rest of a whole frame of new input:
// nearly 20 s at N = 2^20 and 48 kHz. Skipped hops keep the stream whole,
// so the next frames follow at once. They count as lost frames, so the
// timeline (and a sink's gap rows) keeps real time, and the caller counts
// them as dropped input.
func (r *runState) keepUp() uint64 {
	ring := r.rec.Ring()
	avail := ring.Available()
	behind := avail - (r.cfg.MaxSamples - r.have)
	if behind <= 0 || 2*avail <= ring.Capacity() {
		return 0
	}
	hop := r.set.Hop
	skip := min((behind+hop-1)/hop, r.have/hop) * hop
	if skip == 0 {
		return 0
	}
	r.consume(skip)
	r.lostFrames += uint64(skip / hop)
	return uint64(skip)
}

// skip reads what the ring holds and passes it to tee only: nothing is
// analyzed, and the stream position follows the input (Live paused).
func (r *runState) skip(tee *teeRing) {
	ring := r.rec.Ring()
	for {
		got := ring.Read(r.tmp)
		tee.write(r.tmp, got, r.ch)
		if r.onRead != nil && got > 0 {
			r.onRead(got)
		}
		if got < len(r.tmp)/r.ch {
			break
		}
	}
	r.have, r.pos = 0, ring.Position()
}

// Deinterleave writes got frames of ch channels from the interleaved src
// into planar's ch channel blocks of maxLen samples and the mix block after
// them (mean of channels, summed in channel order), at sample at of each.
func Deinterleave(planar, src []float32, ch, maxLen, at, got int) {
	inv := 1 / float32(ch)
	mix := planar[ch*maxLen+at : ch*maxLen+at+got]
	for i := range got {
		frame := src[i*ch : i*ch+ch]
		sum := frame[0]
		for c, v := range frame {
			planar[c*maxLen+at+i] = v
			if c > 0 {
				sum += v
			}
		}
		mix[i] = sum * inv
	}
}

// packed copies the first `samples` of each planar block back to back, the
// layout the engine reads.
func (r *runState) packed(samples int) []float32 {
	buf, maxLen := r.pack[:r.outCh*samples], r.cfg.MaxSamples
	for c := range r.outCh {
		copy(buf[c*samples:(c+1)*samples], r.planar[c*maxLen:c*maxLen+samples])
	}
	return buf
}

// consume drops the first used samples, keeping those later frames need.
func (r *runState) consume(used int) {
	maxLen := r.cfg.MaxSamples
	for c := range r.outCh {
		copy(r.planar[c*maxLen:], r.planar[c*maxLen+used:c*maxLen+r.have])
	}
	r.have -= used
	r.pos += uint64(used)
}
