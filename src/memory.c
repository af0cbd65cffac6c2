/*
 * memory.c - device and pinned allocations, copies, memset and streams:
 * argument checks shared by every backend, and the registry of live
 * allocations (registry.c) kept up to date and asked before a free, a
 * copy or a memset.
 */
#include "profile.h"
#include "registry.h"

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

/* Zero bytes give NULL without touching the backend or the registry. */
static duo_status allocate(const char *where, duo_alloc_kind kind,
                           void **ptr, size_t bytes,
                           duo_status (*backend_alloc)(void **, size_t),
                           duo_status (*backend_free)(void *),
                           const char *file, int line)
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
    if (status != DUO_SUCCESS)
        return status;
    status = duo_registry_add(where, kind, p, bytes, file, line);
    if (status != DUO_SUCCESS) {
        (void)backend_free(p); /* the registry's failure is the one */
        return status;
    }
    *ptr = p;
    return DUO_SUCCESS;
}

duo_status duo_malloc_at(void **ptr, size_t bytes, const char *file,
                         int line)
{
    return allocate("duo_malloc", DUO_ALLOC_DEVICE, ptr, bytes,
                    duo_be_malloc, duo_be_free, file, line);
}

duo_status duo_malloc_host_at(void **ptr, size_t bytes, const char *file,
                              int line)
{
    return allocate("duo_malloc_host", DUO_ALLOC_HOST, ptr, bytes,
                    duo_be_malloc_host, duo_be_free_host, file, line);
}

duo_status (duo_malloc)(void **ptr, size_t bytes)
{
    return duo_malloc_at(ptr, bytes, NULL, 0);
}

duo_status (duo_malloc_host)(void **ptr, size_t bytes)
{
    return duo_malloc_host_at(ptr, bytes, NULL, 0);
}

/* Only a live allocation of `kind` reaches the backend (free() or
 * cudaFree would abort or corrupt memory on anything else). */
static duo_status release(const char *where, duo_alloc_kind kind, void *ptr,
                          duo_status (*backend_free)(void *))
{
    if (ptr == NULL)
        return DUO_SUCCESS;
    duo_status status = duo_registry_check_free(where, kind, ptr);
    if (status == DUO_SUCCESS)
        status = duo_require_sync_call(where);
    if (status == DUO_SUCCESS)
        status = backend_free(ptr);
    if (status == DUO_SUCCESS)
        duo_registry_remove(ptr);
    return status;
}

duo_status duo_free(void *ptr)
{
    return release("duo_free", DUO_ALLOC_DEVICE, ptr, duo_be_free);
}

duo_status duo_free_host(void *ptr)
{
    return release("duo_free_host", DUO_ALLOC_HOST, ptr, duo_be_free_host);
}

duo_status duo_memory_usage_get(duo_memory_usage *usage)
{
    if (usage == NULL)
        return null_arg("duo_memory_usage_get", "usage",
                        "pass the address of a duo_memory_usage");
    size_t count[2], bytes[2];
    duo_registry_usage(count, bytes);
    usage->device_allocations = count[DUO_ALLOC_DEVICE];
    usage->device_bytes = bytes[DUO_ALLOC_DEVICE];
    usage->host_allocations = count[DUO_ALLOC_HOST];
    usage->host_bytes = bytes[DUO_ALLOC_HOST];
    return DUO_SUCCESS;
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
    if (bytes > 0) {
        duo_status status = duo_registry_check_range(where, "dst", dst,
                                                     bytes);
        if (status == DUO_SUCCESS)
            status = duo_registry_check_range(where, "src", src, bytes);
        if (status != DUO_SUCCESS)
            return status;
    }
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
    if (bytes > 0) {
        duo_status status = duo_registry_check_range("duo_memset", "dst",
                                                     dst, bytes);
        if (status != DUO_SUCCESS)
            return status;
    }
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
