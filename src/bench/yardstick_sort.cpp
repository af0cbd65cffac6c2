/*
 * yardstick_sort.cpp - the CPU sort yardstick: the input copied to the
 * output, then std::sort (keys) or std::stable_sort (pairs, by key) on
 * one thread, as a C++ programmer without duo sorts.  Built only where
 * CMake found a C++ compiler (DUO_BENCH_HAVE_CXX_SORT); the functions
 * are C-callable (yardstick.h).
 */
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "yardstick.h"

int ys_sort_u32(const uint32_t *in, uint32_t *out, size_t n)
{
    std::memcpy(out, in, n * sizeof *out);
    std::sort(out, out + n);
    return 1;
}

int ys_sort_f32(const float *in, float *out, size_t n)
{
    std::memcpy(out, in, n * sizeof *out);
    std::sort(out, out + n);
    return 1;
}

int ys_sort_pairs_u32(const uint32_t *keys_in, uint32_t *keys_out,
                      const uint32_t *values_in, uint32_t *values_out,
                      size_t n)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs(n);
    for (size_t i = 0; i < n; ++i)
        pairs[i] = std::make_pair(keys_in[i], values_in[i]);
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const std::pair<uint32_t, uint32_t> &a,
                        const std::pair<uint32_t, uint32_t> &b) {
                         return a.first < b.first;
                     });
    for (size_t i = 0; i < n; ++i) {
        keys_out[i] = pairs[i].first;
        values_out[i] = pairs[i].second;
    }
    return 1;
}
