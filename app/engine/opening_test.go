package engine

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/prismaudio/prism/gpufft"
)

// TestStart: every engine opened comes through Ready once, Wait
// returns those that opened in their order with their failures joined,
// and oneAfterAnother starts each open only after the one before it has
// returned (the events of three opens started at once never interleave).
func TestStart(t *testing.T) {
	engines := []gpufft.Engine{gpufft.NewCPU(1), gpufft.NewCPU(1), gpufft.NewCPU(1)}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	var mu sync.Mutex
	var events []string
	opens := make([]func() (gpufft.Engine, error), 3)
	for k := range opens {
		opens[k] = func() (gpufft.Engine, error) {
			mu.Lock()
			events = append(events, fmt.Sprintf("start %d", k))
			mu.Unlock()
			defer func() {
				mu.Lock()
				events = append(events, fmt.Sprintf("end %d", k))
				mu.Unlock()
			}()
			if k == 1 {
				return nil, errors.New("GPU 1: no context")
			}
			return engines[k], nil
		}
	}
	cpu := gpufft.NewCPU(1)
	o := Start(oneAfterAnother(opens), cpu, true)
	var got []int
	for i := range o.Ready() {
		got = append(got, i)
	}
	set, err := o.Wait()
	if !slices.Equal(got, []int{0, 2}) {
		t.Errorf("Ready delivered %v, want [0 2]", got)
	}
	if len(set) != 2 || set[0].Preferred != engines[0] || set[1].Preferred != engines[2] || set[0].CPU != cpu || !set[1].Strict {
		t.Errorf("Wait returned %+v, want engines 0 and 2 with the CPU engine, strict", set)
	}
	if err == nil || err.Error() != "GPU 1: no context" {
		t.Errorf("Wait's error %v, want GPU 1's", err)
	}
	want := []string{"start 0", "end 0", "start 1", "end 1", "start 2", "end 2"}
	if !slices.Equal(events, want) {
		t.Errorf("opens one after another ran %v, want %v", events, want)
	}
	cpu.Close()
}
