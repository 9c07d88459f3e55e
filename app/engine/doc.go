// Package engine opens the engines Prism's analyses run on and holds the
// rules every pipeline shares about them: Open chooses between the GPU
// and the CPU backend of package gpufft (auto, gpu or cpu), OpenSet and
// StartSet open one per GPU of the host (StartSet hands each over as soon
// as it is open: opening an H200's context costs the driver 250–385 ms,
// two at once 605 ms on the two-GPU host, so a batch starts on the first;
// CloseSetForExit leaves them to a process's exit); a Pair is the
// preferred engine and the CPU one it falls back on, with WithFallback the
// one GPU→CPU retry (an *Error from the engine, never an input or output
// problem, triggers it; FallbackNotice says so); a PlanPool keeps plans
// between the files of a batch; CheckFFT is the FFT-size rule of the
// command line, the window and the pipelines.
//
// "Engine" means a gpufft.Engine, a backend; a Pair is two of them. It
// knows nothing of files, devices, Fyne or flags. Every function may be
// called from any goroutine; a PlanPool is safe for concurrent use.
package engine
