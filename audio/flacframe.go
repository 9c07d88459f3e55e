package audio

import "math"

// subframe decodes one channel's subframe of len(dst) samples of bps bits
// (one more than the stream's for a side channel).
func (d *flacDecoder) subframe(dst []int64, bps int) error {
	at := d.in.off
	typ, wasted, err := d.subframeHeader(bps)
	if err != nil {
		return err
	}
	ebps := uint(bps - wasted)
	switch {
	case typ == 0: // constant
		v, err := d.in.signed(ebps)
		if err != nil {
			return err
		}
		for i := range dst {
			dst[i] = v
		}
	case typ == 1: // verbatim
		for i := range dst {
			if dst[i], err = d.in.signed(ebps); err != nil {
				return err
			}
		}
	case typ >= 8 && typ <= 12:
		err = d.fixed(dst, typ-8, ebps, at)
	case typ >= 32:
		err = d.lpc(dst, typ-31, ebps, at)
	default:
		return d.errf(at, "reserved subframe type %d", typ)
	}
	if wasted > 0 {
		for i := range dst {
			dst[i] <<= wasted
		}
	}
	return err
}

// subframeHeader reads a subframe's type and its count of wasted bits
// (low bits that are zero in every sample, not stored).
func (d *flacDecoder) subframeHeader(bps int) (typ, wasted int, err error) {
	at := d.in.off
	x, err := d.in.read(8)
	if err != nil {
		return 0, 0, err
	}
	if x&0x80 != 0 {
		return 0, 0, d.errf(at, "subframe padding bit set")
	}
	if x&1 != 0 {
		k, ok, err := d.in.unary(uint64(bps))
		if err != nil {
			return 0, 0, err
		}
		if !ok || int(k)+1 >= bps {
			return 0, 0, d.errf(at, "subframe declares more wasted bits than its %d", bps)
		}
		wasted = int(k) + 1
	}
	return int(x >> 1 & 0x3F), wasted, nil
}

// warmup reads a predictor's first order samples.
func (d *flacDecoder) warmup(dst []int64, order int, bps uint, at int64) error {
	if order > len(dst) {
		return d.errf(at, "predictor order %d exceeds the block of %d samples", order, len(dst))
	}
	for i := range order {
		v, err := d.in.signed(bps)
		if err != nil {
			return err
		}
		dst[i] = v
	}
	return nil
}

// fixed decodes a subframe with one of FLAC's fixed polynomial predictors.
func (d *flacDecoder) fixed(s []int64, order int, bps uint, at int64) error {
	if err := d.warmup(s, order, bps, at); err != nil {
		return err
	}
	if err := d.residual(s, order, at); err != nil {
		return err
	}
	lo, hi := sampleRange(bps)
	for i := order; i < len(s); i++ {
		v := s[i]
		switch order {
		case 1:
			v += s[i-1]
		case 2:
			v += 2*s[i-1] - s[i-2]
		case 3:
			v += 3*(s[i-1]-s[i-2]) + s[i-3]
		case 4:
			v += 4*(s[i-1]+s[i-3]) - 6*s[i-2] - s[i-4]
		}
		if v < lo || v > hi {
			return d.errf(at, "predicted sample %d does not fit in %d bits", v, bps)
		}
		s[i] = v
	}
	return nil
}

// lpc decodes a subframe with a linear predictor of the given order.
func (d *flacDecoder) lpc(s []int64, order int, bps uint, at int64) error {
	if err := d.warmup(s, order, bps, at); err != nil {
		return err
	}
	b := &d.in
	p, err := b.read(4)
	if err != nil {
		return err
	}
	if p == 15 {
		return d.errf(at, "invalid LPC coefficient precision")
	}
	shift, err := b.signed(5)
	if err != nil {
		return err
	}
	if shift < 0 {
		return d.errf(at, "negative LPC shift %d", shift)
	}
	// stored newest sample first; kept oldest first, in the order of the
	// samples they multiply
	coef := d.coefBuf[:order]
	for j := range coef {
		if coef[order-1-j], err = b.signed(uint(p) + 1); err != nil {
			return err
		}
	}
	if err := d.residual(s, order, at); err != nil {
		return err
	}
	lo, hi := sampleRange(bps)
	for i := order; i < len(s); i++ {
		// |coef| < 2^15, |sample| < 2^33, order ≤ 32: the sum stays
		// below 2^53 because every earlier sample passed the range check
		var sum int64
		past := s[i-order : i]
		past = past[:len(coef)]
		for j, c := range coef {
			sum += c * past[j]
		}
		v := s[i] + sum>>shift
		if v < lo || v > hi {
			return d.errf(at, "predicted sample %d does not fit in %d bits", v, bps)
		}
		s[i] = v
	}
	return nil
}

