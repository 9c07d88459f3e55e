// Package audio will hold Prism's sound sources: PortAudio capture into
// lock-free ring buffers, the signal generator and the WAV/FLAC/MP3
// decoders (live-capture and offline-analysis issues). It knows nothing of
// FFTs or the UI.
package audio
