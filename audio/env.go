package audio

import "os"

// The environment this package reads, in this one place.
var (
	// envVerbose: PRISM_VERBOSE set lets the audio libraries' own
	// messages through (see SetLibraryLogging).
	envVerbose = os.Getenv("PRISM_VERBOSE") != ""
	// envGoMP3: PRISM_MP3_DECODER=go-mp3 decodes MP3 with go-mp3 even
	// where libmpg123 loads (to compare the two decoders).
	envGoMP3 = os.Getenv("PRISM_MP3_DECODER") == "go-mp3"
)
