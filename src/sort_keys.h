/*
 * sort_keys.h - the one key order of duo_sort, as a map from each key
 * type to unsigned integers whose plain order is the sort order.  Both
 * backends sort the mapped keys with an unsigned radix sort
 * (backend_cpu/sort.c: duo's own radix sort; backend_cuda/sort.cu: CUB's
 * DeviceRadixSort), so the order never rests on either sort's own
 * treatment of signs, -0 or NaN:
 *
 *   unsigned   the key itself;
 *   signed     the sign bit flipped (INT_MIN -> 0, -1 -> 0x7F..F, 0 ->
 *              0x80..0);
 *   float      sign bit set: every bit flipped; clear: the sign bit
 *              flipped -- so -NaN < -inf < ... < -0 < +0 < ... < +inf <
 *              +NaN (duo/primitives.h);
 *   descending every bit of the ascending key flipped: a stable ascending
 *              sort of flipped keys is the stable descending sort.
 *
 * The map is a bijection, so the sorted keys come back by its inverse.
 */
#ifndef DUO_SORT_KEYS_H
#define DUO_SORT_KEYS_H

#include <stdint.h>

#include <duo.h>

#if defined(__CUDACC__)
#define DUO_SORT_KEYS_FN static inline __host__ __device__
#else
#define DUO_SORT_KEYS_FN static inline
#endif

/* The bits XORed into a key of `bits` bits (32 or 64) to map it, given
 * its sign bit where it has one.  Float keys with the sign set flip every
 * bit; signed integers and non-negative floats flip the sign bit. */
typedef enum duo_key_kind {
    DUO_KEY_KIND_UNSIGNED,
    DUO_KEY_KIND_SIGNED,
    DUO_KEY_KIND_FLOAT
} duo_key_kind;

DUO_SORT_KEYS_FN uint64_t duo_sort_key_mask(duo_key_kind kind, int bits,
                                            uint64_t key, int descending)
{
    const uint64_t all = bits == 64 ? ~(uint64_t)0 : 0xFFFFFFFFull;
    const uint64_t sign = (uint64_t)1 << (bits - 1);
    uint64_t mask = 0;
    if (kind == DUO_KEY_KIND_SIGNED)
        mask = sign;
    else if (kind == DUO_KEY_KIND_FLOAT)
        mask = (key & sign) ? all : sign;
    return descending ? mask ^ all : mask;
}

/* Key -> mapped key. */
DUO_SORT_KEYS_FN uint64_t duo_sort_key_map(duo_key_kind kind, int bits,
                                           uint64_t key, int descending)
{
    return key ^ duo_sort_key_mask(kind, bits, key, descending);
}

/* Mapped key -> key.  The sign of the original is the mapped key's top
 * bit, inverted (a float with the sign set maps below every float
 * without), and again for descending. */
DUO_SORT_KEYS_FN uint64_t duo_sort_key_unmap(duo_key_kind kind, int bits,
                                             uint64_t mapped, int descending)
{
    const uint64_t all = bits == 64 ? ~(uint64_t)0 : 0xFFFFFFFFull;
    const uint64_t ascending = descending ? mapped ^ all : mapped;
    if (kind == DUO_KEY_KIND_UNSIGNED)
        return ascending;
    const uint64_t sign = (uint64_t)1 << (bits - 1);
    if (kind == DUO_KEY_KIND_SIGNED)
        return ascending ^ sign;
    return (ascending & sign) ? ascending ^ sign : ascending ^ all;
}

/* Kind and width of a duo_key_type. */
DUO_SORT_KEYS_FN duo_key_kind duo_sort_key_kind(duo_key_type type)
{
    return type == DUO_KEY_I32 || type == DUO_KEY_I64 ? DUO_KEY_KIND_SIGNED
           : type == DUO_KEY_U32 || type == DUO_KEY_U64
               ? DUO_KEY_KIND_UNSIGNED
               : DUO_KEY_KIND_FLOAT;
}
DUO_SORT_KEYS_FN int duo_sort_key_bits(duo_key_type type)
{
    return type == DUO_KEY_I32 || type == DUO_KEY_U32 || type == DUO_KEY_F32
               ? 32
               : 64;
}

#endif /* DUO_SORT_KEYS_H */
