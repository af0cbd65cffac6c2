/*
 * dtype.c - duo_dtype_size: a fact about the public types that the
 * backends need as much as the public calls, so it sits in the bottom
 * layer (backend.h) and calls nothing.
 */
#include <duo.h>

size_t duo_dtype_size(duo_dtype type)
{
    switch (type) {
    case DUO_F32: case DUO_I32: return 4;
    case DUO_F64: case DUO_I64: case DUO_U64: return 8;
    }
    return 0;
}
