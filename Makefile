# Prism. `make run` and `make test` do all set-up first (scripts/setup.sh:
# Debian packages and, where the machine's Go is missing or old, a Go
# toolchain from the module proxy).

GO_VERSION ?= 1.26.8
# setup.sh puts a fetched toolchain here; an existing new-enough go wins
# because this directory only exists when none was found.
export PATH := $(HOME)/.cache/prism-go/go$(GO_VERSION)/bin:$(PATH):/usr/local/go/bin
export LANG ?= C.UTF-8
# Fyne reads the UI language from LANGUAGE when LANG is not a language
# (C.UTF-8): without it every run logs "Error parsing user locale C".
export LANGUAGE ?= en

GO ?= go

.PHONY: setup build run test bench bench-clfft devices clean screenshot dist

setup:
	@scripts/setup.sh

build: setup
	$(GO) build -o prism .

# Runs the app: the desktop window on the default input (or the built-in
# signal generator when there is no input device). Without a display it
# says so, lists the commands and the devices, and runs a short engine
# demo (about 30 s, with progress) instead: the GPU (or the CPU where no
# OpenCL is usable) against the CPU engine, side by side.
run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$(uname)" = Darwin ]; then \
	  ./prism; \
	else \
	  ./prism || true; echo; ./prism devices; echo; \
	  echo "The engine demo (about 30 s; the full table: ./prism bench):"; \
	  ./prism bench --progress --sizes 4096,spectrogram:4096:1024 --gpu-samples 4194304 --cpu-samples 4194304 --time 2s; \
	fi

# Every test: a PulseAudio null sink as the default input (the capture
# tests play tones into it), formatting, vet, staticcheck, the race-enabled test suite (OpenCL kernels
# run for real on PoCL), the allocation tests without -race (the race
# detector makes sync.Pool drop items, so it allocates), the CPU engine's
# pure-Go stages (-tags noasm; the AVX2 ones run by default), about 30 s each of
# fuzzing the WAV, FLAC and MP3 readers (bounded memory per input is asserted), and each benchmark once
# as a smoke test. The desktop window is tested with Fyne's test driver
# (package ui: golden images, controls, keys) and for real under a private
# Xvfb (main_test.go: the built binary on the generator). CI sets
# PRISM_REQUIRE_OPENCL/AUDIO/DISPLAY=1 so a missing resource fails instead
# of skipping.
test: setup
	scripts/audio-setup.sh
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	# checkptr off: the PortAudio binding passes its stream id as a C
	# pointer (portaudio.go: unsafe.Pointer(s.id)), which checkptr rejects;
	# the race detector itself stays on
	# -p 1: one test binary at a time, so two processes never drive PoCL
	# (and its kernel cache) at once
	$(GO) test -race -gcflags=all=-d=checkptr=0 -p 1 -count=1 -timeout 30m ./...
	$(GO) test -count=1 -run 'Alloc|Allocate' ./...
	$(GO) test -count=1 -tags noasm -run 'Complex|Real|Outputs|Sine' ./gpufft
	# fuzzing budgets are counts of inputs (about 30 s each on a 2-core
	# machine), not durations: Go 1.26's coordinator can fail a target with
	# "context deadline exceeded" when a duration ends under load
	# (go.dev/issue/75804, fixed in Go 1.27; FuzzMP3 failed so here)
	$(GO) test -run '^$$' -fuzz FuzzWAV -fuzztime 100000x ./audio
	$(GO) test -run '^$$' -fuzz FuzzFLAC -fuzztime 200000x -fuzzminimizetime 10x ./audio
	$(GO) test -run '^$$' -fuzz FuzzMP3 -fuzztime 70000x -fuzzminimizetime 10x ./audio
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./...

# The packages: a Debian package and a tarball in dist/ (scripts/dist.sh).
dist: setup
	scripts/dist.sh dist

bench: build
	./prism bench

# Prism's kernels against clFFT (Debian's libclfft-dev) on the same OpenCL
# device, side by side in one run.
bench-clfft: setup
	dpkg-query -W libclfft-dev >/dev/null 2>&1 || apt-get install -y -qq libclfft-dev
	$(GO) test -count=1 -tags clfft -run CompareClFFT -v ./gpufft/internal/clfftcmp

devices: build
	./prism devices

clean:
	rm -rf prism dist

# The README's picture (docs/window.png): the real window under a private
# Xvfb at 1280×800, on the generator, as TestDesktopSmoke sees it.
screenshot: setup
	PRISM_SCREENSHOT=$(CURDIR)/docs/window.png $(GO) test -count=1 -run 'TestDesktopSmoke$$' .
