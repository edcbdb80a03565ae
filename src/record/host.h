/* What the machine and the options say about CPUs and stack depth
 * (record-private; record_nr_cpus and record_read_line are in record.h). */
#ifndef SCORCH_RECORD_HOST_H
#define SCORCH_RECORD_HOST_H

#include "record/record.h"

#include <stdbool.h>

/* Is this CPU sampled (-C)? */
bool record_cpu_wanted(const struct record_opts *o, int cpu);
/* The kernel's frame limit per callchain (kernel.perf_event_max_stack). */
unsigned record_kernel_max_stack(void);
/* Frames per stack the kernel's walk records: --max-stack, else (and at
 * most) the kernel's limit. */
unsigned record_max_stack(const struct record_opts *o);
/* Bytes of user stack copied per sample: --stack-size, else the default. */
unsigned record_stack_size(const struct record_opts *opts);

#endif
