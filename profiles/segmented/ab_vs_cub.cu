// ab_vs_cub.cu - duo_segmented_reduce against CUB DeviceSegmentedReduce
// at 2^10 segments of 2^10 to 2^16 elements, both timed in one process
// by CUDA events, runs alternating (duo first on even runs, CUB first on
// odd ones), medians.  It has no check of its own (duo-bench checks the
// same calls); it is the short program for comparing two builds of
// segmented.cu back to back, and a small target for Nsight Compute.
//
// Build against a CUDA build of duo (from the repository root):
//   nvcc -arch=sm_90 -O3 -std=c++17 -Iinclude -Ibuild/cuda/include \
//        profiles/segmented/ab_vs_cub.cu build/cuda/src/libduo_cuda.a \
//        -Xcompiler -fopenmp -lcuda -o ab_vs_cub
//   ./ab_vs_cub [runs, default 101] [segment length, default all four]
// (one length and a few runs make a short target for Nsight Compute)
#include <duo.h>

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "timing_common.cuh"

static void check(cudaError_t e, const char *what)
{
    check_as("ab_vs_cub", e, what);
}

__global__ void equal_offsets(size_t *offsets, size_t nseg, size_t len)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= nseg;
         i += (size_t)gridDim.x * blockDim.x)
        offsets[i] = i * len;
}

struct Row {
    const char *name;
    duo_reduce_op op;
    bool equal; // duo_segmented_reduce_equal (CUB still reads offsets)
};

template <class T>
static void run_row(const Row &r, size_t nseg, size_t len, void *x,
                    size_t *offsets, void *duo_out, void *cub_out, int runs)
{
    static void *temp = NULL;
    static size_t temp_bytes = 0;
    const duo_dtype type = sizeof(T) == 4 ? DUO_F32 : DUO_F64;
    const size_t n = nseg * len;
    auto duo = [&] {
        const duo_status s =
            r.equal ? duo_segmented_reduce_equal(r.op, type, x, len, nseg,
                                                 duo_out, NULL)
                    : duo_segmented_reduce(r.op, type, x, n, offsets, nseg,
                                           duo_out, NULL);
        if (s != DUO_SUCCESS) {
            std::fprintf(stderr, "ab_vs_cub: %s\n", duo_last_error());
            std::exit(1);
        }
    };
    auto cub_call = [&](void *t, size_t &bytes) {
        const T *in = (const T *)x;
        T *out = (T *)cub_out;
        return r.op == DUO_MAX
                   ? cub::DeviceSegmentedReduce::Max(t, bytes, in, out,
                                                     (int)nseg, offsets,
                                                     offsets + 1, 0)
                   : cub::DeviceSegmentedReduce::Sum(t, bytes, in, out,
                                                     (int)nseg, offsets,
                                                     offsets + 1, 0);
    };
    size_t need = 0;
    check(cub_call(NULL, need), "CUB size query");
    if (need > temp_bytes) {
        check(cudaFree(temp), "cudaFree");
        check(cudaMalloc(&temp, need), "cudaMalloc");
        temp_bytes = need;
    }
    auto cub = [&] { check(cub_call(temp, need), "CUB"); };
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    auto time = [&](auto call) {
        check(cudaEventRecord(e0), "cudaEventRecord");
        call();
        check(cudaEventRecord(e1), "cudaEventRecord");
        check(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        return ms;
    };
    duo(); // warm-up
    cub();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<float> td, tc;
    for (int k = 0; k < runs; ++k) {
        if (k % 2 == 0) {
            td.push_back(time(duo));
            tc.push_back(time(cub));
        } else {
            tc.push_back(time(cub));
            td.push_back(time(duo));
        }
    }
    std::sort(td.begin(), td.end());
    std::sort(tc.begin(), tc.end());
    const float d = td[runs / 2], c = tc[runs / 2];
    std::printf("%-14s 2^%dx2^%d: duo %7.2f us  CUB %7.2f us  ratio %.3f\n",
                r.name, __builtin_ctzll(nseg), __builtin_ctzll(len), d * 1e3,
                c * 1e3, c / d);
    check(cudaEventDestroy(e0), "cudaEventDestroy");
    check(cudaEventDestroy(e1), "cudaEventDestroy");
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::atoi(argv[1]) : 101;
    const long only = argc > 2 ? std::atol(argv[2]) : 0;
    if (runs < 1) {
        std::fprintf(stderr, "ab_vs_cub: runs: expected a count >= 1\n");
        return 2;
    }
    if (argc > 2 && (only != 1024 && only != 4096 && only != 16384 &&
                     only != 65536)) {
        std::fprintf(stderr, "ab_vs_cub: segment length: expected 1024, "
                             "4096, 16384 or 65536\n");
        return 2;
    }
    if (duo_init() != DUO_SUCCESS) {
        std::fprintf(stderr, "ab_vs_cub: %s\n", duo_last_error());
        return 1;
    }
    const size_t nseg = 1024, max_len = (size_t)1 << 16;
    void *x = NULL, *duo_out = NULL, *cub_out = NULL;
    size_t *offsets = NULL;
    if (duo_malloc(&x, nseg * max_len * sizeof(double)) ||
        duo_malloc(&duo_out, nseg * sizeof(double)) ||
        duo_malloc(&cub_out, nseg * sizeof(double)) ||
        duo_malloc((void **)&offsets, (nseg + 1) * sizeof(size_t))) {
        std::fprintf(stderr, "ab_vs_cub: %s\n", duo_last_error());
        return 1;
    }
    const Row f32_rows[] = {{"sum f32", DUO_SUM, false},
                            {"max f32", DUO_MAX, false},
                            {"sum f32 equal", DUO_SUM, true}};
    const Row f64_row = {"sum f64", DUO_SUM, false};
    for (size_t len = 1024; len <= max_len; len *= 4) {
        if (only != 0 && len != (size_t)only)
            continue;
        equal_offsets<<<64, 256>>>(offsets, nseg, len);
        fill<float><<<1024, 256>>>((float *)x, nseg * len);
        check(cudaDeviceSynchronize(), "fill");
        for (const Row &r : f32_rows)
            run_row<float>(r, nseg, len, x, offsets, duo_out, cub_out, runs);
        fill<double><<<1024, 256>>>((double *)x, nseg * len);
        check(cudaDeviceSynchronize(), "fill");
        run_row<double>(f64_row, nseg, len, x, offsets, duo_out, cub_out,
                        runs);
    }
    duo_free(x);
    duo_free(duo_out);
    duo_free(cub_out);
    duo_free(offsets);
    duo_finalize();
    return 0;
}
