/*
 * sort_cpu.h - what the CPU sort (sort.c) shares with the rest of the
 * CPU backend.
 */
#ifndef DUO_SORT_CPU_H
#define DUO_SORT_CPU_H

/* Free the scratch the sort keeps between sorts (duo_finalize). */
void duo_cpu_sort_release(void);

#endif /* DUO_SORT_CPU_H */
