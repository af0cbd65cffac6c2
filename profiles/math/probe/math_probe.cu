/*
 * math_probe.cu - a probe, not part of the build: each float function of
 * <duo/math.h> (and, when named, some double ones: FUNCS_D) in a kernel
 * of the shape of duo-bench's math group (2^26 arguments, one per
 * thread, 256-thread blocks, x and y in, one output),
 * against CUDA's own function, timed with CUDA events (median of 21 runs
 * after 3 warm-ups).  Three kernels per function: duo's with DUO_FOR's
 * loop (a size_t grid-stride loop), CUDA's with the same loop, and duo's
 * with a 32-bit index, to see what the loop's 64-bit arithmetic costs.
 * Every 64th output of duo's kernel is compared with the same function
 * in host code ("host-bits-differ" must read 0; the exit status is 1
 * otherwise).
 *
 * Built and run by probe.sh, which can also build it against a changed
 * copy of the headers (an experiment, never the library's code).
 */
#include <duo.h>
#include <duo/math.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define FUNCS(X) \
 X(expf, duo_expf(a), expf(a), 160, -80) X(exp2f, duo_exp2f(a), exp2f(a), 240, -120) \
 X(expm1f, duo_expm1f(a), expm1f(a), 160, -80) X(logf, duo_logf(a), logf(a), 1e6, 1e-6) \
 X(log2f, duo_log2f(a), log2f(a), 1e6, 1e-6) X(log10f, duo_log10f(a), log10f(a), 1e6, 1e-6) \
 X(log1pf, duo_log1pf(a), log1pf(a), 1e3, -0.999) X(sinf, duo_sinf(a), sinf(a), 200, -100) \
 X(cosf, duo_cosf(a), cosf(a), 200, -100) X(tanf, duo_tanf(a), tanf(a), 200, -100) \
 X(atanf, duo_atanf(a), atanf(a), 20, -10) X(asinf, duo_asinf(a), asinf(a), 2, -1) \
 X(acosf, duo_acosf(a), acosf(a), 2, -1) X(sinhf, duo_sinhf(a), sinhf(a), 160, -80) \
 X(coshf, duo_coshf(a), coshf(a), 160, -80) X(tanhf, duo_tanhf(a), tanhf(a), 20, -10) \
 X(cbrtf, duo_cbrtf(a), cbrtf(a), 1e6, 1e-6) X(erff, duo_erff(a), erff(a), 10, -5) \
 X(atan2f, duo_atan2f(a, b), atan2f(a, b), 200, -100) X(hypotf, duo_hypotf(a, b), hypotf(a, b), 200, -100) \
 X(powf, duo_powf(a, b), powf(a, b), 4, 1e-6)
/* double functions: the same shape with double arguments and results */
#define FUNCS_D(X) \
 X(atan, duo_atan(a), atan(a), 20, -10) X(asin, duo_asin(a), asin(a), 2, -1) \
 X(acos, duo_acos(a), acos(a), 2, -1) X(atan2, duo_atan2(a, b), atan2(a, b), 200, -100) \
 X(sin, duo_sin(a), sin(a), 200, -100) X(cos, duo_cos(a), cos(a), 200, -100) \
 X(tan, duo_tan(a), tan(a), 200, -100) \
 X(log1p, duo_log1p(a), log1p(a), 1e3, -0.999) X(cbrt, duo_cbrt(a), cbrt(a), 1e6, 1e-6) \
 X(sinh, duo_sinh(a), sinh(a), 160, -80) X(tanh, duo_tanh(a), tanh(a), 20, -10) \
 X(erf, duo_erf(a), erf(a), 10, -5)

#define LOOP64(i, n) for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)
#define LOOP32(i, n) for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)(n); i += gridDim.x * blockDim.x)
/* duo's kernel with the 32-bit index (e_), with DUO_FOR's (d_), CUDA's
 * (c_), and duo's function in host code, for arguments of type T */
#define KERN_T(T, name, de, ye, sc, of) \
 __global__ void e_##name(size_t n, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out) \
 { LOOP32(i, n) { T a = x[i]; [[maybe_unused]] T b = y[i]; out[i] = de; } } \
 __global__ void d_##name(size_t n, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out) \
 { LOOP64(i, n) { T a = x[i]; [[maybe_unused]] T b = y[i]; out[i] = de; } } \
 __global__ void c_##name(size_t n, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out) \
 { LOOP64(i, n) { T a = x[i]; [[maybe_unused]] T b = y[i]; out[i] = ye; } } \
 static T de_host_##name(T a, [[maybe_unused]] T b) { return de; }