// residual reads the Rice-coded residual into s[order:].
func (d *flacDecoder) residual(s []int64, order int, at int64) error {
	b := &d.in
	x, err := b.read(6)
	if err != nil {
		return err
	}
	method, partOrder := x>>4, uint(x&15)
	if method > 1 {
		return d.errf(at, "reserved residual coding method %d", method)
	}
	paramBits, escape := uint(4), uint64(15)
	if method == 1 {
		paramBits, escape = 5, 31
	}
	n := len(s)
	if n&(1<<partOrder-1) != 0 || n>>partOrder < order {
		return d.errf(at, "residual partition order %d does not fit a block of %d samples with predictor order %d", partOrder, n, order)
	}
	i := order
	for p := range 1 << partOrder {
		end := (p + 1) * (n >> partOrder)
		param, err := b.read(paramBits)
		if err != nil {
			return err
		}
		if err := d.partition(s[i:end], param, param == escape, at); err != nil {
			return err
		}
		i = end
	}
	return nil
}

// partition reads one residual partition: Rice-coded with parameter param,
// or, escaped, as plain signed values of a width given first.
func (d *flacDecoder) partition(dst []int64, param uint64, escaped bool, at int64) error {
	b := &d.in
	if escaped {
		raw, err := b.read(5)
		if err != nil {
			return err
		}
		for i := range dst {
			if dst[i], err = b.signed(uint(raw)); err != nil {
				return err
			}
		}
		return nil
	}
	// a residual must fit in 32 bits: bound the quotient so that neither
	// it nor a stream of zero bytes can overflow
	limit := uint64(math.MaxUint32) >> param
	for i := range dst {
		q, ok, err := b.unary(limit)
		if err != nil {
			return err
		}
		if !ok {
			return d.errf(at, "residual does not fit in 32 bits")
		}
		r, err := b.read(uint(param))
		if err != nil {
			return err
		}
		u := q<<param | r
		dst[i] = int64(u>>1) ^ -int64(u&1)
	}
	return nil
}

// sampleRange is the range of a two's complement value of bps bits.
func sampleRange(bps uint) (lo, hi int64) {
	return -1 << (bps - 1), 1<<(bps-1) - 1
}

// decorrelate turns left/side, side/right and mid/side pairs into left and
// right, refusing results that do not fit the stream's bit depth.
func (d *flacDecoder) decorrelate(h flacHeader, at int64) error {
	if h.sideChannel() < 0 {
		return nil
	}
	l, r := d.chans[0][:h.block], d.chans[1][:h.block]
	switch h.assign {
	case 8: // left, side
		for i := range r {
			r[i] = l[i] - r[i]
		}
	case 9: // side, right
		for i := range l {
			l[i] += r[i]
		}
	default: // mid, side
		for i := range l {
			m, s := l[i]<<1|r[i]&1, r[i]
			l[i], r[i] = (m+s)>>1, (m-s)>>1
		}
	}
	lo, hi := sampleRange(uint(d.info.bps))
	if outside(l, lo, hi) || outside(r, lo, hi) {
		return d.errf(at, "stereo decorrelation gives samples that do not fit in %d bits", d.info.bps)
	}
	return nil
}

// outside reports whether any value of x is outside [lo, hi].
func outside(x []int64, lo, hi int64) bool {
	bad := false
	for _, v := range x {
		bad = bad || v < lo || v > hi
	}
	return bad
}

// hash adds the frame's samples to the MD5 of the stream: interleaved,
// little-endian, in whole bytes per sample, as the encoder computed it.
func (d *flacDecoder) hash(block int) {
	if d.md5 == nil {
		return
	}
	width := (d.info.bps + 7) / 8
	buf, j := d.md5Buf[:], 0
	for i := range block {
		for c := range d.info.channels {
			v := d.chans[c][i]
			switch width {
			case 1:
				buf[j] = byte(v)
			case 2:
				buf[j], buf[j+1] = byte(v), byte(v>>8)
			case 3:
				buf[j], buf[j+1], buf[j+2] = byte(v), byte(v>>8), byte(v>>16)
			default:
				buf[j], buf[j+1], buf[j+2], buf[j+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			}
			j += width
		}
		if j > len(buf)-8*4 { // room for one more frame of 8 channels × 4 bytes
			d.md5.Write(buf[:j])
			j = 0
		}
	}
	d.md5.Write(buf[:j])
}

func (d *flacDecoder) Close() error {
	if d.closer == nil {
		return nil
	}
	err := d.closer.Close()
	d.closer = nil
	return err
}
