/*
 * memory.c - device and pinned allocations, copies, memset and streams:
 * argument checks shared by every backend.
 */
#include "profile.h"

/* Every call here but duo_memcpy_async waits for the device or changes
 * what it holds, so none may be part of a graph capture. */
#define REQUIRE_INIT(where)                                     \
    do {                                                        \
        duo_status init_status_ = duo_require_sync_call(where); \
        if (init_status_ != DUO_SUCCESS)                        \
            return init_status_;                                \
    } while (0)

static duo_status null_arg(const char *where, const char *arg,
                           const char *expected)
{
    return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where, "%s is NULL; %s", arg,
                    expected);
}

/* Zero bytes give NULL without touching the backend. */
static duo_status allocate(const char *where, void **ptr, size_t bytes,
                           duo_status (*backend_alloc)(void **, size_t))
{
    if (ptr == NULL)
        return null_arg(where, "ptr", "pass the address of a pointer");
    REQUIRE_INIT(where);
    if (bytes == 0) {
        *ptr = NULL;
        return DUO_SUCCESS;
    }
    void *p = NULL;
    duo_status status = backend_alloc(&p, bytes);
    if (status == DUO_SUCCESS)
        *ptr = p;
    return status;
}

duo_status duo_malloc(void **ptr, size_t bytes)
{
    return allocate("duo_malloc", ptr, bytes, duo_be_malloc);
}

duo_status duo_malloc_host(void **ptr, size_t bytes)
{
    return allocate("duo_malloc_host", ptr, bytes, duo_be_malloc_host);
}

duo_status duo_free(void *ptr)
{
    if (ptr == NULL)
        return DUO_SUCCESS;
    REQUIRE_INIT("duo_free");
    return duo_be_free(ptr);
}

duo_status duo_free_host(void *ptr)
{
    if (ptr == NULL)
        return DUO_SUCCESS;
    REQUIRE_INIT("duo_free_host");
    return duo_be_free_host(ptr);
}

static duo_status check_copy(const char *where, void *dst, const void *src,
                             size_t bytes, duo_copy_kind kind)
{
    switch (kind) {
    case DUO_HOST_TO_DEVICE: case DUO_DEVICE_TO_HOST:
    case DUO_DEVICE_TO_DEVICE: case DUO_HOST_TO_HOST:
        break;
    default:
        return duo_fail(DUO_ERROR_INVALID_ARGUMENT, where,
                        "kind = %d is not a duo_copy_kind; use "
                        "DUO_HOST_TO_DEVICE, DUO_DEVICE_TO_HOST, "
                        "DUO_DEVICE_TO_DEVICE or DUO_HOST_TO_HOST",
                        (int)kind);
    }
    if (bytes > 0 && dst == NULL)
        return null_arg(where, "dst", "a copy of more than 0 bytes needs a "
                                      "destination");
    if (bytes > 0 && src == NULL)
        return null_arg(where, "src", "a copy of more than 0 bytes needs a "
                                      "source");
    return duo_require_init(where);
}

static const char *const memcpy_regions[] = {
    "duo_memcpy H2D", "duo_memcpy D2H", "duo_memcpy D2D",
    "duo_memcpy H2H"};
static const char *const memcpy_async_regions[] = {
    "duo_memcpy_async H2D", "duo_memcpy_async D2H",
    "duo_memcpy_async D2D", "duo_memcpy_async H2H"};

duo_status duo_memcpy(void *dst, const void *src, size_t bytes,
                      duo_copy_kind kind)
{
    duo_status status = check_copy("duo_memcpy", dst, src, bytes, kind);
    if (status == DUO_SUCCESS)
        status = duo_capture_refuse("duo_memcpy");
    if (status != DUO_SUCCESS || bytes == 0)
        return status;
    int region = duo_profile_open(memcpy_regions[kind], DUO_REGION_MEMCPY,
                                  NULL);
    status = duo_be_memcpy(dst, src, bytes, kind);
    duo_profile_close(region, NULL, (double)bytes, 0.0);
    return status;
}

duo_status duo_memcpy_async(void *dst, const void *src, size_t bytes,
                            duo_copy_kind kind, duo_stream stream)
{
    duo_status status = check_copy("duo_memcpy_async", dst, src, bytes, kind);
    if (status == DUO_SUCCESS)
        status = duo_capture_check_stream("duo_memcpy_async", stream);
    if (status != DUO_SUCCESS || bytes == 0 || duo_capture_skips_work())
        return status;
    int region = duo_profile_open(memcpy_async_regions[kind],
                                  DUO_REGION_MEMCPY, stream);
    status = duo_be_memcpy_async(dst, src, bytes, kind, stream);
    duo_profile_close(region, stream, (double)bytes, 0.0);
    return status;
}

duo_status duo_memset(void *dst, int value, size_t bytes)
{
    if (bytes > 0 && dst == NULL)
        return null_arg("duo_memset", "dst",
                        "setting more than 0 bytes needs a destination");
    REQUIRE_INIT("duo_memset");
    if (bytes == 0)
        return DUO_SUCCESS;
    int region = duo_profile_open("duo_memset", DUO_REGION_MEMSET, NULL);
    duo_status status = duo_be_memset(dst, value, bytes);
    duo_profile_close(region, NULL, (double)bytes, 0.0);
    return status;
}

duo_status duo_stream_create(duo_stream *stream)
{
    if (stream == NULL)
        return null_arg("duo_stream_create", "stream",
                        "pass the address of a duo_stream");
    REQUIRE_INIT("duo_stream_create");
    duo_stream s = NULL;
    duo_status status = duo_be_stream_create(&s);
    if (status == DUO_SUCCESS)
        *stream = s;
    return status;
}

duo_status duo_stream_destroy(duo_stream stream)
{
    if (stream == NULL)
        return DUO_SUCCESS;
    REQUIRE_INIT("duo_stream_destroy");
    return duo_be_stream_destroy(stream);
}

duo_status duo_stream_synchronize(duo_stream stream)
{
    REQUIRE_INIT("duo_stream_synchronize");
    int region = duo_profile_open("duo_stream_synchronize", DUO_REGION_SYNC,
                                  NULL);
    duo_status status = duo_be_stream_synchronize(stream);
    duo_profile_close(region, NULL, 0.0, 0.0);
    return status;
}
