// argmax_times.cu - the time of duo_segmented_reduce_arg_equal (DUO_MAX)
// at four shapes, f32 and f64: 2^10 segments of 2^12 and 2^16 elements
// (group_kernel) and 16 of 2^20, 4 of 2^22 (split_kernel).  Each time is
// the median of 201 calls after one warm-up, timed by CUDA events on the
// default stream.  No yardstick: it is for comparing two builds of
// segmented.cu back to back (argmax-local-memory-h100.md).
//
// Build against a CUDA build of duo (from the repository root):
//   nvcc -arch=sm_90 -O3 -std=c++17 -Iinclude -Ibuild/cuda/include \
//        profiles/segmented/argmax_times.cu build/cuda/src/libduo_cuda.a \
//        -Xcompiler -fopenmp -lcuda -o argmax_times
#include <duo.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "timing_common.cuh"

static void check(cudaError_t e, const char *what)
{
    check_as("argmax_times", e, what);
}

int main()
{
    if (duo_init() != DUO_SUCCESS) {
        std::fprintf(stderr, "argmax_times: %s\n", duo_last_error());
        return 1;
    }
    const size_t max_n = (size_t)1 << 26, max_nseg = 1024;
    void *x = NULL, *value = NULL;
    size_t *index = NULL;
    if (duo_malloc(&x, max_n * sizeof(double)) ||
        duo_malloc((void **)&index, max_nseg * sizeof(size_t)) ||
        duo_malloc(&value, max_nseg * sizeof(double))) {
        std::fprintf(stderr, "argmax_times: %s\n", duo_last_error());
        return 1;
    }
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    const struct {
        size_t nseg, len;
    } shapes[] = {{1024, 4096}, {1024, 65536}, {16, 1 << 20}, {4, 1 << 22}};
    for (int t = 0; t < 2; ++t) {
        const duo_dtype type = t == 0 ? DUO_F32 : DUO_F64;
        if (t == 0)
            fill<float><<<1024, 256>>>((float *)x, max_n);
        else
            fill<double><<<1024, 256>>>((double *)x, max_n);
        check(cudaDeviceSynchronize(), "fill");
        for (const auto &s : shapes) {
            std::vector<float> ms;
            for (int r = 0; r <= 201; ++r) {
                check(cudaEventRecord(e0), "cudaEventRecord");
                if (duo_segmented_reduce_arg_equal(DUO_MAX, type, x, s.len,
                                                   s.nseg, index, value,
                                                   NULL) != DUO_SUCCESS) {
                    std::fprintf(stderr, "argmax_times: %s\n",
                                 duo_last_error());
                    return 1;
                }
                check(cudaEventRecord(e1), "cudaEventRecord");
                check(cudaEventSynchronize(e1), "cudaEventSynchronize");
                float m = 0;
                check(cudaEventElapsedTime(&m, e0, e1),
                      "cudaEventElapsedTime");
                if (r > 0) // the first call is the warm-up
                    ms.push_back(m);
            }
            std::sort(ms.begin(), ms.end());
            std::printf("argmax %s %zux%zu: %8.2f us\n",
                        t == 0 ? "f32" : "f64", s.nseg, s.len,
                        ms[ms.size() / 2] * 1e3);
        }
    }
    check(cudaEventDestroy(e0), "cudaEventDestroy");
    check(cudaEventDestroy(e1), "cudaEventDestroy");
    duo_free(x);
    duo_free(index);
    duo_free(value);
    duo_finalize();
    return 0;
}
