package cl

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Go moves a goroutine's stack when it grows (or when the collector
// shrinks it) and fixes up every pointer into it, but not a uintptr. A
// call that turns a pointer to a stack variable into a uintptr and then
// calls a function whose prologue grows the stack (purego.SyscallN's
// does: its frame holds two [15]uintptr arrays) hands the driver an
// address in the freed old stack (issue 33 item 1). These tests run each
// call that lends Go memory to the driver at every depth of a fresh
// goroutine's stack in steps of one small frame, so that at some depths
// the stack grows exactly between the conversion and the C call.

// stackSweep is how many depths each call runs at: a level of atDepth is
// at least 32 bytes of stack, so the sweep crosses the 2, 4, 8 and 16 KiB
// stack sizes a new goroutine grows through.
const stackSweep = 700

// atDepth calls f under n frames of its own.
//
//go:noinline
func atDepth(n int, f func()) {
	if n > 0 {
		atDepth(n-1, f)
		return
	}
	f()
}

// onFreshStack runs f at depth n of a new goroutine (whose stack starts
// small) and waits for it.
func onFreshStack(n int, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		atDepth(n, f)
	}()
	<-done
}

const stackWords = 32 // int32 values in each table: a band table's 128 bytes

const kernelPut = `__kernel void put(__global int *out, int v, long w) {
	out[get_global_id(0)] = v + (int)w + (int)get_global_id(0);
}`

// stackProbe holds what each call of the sweep uses.
type stackProbe struct {
	l   *Lib
	q   Queue
	m   Mem
	k   Kernel
	got []int32 // heap memory to check the device's contents with
}

func newStackProbe(t *testing.T) *stackProbe {
	l, d, c, q := openQueue(t)
	m, err := l.CreateBuffer(c, MemReadWrite, 4*stackWords)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ReleaseMem(m) })
	p, err := l.BuildProgram(c, d, "", kernelPut)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ReleaseProgram(p) })
	k, err := l.CreateKernel(p, "put")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ReleaseKernel(k) })
	if err := l.SetArg(nil, k, 0, unsafe.Sizeof(m), unsafe.Pointer(&m)); err != nil {
		t.Fatal(err)
	}
	return &stackProbe{l: l, q: q, m: m, k: k, got: make([]int32, stackWords)}
}

// check reads the device buffer into heap memory and compares it with
// base+k.
func (p *stackProbe) check(base int32) error {
	if err := p.l.Read(nil, p.q, p.m, 0, 4*stackWords, unsafe.Pointer(&p.got[0])); err != nil {
		return err
	}
	return compareTable(p.got, base)
}

func compareTable(got []int32, base int32) error {
	for k, v := range got {
		if v != base+int32(k) {
			return fmt.Errorf("value %d is %d, want %d", k, v, base+int32(k))
		}
	}
	return nil
}

// write uploads a table on the goroutine's stack.
//
//go:noinline
func (p *stackProbe) write(base int32) error {
	var tab [stackWords]int32
	for k := range tab {
		tab[k] = base + int32(k)
	}
	if err := p.l.Write(new(Args), p.q, p.m, true, 0, 4*stackWords, unsafe.Pointer(&tab[0])); err != nil {
		return err
	}
	return p.check(base)
}

// read downloads into a table on the goroutine's stack; the device
// buffer holds base+k (fill), and Read is the first call of the goroutine
// that grows its stack.
//
//go:noinline
func (p *stackProbe) read(base int32) error {
	var tab [stackWords]int32
	for k := range tab {
		tab[k] = -1
	}
	if err := p.l.Read(new(Args), p.q, p.m, 0, 4*stackWords, unsafe.Pointer(&tab[0])); err != nil {
		return err
	}
	return compareTable(tab[:], base)
}

// fill writes base+k to the device buffer from heap memory.
func (p *stackProbe) fill(base int32) error {
	for k := range p.got {
		p.got[k] = base + int32(k)
	}
	return p.l.Write(nil, p.q, p.m, true, 0, 4*stackWords, unsafe.Pointer(&p.got[0]))
}

// launch sets the kernel's value arguments and its range from variables
// on the goroutine's stack.
//
//go:noinline
func (p *stackProbe) launch(base int32) error {
	a := new(Args)
	v, w := base-7, int64(7)
	if err := p.l.SetArg(a, p.k, 1, 4, unsafe.Pointer(&v)); err != nil {
		return err
	}
	if err := p.l.SetArg(a, p.k, 2, 8, unsafe.Pointer(&w)); err != nil {
		return err
	}
	global, local := uintptr(stackWords), uintptr(8)
	if err := p.l.Enqueue(a, p.q, p.k, &global, &local, nil); err != nil {
		return err
	}
	return p.check(base)
}

