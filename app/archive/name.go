package archive

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// namePatterns are the recorders' file-name clocks, tried in order on the
// base name without its extension. Each yields year, month, day, hour,
// minute, second and optionally milliseconds.
var namePatterns = []struct {
	re      *regexp.Regexp
	twoYear bool // yy, taken as 20yy
}{
	// SoundTrap: NNNN.yyMMddHHmmss (serial number, then the clock)
	{regexp.MustCompile(`^\d+\.(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$`), true},
	// AudioMoth YYYYMMDD_HHMMSS, Wildlife Acoustics PREFIX_YYYYMMDD_HHMMSS,
	// PAMGuard PREFIX_YYYYMMDD_HHMMSS_mmm, ISO basic YYYYMMDDTHHMMSS[Z]
	{regexp.MustCompile(`(?:^|[^0-9])(\d{4})(\d{2})(\d{2})[_T-](\d{2})(\d{2})(\d{2})(?:[_.](\d{3}))?(?:Z|[^0-9]|$)`), false},
	// ISO extended with separators: YYYY-MM-DD_HH-MM-SS, YYYY-MM-DDTHH:MM:SS
	{regexp.MustCompile(`(?:^|[^0-9])(\d{4})-(\d{2})-(\d{2})[ _T](\d{2})[-_:.]?(\d{2})[-_:.]?(\d{2})(?:[^0-9]|$)`), false},
}

// ParseName returns the start time, in UTC, that a recorder wrote into a
// file name (a path is allowed; only its base name is read):
//
//	SoundTrap            NNNN.yyMMddHHmmss.wav         5783.210315143000.wav
//	AudioMoth            YYYYMMDD_HHMMSS.WAV           20210315_143000.WAV
//	Wildlife Acoustics   PREFIX_YYYYMMDD_HHMMSS.wav    SM4_20210315_143000.wav
//	PAMGuard             PREFIX_YYYYMMDD_HHMMSS_mmm.wav
//	ISO 8601             PREFIX_20210315T143000Z.wav, 2021-03-15_14-30-00.wav
//
// Recorders write their clock without a zone; it is taken as UTC (a
// manifest overrides it). ok is false when no pattern matches or the
// digits are no valid instant.
func ParseName(name string) (time.Time, bool) {
	base := filepath.Base(name)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	for _, p := range namePatterns {
		m := p.re.FindStringSubmatch(base)
		if m == nil {
			continue
		}
		var v [7]int
		for i := 1; i < len(m) && i <= 7; i++ {
			if m[i] != "" {
				v[i-1], _ = strconv.Atoi(m[i])
			}
		}
		if p.twoYear {
			v[0] += 2000
		}
		t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*int(time.Millisecond), time.UTC)
		if t.Year() != v[0] || int(t.Month()) != v[1] || t.Day() != v[2] || t.Hour() != v[3] || t.Minute() != v[4] || t.Second() != v[5] {
			return time.Time{}, false // 20210231, 25:61: not a clock
		}
		return t, true
	}
	return time.Time{}, false
}
