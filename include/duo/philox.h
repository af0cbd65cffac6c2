/*
 * duo/philox.h - Philox4x32-10, a counter-based random number generator
 * that kernels call on every backend.
 *
 * Philox maps a 128-bit counter and a 64-bit key to 128 random bits with
 * no state: draw number i of a stream is a pure function of (i, key), so
 * every GPU thread or CPU loop iteration computes its own draws, in any
 * order, and every backend produces the same bits.  This is exactly the
 * Philox4x32-10 of Random123 (Salmon, Moraes, Dror and Shaw, "Parallel
 * random numbers: as easy as 1, 2, 3", SC11): multipliers 0xD2511F53 and
 * 0xCD9E8D57, Weyl key increments 0x9E3779B9 and 0xBB67AE85, 10 rounds.
 * tests/test_philox.c checks it against Random123's published known-answer
 * vectors and, inside a kernel, against the host.
 *
 *   #include <duo/philox.h>
 *
 *   DUO_KERNEL(fill_uniform, size_t n, uint64_t seed, double *x)
 *   {
 *       DUO_FOR(i, n) {
 *           duo_philox4x32_key key = duo_philox4x32_key_make(
 *               (uint32_t)seed, (uint32_t)(seed >> 32));
 *           duo_philox4x32_ctr ctr = duo_philox4x32_ctr_make(
 *               (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0, 0);
 *           duo_philox4x32_ctr r = duo_philox4x32_10(ctr, key);
 *           x[i] = duo_philox_uniform_f64(r.v[0], r.v[1]);
 *       }
 *   }
 *
 * Give every draw its own counter (e.g. the element index in one word and
 * a step or stream number in another) and keep the key for the seed.
 *
 * The uniform helpers turn integers into floating-point numbers exactly
 * (an integer of at most 24 or 53 bits times a power of two), so they too
 * give the same bits everywhere.
 *
 * Plain uint32_t / uint64_t arithmetic: the common subset of C11 and CUDA
 * C++17, callable from kernels (DUO_DEVICE) and from host code.  This
 * header is not included by <duo.h>; include it where it is used.
 */
#ifndef DUO_PHILOX_H
#define DUO_PHILOX_H

#include <stdint.h>

#include <duo.h>

/* 4 x 32-bit counter (also the type of the output block). */
typedef struct duo_philox4x32_ctr {
    uint32_t v[4];
} duo_philox4x32_ctr;

/* 2 x 32-bit key. */
typedef struct duo_philox4x32_key {
    uint32_t v[2];
} duo_philox4x32_key;

#define DUO_PHILOX_M4x32_0 0xD2511F53u
#define DUO_PHILOX_M4x32_1 0xCD9E8D57u
#define DUO_PHILOX_W32_0 0x9E3779B9u
#define DUO_PHILOX_W32_1 0xBB67AE85u

DUO_DEVICE duo_philox4x32_ctr duo_philox4x32_ctr_make(uint32_t c0,
                                                       uint32_t c1,
                                                       uint32_t c2,
                                                       uint32_t c3)
{
    duo_philox4x32_ctr c;
    c.v[0] = c0;
    c.v[1] = c1;
    c.v[2] = c2;
    c.v[3] = c3;
    return c;
}

DUO_DEVICE duo_philox4x32_key duo_philox4x32_key_make(uint32_t k0,
                                                       uint32_t k1)
{
    duo_philox4x32_key k;
    k.v[0] = k0;
    k.v[1] = k1;
    return k;
}

/* One round: two 32 x 32 -> 64-bit products (the high and low halves),
 * xored with the other two words and the round key. */
DUO_DEVICE duo_philox4x32_ctr duo_philox4x32_round_(duo_philox4x32_ctr c,
                                                     duo_philox4x32_key k)
{
    const uint64_t p0 = (uint64_t)DUO_PHILOX_M4x32_0 * c.v[0];
    const uint64_t p1 = (uint64_t)DUO_PHILOX_M4x32_1 * c.v[2];
    duo_philox4x32_ctr out;
    out.v[0] = (uint32_t)(p1 >> 32) ^ c.v[1] ^ k.v[0];
    out.v[1] = (uint32_t)p1;
    out.v[2] = (uint32_t)(p0 >> 32) ^ c.v[3] ^ k.v[1];
    out.v[3] = (uint32_t)p0;
    return out;
}

/* Philox4x32-10: the first round uses the key as given, and the key is
 * bumped by the Weyl constants before each of the other nine. */
DUO_DEVICE duo_philox4x32_ctr duo_philox4x32_10(duo_philox4x32_ctr ctr,
                                                duo_philox4x32_key key)
{
    ctr = duo_philox4x32_round_(ctr, key);
    for (int r = 1; r < 10; ++r) {
        key.v[0] += DUO_PHILOX_W32_0;
        key.v[1] += DUO_PHILOX_W32_1;
        ctr = duo_philox4x32_round_(ctr, key);
    }
    return ctr;
}

/* Uniform float in [0, 1): the high 24 bits of x times 2^-24, so one of
 * the 2^24 values k / 2^24 (largest 1 - 2^-24).  Exact, hence the same on
 * every backend. */
DUO_DEVICE float duo_philox_uniform_f32(uint32_t x)
{
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}

/* Uniform double in [0, 1) from 53 bits: the high 32 bits of `hi` then
 * the high 21 bits of `lo`, times 2^-53 (largest 1 - 2^-53).  Exact. */
DUO_DEVICE double duo_philox_uniform_f64(uint32_t hi, uint32_t lo)
{
    const uint64_t bits = ((uint64_t)hi << 21) | (uint64_t)(lo >> 11);
    return (double)bits * (1.0 / 9007199254740992.0);
}

#endif /* DUO_PHILOX_H */
