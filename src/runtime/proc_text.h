/* What a process's /proc files say about the runtime it runs: read as
 * untrusted text (another user's process may write anything there). */
#ifndef SCORCH_RUNTIME_PROC_TEXT_H
#define SCORCH_RUNTIME_PROC_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum proc_runtime {
	PROC_RUNTIME_GONE,  /* the process exited */
	PROC_RUNTIME_NONE,  /* no runtime scorch knows (yet: a launcher may load one) */
	PROC_RUNTIME_JVM,   /* libjvm.so is mapped */
	PROC_RUNTIME_NODE,  /* the executable is node or nodejs, or libnode is mapped */
};

bool proc_alive(uint32_t pid);
enum proc_runtime proc_runtime_kind(uint32_t pid);

/* Whether an argument of the process's command line, or a word of one of
 * the environment variables named in env (NULL-terminated), starts with
 * option (so "--perf-basic-prof" also finds "--perf-basic-prof-only-functions"). */
bool proc_has_option(uint32_t pid, const char *option, const char *const *env);

/* The perf map at path, opened as perf opens one (symbolize/perfmap.h:
 * owned by pid's user or root unless force, no links), read whole;
 * NULL when absent or refused. */
char *proc_read_perfmap(const char *path, uint32_t pid, bool force, size_t *len);

#endif
