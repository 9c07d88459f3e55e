package audio

// RawFormat is how a stream stores its samples: little-endian, interleaved,
// BytesPerSample each, integers (scaled by 1/2^(8·BytesPerSample−1), but
// for unsigned 8-bit) or IEEE floats.
type RawFormat struct {
	BytesPerSample int
	Float          bool
}

// RawPCM is implemented by decoders whose samples are plain PCM (WAV): an
// engine can take the bytes undecoded and convert them itself, as Read
// would. A decoder is read either way, not both.
type RawPCM interface {
	RawFormat() RawFormat
	// ReadRaw reads up to len(dst)/(Channels·BytesPerSample) whole frames
	// into dst undecoded and returns the frame count; 0, io.EOF at the end.
	// Float samples that are NaN or ±Inf are +0 in dst, and counted in the
	// decoder's Warnings, as Read would give them.
	ReadRaw(dst []byte) (frames int, err error)
}
