/*
 * launch_wait_floor.cu - what a host-waited GPU step costs before any
 * data moves: an empty kernel (8 blocks of 256 threads, the shape of the
 * ipc halo kernel) and cudaStreamSynchronize, then an 8 KB device copy
 * and the same wait.  200 calls per repeat, median of 15 repeats, per
 * call.  A floor for duo_dist_halo_exchange on one GPU per rank: any path
 * that starts GPU work and waits for it pays at least this.
 *
 *   nvcc -O2 -arch=sm_90 -o launch_wait_floor launch_wait_floor.cu
 *   ./launch_wait_floor
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TRY(call)                                                         \
    do {                                                                  \
        cudaError_t e_ = (call);                                          \
        if (e_ != cudaSuccess) {                                          \
            fprintf(stderr, "%s failed: %s\n", #call,                    \
                    cudaGetErrorString(e_));                              \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

__global__ void empty_kernel() {}

int main()
{
    char *d = nullptr;
    TRY(cudaMalloc(&d, 1 << 16));
    const char *what[2] = {"empty kernel <<<8,256>>>", "8 KB D2D copy"};
    for (int mode = 0; mode < 2; ++mode) {
        std::vector<double> t;
        for (int rep = 0; rep < 15; ++rep) {
            auto a = std::chrono::steady_clock::now();
            for (int i = 0; i < 200; ++i) {
                if (mode == 0) {
                    empty_kernel<<<8, 256>>>();
                    TRY(cudaGetLastError());
                } else {
                    TRY(cudaMemcpyAsync(d, d + 32768, 8192,
                                        cudaMemcpyDeviceToDevice, 0));
                }
                TRY(cudaStreamSynchronize(0));
            }
            auto b = std::chrono::steady_clock::now();
            t.push_back(
                std::chrono::duration<double, std::micro>(b - a).count() /
                200);
        }
        std::sort(t.begin(), t.end());
        printf("%s + cudaStreamSynchronize: median %.2f us per call\n",
               what[mode], t[7]);
    }
    TRY(cudaFree(d));
    return 0;
}