// stackCalls names the calls of the sweep.
var stackCalls = []string{"Write", "Read", "SetArg+Enqueue"}

// sweep runs the named call at every depth and returns the failures.
func (p *stackProbe) sweep(name string) []string {
	f := map[string]func(int32) error{"Write": p.write, "Read": p.read, "SetArg+Enqueue": p.launch}[name]
	var bad []string
	for n := range stackSweep {
		base := int32(n) * 1000
		if name == "Read" {
			if err := p.fill(base); err != nil {
				return append(bad, err.Error())
			}
		}
		var err error
		onFreshStack(n, func() { err = f(base) })
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s at depth %d: %v", name, n, err))
		}
	}
	return bad
}

// envStackChild names the call a run of TestDriverSeesMovedStacks under
// GODEBUG=efence=1 sweeps.
const envStackChild = "PRISM_CL_STACK_CHILD"

// TestDriverSeesMovedStacks: whatever the depth at which a call lends a
// stack variable to the driver, the driver reads and writes the memory the
// caller sees. A Read into a stale address leaves the caller's table
// unchanged (-1), which fails here deterministically; a Write, SetArg or
// Enqueue from a stale address reads the old stack, which still holds the
// right values until it is reused, so the test runs itself again for
// each call under GODEBUG=efence=1, where the runtime unmaps every stack
// it frees and a stale read faults. It also checks, with the old way of
// building the call, that the sweep does move the stack between a
// conversion and the C call (else it would prove nothing).
func TestDriverSeesMovedStacks(t *testing.T) {
	p := newStackProbe(t)
	if name := os.Getenv(envStackChild); name != "" {
		report(t, name, p.sweep(name))
		return
	}
	if moved := oldWayMoves(t); moved == 0 {
		t.Fatal("no depth of the sweep moved the stack between a conversion and the C call: the test proves nothing")
	} else {
		t.Logf("the old way passed a stale address at %d of %d depths", moved, stackSweep)
	}
	for _, name := range stackCalls {
		report(t, name, p.sweep(name))
	}
	for _, name := range stackCalls {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDriverSeesMovedStacks$", "-test.count=1")
		cmd.Env = append(os.Environ(), envStackChild+"="+name, "GODEBUG=efence=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s under GODEBUG=efence=1: %v\n%s", name, err, tail(string(out), 20))
		}
	}
}

// report fails t with the first few of a call's failures and their count.
func report(t *testing.T, name string, bad []string) {
	t.Helper()
	for _, b := range bad[:min(3, len(bad))] {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Errorf("%s: wrong at %d of %d depths", name, len(bad), stackSweep)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// oldWayMoves counts the depths of the sweep at which a pointer converted
// to uintptr and stored in Args before purego.SyscallN (the way Write,
// Read, SetArg and Enqueue built their calls before issue 33) reaches C
// as an address the stack has left. The C function is libc's memcpy with
// length 0, which touches nothing and returns its first argument; without
// libc the count is skipped (-1).
func oldWayMoves(t *testing.T) int {
	memcpy := libcMemcpy()
	if memcpy == 0 {
		t.Log("no libc memcpy: the sweep's reach is not checked")
		return -1
	}
	moved := 0
	for n := range stackSweep {
		onFreshStack(n, func() {
			if oldWayCall(new(Args), memcpy) {
				moved++
			}
		})
	}
	return moved
}

//go:noinline
func oldWayCall(a *Args, memcpy uintptr) bool {
	var tab [stackWords]int32
	a.v = [9]uintptr{uintptr(unsafe.Pointer(&tab[0])), uintptr(unsafe.Pointer(&tab[0])), 0}
	r, _, _ := purego.SyscallN(memcpy, a.v[:3]...)
	return r != uintptr(unsafe.Pointer(&tab[0]))
}

func libcMemcpy() uintptr {
	if runtime.GOOS != "linux" {
		return 0
	}
	h, err := openLibrary("libc.so.6")
	if err != nil {
		return 0
	}
	fn, err := lookup(h, "memcpy")
	if err != nil {
		return 0
	}
	return fn
}
