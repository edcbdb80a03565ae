/* Every entry of a BPF hash map, in batches (record-private, libbpf only). */
#ifndef SCORCH_RECORD_BPF_MAP_EACH_H
#define SCORCH_RECORD_BPF_MAP_EACH_H

#include <stdbool.h>

/* fn(arg, key, value) for every entry of
 * a hash map, read in batches (a few system calls for thousands of
 * entries), taken out of the map with `take`; 0, or -1 when the kernel
 * refused (entries seen until then were passed). */
int bpf_map_each(int fd, bool take, void (*fn)(void *arg, const void *key, const void *value), void *arg);

#endif
