package plot

// MaxLevel is the largest of m and the levels in db: how a pixel shows
// the bins (or frames) it covers, so a narrow peak is never lost between
// pixels. NaN levels are passed over. It is a plain comparison, not the
// builtin max, whose NaN and signed-zero rules made it ten times slower
// (a 2^20-point column into 1080 rows: 3.2 ms against 0.34 ms here), and
// folding columns was most of a 2^20-point capture's host time.
func MaxLevel(m float32, db []float32) float32 {
	for _, v := range db {
		if v > m {
			m = v
		}
	}
	return m
}
