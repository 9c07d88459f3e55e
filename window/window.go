package window

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/internal/kaiser"
)

// Kind names a window function.
type Kind int

const (
	Rect Kind = iota
	Hann
	Hamming
	Blackman
	BlackmanHarris // 4-term, 92 dB side lobes
	FlatTop
	Kaiser // parameter Beta
)

var names = [...]string{
	Rect:           "rect",
	Hann:           "hann",
	Hamming:        "hamming",
	Blackman:       "blackman",
	BlackmanHarris: "blackman-harris",
	FlatTop:        "flattop",
	Kaiser:         "kaiser",
}

// Func is a window function with its parameter. The zero value is Rect.
type Func struct {
	Kind Kind
	Beta float64 // Kaiser's shape parameter; ignored by the others
}

// Names lists the accepted window names, for usage messages.
func Names() []string { return append([]string(nil), names[:]...) }

// Parse reads "rect", "hann", "hamming", "blackman",
// "blackman-harris", "flattop" or "kaiser:BETA" (BETA ≥ 0; "kaiser" alone
// means β = 8.6, about Blackman-Harris's main lobe).
func Parse(s string) (Func, error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	for k, n := range names {
		if n != name {
			continue
		}
		w := Func{Kind: Kind(k)}
		switch {
		case w.Kind == Kaiser && hasArg:
			beta, err := strconv.ParseFloat(arg, 64)
			if err != nil || beta < 0 || beta > 100 || math.IsNaN(beta) {
				return Func{}, fmt.Errorf("window: %q: kaiser β must be a number in [0, 100]", s)
			}
			w.Beta = beta
		case w.Kind == Kaiser:
			w.Beta = 8.6
		case hasArg:
			return Func{}, fmt.Errorf("window: %q takes no parameter", s)
		}
		return w, nil
	}
	return Func{}, fmt.Errorf("window: unknown window %q (want one of %s, kaiser:BETA)", s, strings.Join(names[:], ", "))
}

func (w Func) String() string {
	if w.Kind < 0 || int(w.Kind) >= len(names) {
		return fmt.Sprintf("window(%d)", int(w.Kind))
	}
	if w.Kind == Kaiser {
		return "kaiser:" + strconv.FormatFloat(w.Beta, 'g', -1, 64)
	}
	return names[w.Kind]
}

// Valid says whether w is a window the engines accept: a known kind, and
// for Kaiser a finite β ≥ 0.
func (w Func) Valid() bool {
	return w.Kind >= Rect && w.Kind <= Kaiser && !(w.Kind == Kaiser && (w.Beta < 0 || math.IsNaN(w.Beta) || math.IsInf(w.Beta, 0)))
}

// Values returns the periodic (DFT-even) window of n samples, exactly the
// definitions of scipy.signal.get_window(name, n, fftbins=True): the
// symmetric window of n+1 points without its last point.
func (w Func) Values(n int) []float64 {
	v := make([]float64, n)
	var a []float64 // general cosine coefficients, w = Σ a_k (-1)^k cos(2πkn/N)
	switch w.Kind {
	case Rect:
		for i := range v {
			v[i] = 1
		}
		return v
	case Hann:
		a = []float64{0.5, 0.5}
	case Hamming:
		a = []float64{0.54, 0.46}
	case Blackman:
		a = []float64{0.42, 0.50, 0.08}
	case BlackmanHarris:
		a = []float64{0.35875, 0.48829, 0.14128, 0.01168}
	case FlatTop:
		a = []float64{0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368}
	case Kaiser:
		kaiser.Window(v, w.Beta)
		return v
	default:
		panic(fmt.Sprintf("window: invalid kind %d", int(w.Kind)))
	}
	for i := range v {
		s := 0.0
		for k, ak := range a {
			c := math.Cos(2 * math.Pi * float64(k*i%n) / float64(n))
			if k%2 == 1 {
				c = -c
			}
			s += ak * c
		}
		v[i] = s
	}
	return v
}
