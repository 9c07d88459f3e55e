package gpufft

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
)

// transferReport (PRISM_STARTUP_REPORT=transfer) measures what bounds the
// GPU file pipeline on the host side of the device, each part alone: making
// and mapping pinned staging buffers (CL_MEM_ALLOC_HOST_PTR) and touching
// them the first time, uploads from pinned staging on one in-order queue
// and on several at once, an upload from pageable Go memory, and copies
// into pinned memory by 1…16 goroutines (reading a cached file costs such
// a copy). It prints JSON; bytes are per second in GB/s (1e9).
func transferReport() error {
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		return err
	}
	defer e.Close()
	const chunk, nStage = 16 << 20, 16
	out := map[string]any{"device": e.Device(), "chunk_mib": chunk >> 20}
	gbps := func(bytes int, d time.Duration) float64 { return math.Round(float64(bytes)/d.Seconds()/1e7) / 100 }
	ms := func(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }

	// pinned staging: create+map, then the first touch of every page
	stage := make([][]byte, nStage)
	mems := make([]cl.Mem, nStage)
	t := time.Now()
	for i := range stage {
		if mems[i], err = e.lib.CreateBuffer(e.ctx, cl.MemReadOnly|cl.MemAllocHostPtr, chunk); err != nil {
			return err
		}
		if stage[i], err = e.lib.Map(e.queue, mems[i], cl.MapWrite, 0, chunk); err != nil {
			return err
		}
	}
	out["pinned_create_map_ms_per_chunk"] = ms(time.Since(t) / nStage)
	t = time.Now()
	for _, s := range stage {
		for j := 0; j < len(s); j += 4096 {
			s[j] = byte(j)
		}
	}
	out["pinned_first_touch_ms_per_chunk"] = ms(time.Since(t) / nStage)

	// uploads on q queues at once, each from its own staging buffers
	for _, q := range []int{1, 2, 4} {
		d, err := uploadQueues(e, stage, q, 64/q)
		if err != nil {
			return err
		}
		out[fmt.Sprintf("upload_pinned_gbps_%dq", q)] = gbps(64*chunk, d)
	}
	dev, err := e.lib.CreateBuffer(e.ctx, cl.MemReadWrite, chunk)
	if err != nil {
		return err
	}
	defer e.lib.ReleaseMem(dev)
	pageable := make([]byte, chunk)
	t = time.Now()
	for range 16 {
		if err := e.lib.Write(nil, e.queue, dev, true, 0, chunk, unsafe.Pointer(&pageable[0])); err != nil {
			return err
		}
	}
	out["upload_pageable_gbps"] = gbps(16*chunk, time.Since(t))

	// host copies into pinned memory, g goroutines at once
	src := make([][]byte, nStage)
	for i := range src {
		src[i] = make([]byte, chunk)
		for j := 0; j < chunk; j += 4096 {
			src[i][j] = 1
		}
	}
	for _, g := range []int{1, 4, 8, 16} {
		t := time.Now()
		var wg sync.WaitGroup
		for k := range g {
			wg.Go(func() {
				for r := range 4 {
					i := (k*4 + r) % nStage
					copy(stage[i], src[i])
				}
			})
		}
		wg.Wait()
		out[fmt.Sprintf("host_copy_gbps_%dg", g)] = gbps(4*g*chunk, time.Since(t))
	}
	for i := range stage {
		e.lib.Unmap(e.queue, mems[i], stage[i])
		e.lib.ReleaseMem(mems[i])
	}
	js, _ := json.Marshal(out)
	fmt.Println(string(js))
	return nil
}

// uploadQueues uploads n chunks per queue from stage on q new in-order
// queues at once (queue k from stage[k::q], round robin) and returns the
// time until all are done.
func uploadQueues(e *OpenCL, stage [][]byte, q, n int) (time.Duration, error) {
	queues := make([]cl.Queue, q)
	devs := make([]cl.Mem, q)
	defer func() {
		for k := range q {
			e.lib.ReleaseQueue(queues[k])
			e.lib.ReleaseMem(devs[k])
		}
	}()
	chunk := len(stage[0])
	var err error
	for k := range q {
		if queues[k], err = e.lib.CreateQueue(e.ctx, e.info.device, 0); err != nil {
			return 0, err
		}
		if devs[k], err = e.lib.CreateBuffer(e.ctx, cl.MemReadWrite, chunk); err != nil {
			return 0, err
		}
	}
	errs := make([]error, q)
	t := time.Now()
	var wg sync.WaitGroup
	for k := range q {
		wg.Go(func() {
			var a cl.Args
			for j := range n {
				s := stage[(k+j*q)%len(stage)]
				if errs[k] = e.lib.WriteAsync(&a, queues[k], devs[k], 0, chunk, unsafe.Pointer(&s[0]), nil); errs[k] != nil {
					return
				}
			}
			errs[k] = e.lib.Finish(&a, queues[k])
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return time.Since(t), nil
}