#define KERN(...) KERN_T(float, __VA_ARGS__)
#define KERN_D(...) KERN_T(double, __VA_ARGS__)
FUNCS(KERN)
FUNCS_D(KERN_D)

template <typename T>
static float time_it(void (*k)(size_t, const T *, const T *, T *), size_t n, const T *x, const T *y, T *o)
{
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    unsigned g = (unsigned)((n + 255) / 256);
    for (int w = 0; w < 3; ++w) k<<<g, 256>>>(n, x, y, o);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < 21; ++r) {
        CK(cudaEventRecord(a)); k<<<g, 256>>>(n, x, y, o); CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
    return t[10];
}

static uint64_t mix(uint64_t z) { z += 0x9e3779b97f4a7c15ull; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }

/* Times the three kernels of one function on x, y (copied from hx, hy),
 * prints the line and returns how many of every 64th output differ from
 * host code. */
template <typename T>
static size_t measure(const char *name, void (*kd)(size_t, const T *, const T *, T *),
                      void (*kc)(size_t, const T *, const T *, T *), void (*ke)(size_t, const T *, const T *, T *),
                      T (*host)(T, T), const std::vector<T> &hx, const std::vector<T> &hy,
                      T *x, T *y, T *o, T *o2)
{
    size_t n = hx.size();
    std::vector<T> hd(n);
    CK(cudaMemcpy(x, hx.data(), n * sizeof(T), cudaMemcpyHostToDevice)); CK(cudaMemcpy(y, hy.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(o, 0xff, n * sizeof(T))); /* poison: a NaN the kernel must overwrite */
    float td = time_it(kd, n, x, y, o), tc = time_it(kc, n, x, y, o2), te = time_it(ke, n, x, y, o2);
    CK(cudaMemcpy(hd.data(), o, n * sizeof(T), cudaMemcpyDeviceToHost));
    size_t differ = 0;
    for (size_t i = 0; i < n; i += 64) { T r = host(hx[i], hy[i]); if (memcmp(&r, &hd[i], sizeof(T))) ++differ; }
    printf("%-8s %10.2f %10.2f %7.3f  idx32 %10.2f %7.3f  host-bits-differ=%zu\n", name, td, tc, tc / td, te, tc / te, differ); fflush(stdout);
    return differ;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)1 << 26;
    std::vector<float> hx(n), hy(n);
    /* names to run, each followed by a comma; matched with the comma
     * before it too, so that "sinf," does not pick asinf */
    char want[1024] = ",";
    if (argc > 1)
        snprintf(want, sizeof want, ",%s", argv[1]);
    size_t bad = 0;
    float *x, *y, *o, *o2;
    CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&y, n * 4)); CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&o2, n * 4));
    printf("%-8s %10s %10s %7s  %-5s %10s %7s\n", "func", "duo_us", "cuda_us", "ratio", "", "duo32_us", "ratio");
#define RUN(name, de, ye, sc, of) \
    if (argc < 2 || strstr(want, "," #name ",")) { \
        _Pragma("omp parallel for") for (size_t i = 0; i < n; ++i) { double u = (mix(2 * i) >> 11) * 0x1p-53, v = (mix(2 * i + 1) >> 11) * 0x1p-53; \
            hx[i] = (float)(sc * u + of); hy[i] = (float)(!strcmp(#name, "powf") ? 16 * v - 8 : sc * v + of); } \
        bad += measure(#name, d_##name, c_##name, e_##name, de_host_##name, hx, hy, x, y, o, o2); }
    FUNCS(RUN)
    {
        std::vector<double> dx(n), dy(n);
        double *x2, *y2, *o3, *o4;
        CK(cudaMalloc(&x2, n * 8)); CK(cudaMalloc(&y2, n * 8)); CK(cudaMalloc(&o3, n * 8)); CK(cudaMalloc(&o4, n * 8));
#define RUN_D(name, de, ye, sc, of) \
    if (argc > 1 && strstr(want, "," #name ",")) { \
        _Pragma("omp parallel for") for (size_t i = 0; i < n; ++i) { double u = (mix(2 * i) >> 11) * 0x1p-53, v = (mix(2 * i + 1) >> 11) * 0x1p-53; \
            dx[i] = sc * u + of; dy[i] = sc * v + of; } \
        bad += measure(#name, d_##name, c_##name, e_##name, de_host_##name, dx, dy, x2, y2, o3, o4); }
        FUNCS_D(RUN_D)
        CK(cudaFree(x2)); CK(cudaFree(y2)); CK(cudaFree(o3)); CK(cudaFree(o4));
    }
    CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(o)); CK(cudaFree(o2));
    return bad != 0;
}
