package soundlevel

import (
	"math"
	"strconv"
)

// CSVHeader is the first line of a level log (without its newline): one
// row per interval, time_s its start.
const CSVHeader = "time_s,laeq_db,lceq_db,lafmax_db,lasmax_db,lcpeak_db,sample_peak_dbfs,true_peak_dbtp"

// AppendCSV appends r as one CSV line of CSVHeader's columns, newline
// included: time_s with millisecond resolution, levels with 2 decimals,
// "-inf" for silence.
func AppendCSV(dst []byte, r Row) []byte {
	dst = strconv.AppendFloat(dst, r.StartSeconds, 'f', 3, 64)
	for _, v := range [...]float64{r.LAeq, r.LCeq, r.LAFmax, r.LASmax, r.LCpeak, r.SamplePeakDBFS, r.TruePeakDBTP} {
		dst = append(dst, ',')
		if math.IsInf(v, 0) || math.IsNaN(v) {
			dst = append(dst, "-inf"...)
			continue
		}
		dst = strconv.AppendFloat(dst, v, 'f', 2, 64)
	}
	return append(dst, '\n')
}
