/* fakecl.c: a broken OpenCL library for tests (issue 12 item 8). Built by
 * the tests with `cc -shared -fPIC` and loaded in place of libOpenCL.so.1.
 * FAKECL_MODE (or fakecl_set_mode) picks the fault:
 *   platforms  clGetPlatformIDs reports 2^32-1 platforms
 *   devices    one platform reporting 2^32-1 devices
 *   string     info strings of 2^62 bytes
 *   binary     a program binary of 2^40 bytes
 *   fail       every call fails with CL_OUT_OF_HOST_MEMORY
 *   segv       clGetPlatformIDs dereferences NULL (a crashing driver)
 *   ok         one GPU "Fake GPU" on platform "Fake Platform"; context and
 *              queue creation work, program builds fail
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;

static char set_mode[32];

/* fakecl_set_mode overrides FAKECL_MODE (tests that load the library into
 * their own process). */
void fakecl_set_mode(const char *m) {
	strncpy(set_mode, m, sizeof set_mode - 1);
}

static const char *mode(void) {
	if (set_mode[0]) return set_mode;
	const char *m = getenv("FAKECL_MODE");
	return m ? m : "ok";
}
static int is(const char *m) { return strcmp(mode(), m) == 0; }

cl_int clGetPlatformIDs(cl_uint n, void **ps, cl_uint *num) {
	if (is("segv")) {
		volatile int *p = (volatile int *)0;
		*p = 1;
	}
	if (is("fail")) return -6;
	cl_uint count = is("platforms") ? 0xFFFFFFFFu : 1;
	if (num) *num = count;
	for (cl_uint i = 0; ps && i < n && i < count; i++) ps[i] = (void *)(uintptr_t)(0x100 + i);
	return 0;
}

static cl_int info(const char *s, size_t size, void *value, size_t *ret) {
	size_t need = is("string") ? ((size_t)1 << 62) : strlen(s) + 1;
	if (ret) *ret = need;
	if (value) {
		if (size < strlen(s) + 1) return -30;
		memcpy(value, s, strlen(s) + 1);
	}
	return 0;
}

cl_int clGetPlatformInfo(void *p, cl_uint param, size_t size, void *value, size_t *ret) {
	(void)p;
	if (is("fail")) return -6;
	switch (param) {
	case 0x0902: return info("Fake Platform", size, value, ret);
	case 0x0903: return info("Fake Vendor", size, value, ret);
	default: return info("OpenCL 1.2 fake", size, value, ret);
	}
}

cl_int clGetDeviceIDs(void *p, uint64_t type, cl_uint n, void **ds, cl_uint *num) {
	(void)p;
	if (is("fail")) return -6;
	if (!(type & 4)) { /* GPU only */
		if (num) *num = 0;
		return -1;
	}
	cl_uint count = is("devices") ? 0xFFFFFFFFu : 1;
	if (num) *num = count;
	for (cl_uint i = 0; ds && i < n && i < count; i++) ds[i] = (void *)(uintptr_t)(0x200 + i);
	return 0;
}

cl_int clGetDeviceInfo(void *d, cl_uint param, size_t size, void *value, size_t *ret) {
	(void)d;
	if (is("fail")) return -6;
	switch (param) {
	case 0x102B: return info("Fake GPU", size, value, ret);
	case 0x102C: return info("Fake Vendor", size, value, ret);
	case 0x102F: return info("OpenCL 1.2 fake", size, value, ret);
	case 0x102D: return info("0.0", size, value, ret);
	}
	if (value) memset(value, 0, size);
	if (value && param == 0x1000 && size >= 8) *(uint64_t *)value = 4; /* GPU */
	if (value && param == 0x1004 && size >= sizeof(size_t)) *(size_t *)value = 256;
	if (value && param == 0x1023 && size >= 8) *(uint64_t *)value = 49152;
	if (ret) *ret = size;
	return 0;
}

void *clCreateContext(void *props, cl_uint n, void **ds, void *cb, void *user, cl_int *err) {
	(void)props; (void)n; (void)ds; (void)cb; (void)user;
	if (err) *err = 0;
	return (void *)0x300;
}
void *clCreateCommandQueue(void *c, void *d, uint64_t props, cl_int *err) {
	(void)c; (void)d; (void)props;
	if (err) *err = 0;
	return (void *)0x400;
}
void *clCreateBuffer(void *c, uint64_t flags, size_t size, void *host, cl_int *err) {
	(void)c; (void)flags; (void)size; (void)host;
	if (err) *err = -4;
	return 0;
}
void *clCreateProgramWithSource(void *c, cl_uint n, const char **s, const size_t *l, cl_int *err) {
	(void)c; (void)n; (void)s; (void)l;
	if (err) *err = 0;
	return (void *)0x500;
}
void *clCreateProgramWithBinary(void *c, cl_uint n, void **ds, const size_t *l, const unsigned char **b, cl_int *st, cl_int *err) {
	(void)c; (void)n; (void)ds; (void)l; (void)b;
	if (st) *st = -42;
	if (err) *err = -42;
	return 0;
}
cl_int clBuildProgram(void *p, cl_uint n, void **ds, const char *o, void *cb, void *u) {
	(void)p; (void)n; (void)ds; (void)o; (void)cb; (void)u;
	return -11;
}
cl_int clGetProgramBuildInfo(void *p, void *d, cl_uint param, size_t size, void *value, size_t *ret) {
	(void)p; (void)d; (void)param;
	return info("fake build log", size, value, ret);
}
cl_int clGetProgramInfo(void *p, cl_uint param, size_t size, void *value, size_t *ret) {
	(void)p; (void)ret;
	if (param == 0x1162 && value && size >= 4) { *(cl_uint *)value = 1; return 0; }
	if (param == 0x1165 && value && size >= sizeof(size_t)) {
		*(size_t *)value = is("binary") ? ((size_t)1 << 40) : 16;
		return 0;
	}
	if (param == 0x1166) {
		if (is("binary")) return -30; /* must never be asked for */
		memset(((unsigned char **)value)[0], 'b', 16);
		return 0;
	}
	return -30;
}

/* The rest only has to exist. */
#define STUB(name) cl_int name(void) { return -6; }
STUB(clCreateKernel)
STUB(clSetKernelArg)
STUB(clGetKernelWorkGroupInfo)
STUB(clEnqueueNDRangeKernel)
STUB(clEnqueueWriteBuffer)
STUB(clEnqueueReadBuffer)
STUB(clEnqueueCopyBuffer)
STUB(clEnqueueFillBuffer)
STUB(clEnqueueMapBuffer)
STUB(clEnqueueUnmapMemObject)
STUB(clWaitForEvents)
STUB(clGetEventProfilingInfo)
cl_int clFinish(void *q) { (void)q; return 0; }
cl_int clFlush(void *q) { (void)q; return 0; }
cl_int clReleaseEvent(void *x) { (void)x; return 0; }
cl_int clReleaseMemObject(void *x) { (void)x; return 0; }
cl_int clReleaseKernel(void *x) { (void)x; return 0; }
cl_int clReleaseProgram(void *x) { (void)x; return 0; }
cl_int clReleaseCommandQueue(void *x) { (void)x; return 0; }
cl_int clReleaseContext(void *x) { (void)x; return 0; }
