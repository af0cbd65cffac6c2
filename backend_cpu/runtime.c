/*
 * runtime.c (CPU) - backend name, device info and synchronize for the
 * serial and OpenMP builds.  There is no device: "device memory" is host
 * memory and every operation has finished when it returns.
 */
#define _DEFAULT_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "gemm_cpu.h"
#include "sort_cpu.h"

const char *duo_be_name(void)
{
#ifdef _OPENMP
    return "openmp";
#else
    return "serial";
#endif
}

duo_status duo_be_init(void) { return DUO_SUCCESS; }
duo_status duo_be_finalize(void)
{
    duo_cpu_gemm_release();
    duo_cpu_sort_release();
    return DUO_SUCCESS;
}

duo_status duo_be_synchronize(void) { return DUO_SUCCESS; }

/* The "model name" line of /proc/cpuinfo where there is one. */
static void cpu_model_name(char *name, size_t size)
{
    snprintf(name, size, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL)
            break;
        colon += (colon[1] == ' ') ? 2 : 1;
        snprintf(name, size, "%s", colon);
        name[strcspn(name, "\n")] = '\0';
        break;
    }
    fclose(f);
}

duo_status duo_be_device_info(duo_device_info *info)
{
    cpu_model_name(info->name, sizeof info->name);
    long page = sysconf(_SC_PAGESIZE);
    long pages = sysconf(_SC_PHYS_PAGES);
    long avail = sysconf(_SC_AVPHYS_PAGES);
    info->total_memory = (page > 0 && pages > 0) ? (size_t)pages * page : 0;
    info->free_memory = (page > 0 && avail > 0) ? (size_t)avail * page : 0;
#ifdef _OPENMP
    info->cpu_threads = omp_get_max_threads();
#else
    info->cpu_threads = 1;
#endif
    return DUO_SUCCESS;
}
