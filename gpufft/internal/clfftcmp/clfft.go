//go:build clfft && cgo

// Package clfftcmp binds clFFT (Debian's libclfft-dev) for one purpose:
// measuring Prism's kernels against the best OpenCL FFT library buildable
// here, on the same device in the same run (TestCompareClFFT). It is built
// only with -tags clfft, and it is a package of its own because gpufft has
// Go assembly, which a cgo package may not; the prism binary never links
// it.
package clfftcmp

/*
#cgo LDFLAGS: -lclFFT -lOpenCL
#define CL_TARGET_OPENCL_VERSION 120
#include <clFFT.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// clfft_r2c times a batched single-precision real-to-hermitian transform of
// n points on the first device whose name contains want, device-resident.
// It returns seconds per call, or a negative value with err filled in.
static double clfft_r2c(const char *want, int n, int batch, double minTime, char *err, int errlen) {
	cl_platform_id plats[16];
	cl_uint np = 0;
	cl_device_id dev = 0;
	if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) { snprintf(err, errlen, "clGetPlatformIDs"); return -1; }
	for (cl_uint p = 0; p < np && !dev; p++) {
		cl_device_id ds[16];
		cl_uint nd = 0;
		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, ds, &nd) != CL_SUCCESS) continue;
		for (cl_uint d = 0; d < nd && !dev; d++) {
			char name[256] = {0};
			clGetDeviceInfo(ds[d], CL_DEVICE_NAME, sizeof name - 1, name, NULL);
			if (strstr(name, want)) dev = ds[d];
		}
	}
	if (!dev) { snprintf(err, errlen, "no device named %s", want); return -1; }
	cl_int e;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
	clfftSetupData sd;
	clfftInitSetupData(&sd);
	clfftSetup(&sd);
	clfftPlanHandle plan;
	size_t len = n;
	size_t strides[1] = {1};
	double sec = -1;
	if (clfftCreateDefaultPlan(&plan, ctx, CLFFT_1D, &len) != CLFFT_SUCCESS) { snprintf(err, errlen, "clfftCreateDefaultPlan"); goto out; }
	clfftSetPlanPrecision(plan, CLFFT_SINGLE);
	clfftSetLayout(plan, CLFFT_REAL, CLFFT_HERMITIAN_INTERLEAVED);
	clfftSetResultLocation(plan, CLFFT_OUTOFPLACE);
	clfftSetPlanInStride(plan, CLFFT_1D, strides);
	clfftSetPlanOutStride(plan, CLFFT_1D, strides);
	clfftSetPlanBatchSize(plan, batch);
	clfftSetPlanDistance(plan, n, n / 2 + 1);
	if (clfftBakePlan(plan, 1, &q, NULL, NULL) != CLFFT_SUCCESS) { snprintf(err, errlen, "clfftBakePlan"); goto outplan; }
	cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)n * batch * 4, NULL, &e);
	cl_mem outb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)(n / 2 + 1) * batch * 8, NULL, &e);
	float zero = 0;
	clEnqueueFillBuffer(q, in, &zero, 4, 0, (size_t)n * batch * 4, 0, NULL, NULL);
	if (clfftEnqueueTransform(plan, CLFFT_FORWARD, 1, &q, 0, NULL, NULL, &in, &outb, NULL) != CLFFT_SUCCESS) {
		snprintf(err, errlen, "clfftEnqueueTransform");
	} else {
		clFinish(q);
		int calls = 0;
		double t0 = now();
		while (calls < 3 || now() - t0 < minTime) {
			clfftEnqueueTransform(plan, CLFFT_FORWARD, 1, &q, 0, NULL, NULL, &in, &outb, NULL);
			clFinish(q);
			calls++;
		}
		sec = (now() - t0) / calls;
	}
	clReleaseMemObject(outb);
	clReleaseMemObject(in);
outplan:
	clfftDestroyPlan(&plan);
out:
	clfftTeardown();
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return sec;
}
*/
import "C"

import (
	"errors"
	"time"
	"unsafe"
)

// clfftR2C returns clFFT's device-resident time per call for a batched real
// transform on the device whose name contains device.
func clfftR2C(device string, n, batch int, minTime time.Duration) (time.Duration, error) {
	cs := C.CString(device)
	defer C.free(unsafe.Pointer(cs))
	var buf [256]C.char
	sec := C.clfft_r2c(cs, C.int(n), C.int(batch), C.double(minTime.Seconds()), &buf[0], C.int(len(buf)))
	if sec < 0 {
		return 0, errors.New("clfft: " + C.GoString(&buf[0]))
	}
	return time.Duration(float64(sec) * float64(time.Second)), nil
}
