/* A build without elfutils: no DWARF unwinder (see unwind.h). record then
 * walks user stacks with frame pointers only and says so once; report
 * counts DWARF samples as not unwound. */
#include "addrspace/unwind.h"

struct unwinder *unwinder_new(void)
{
	return NULL;
}

void unwinder_free(struct unwinder *u)
{
	(void)u;
}

int unwind_user_stack(struct unwinder *u, const struct procmaps *maps, uint32_t space, const struct unwind_stack *s,
		      unwind_source_of source_of, void *arg, uint64_t *ips, int max, bool *complete)
{
	(void)u, (void)maps, (void)space, (void)s, (void)source_of, (void)arg, (void)ips, (void)max;
	*complete = false;
	return 0;
}

void unwinder_held(const struct unwinder *u, size_t *bytes, uint64_t *dropped)
{
	(void)u;
	*bytes = 0;
	*dropped = 0;
}

void unwinder_set_budget(struct unwinder *u, size_t bytes)
{
	(void)u, (void)bytes;
}

int unwind_user_stack_fp(struct unwinder *u, const struct procmaps *maps, uint32_t space,
			 const struct unwind_stack *s, unwind_source_of source_of, void *arg, uint64_t *ips,
			 uint64_t *fps, int max, bool *complete)
{
	(void)fps;
	return unwind_user_stack(u, maps, space, s, source_of, arg, ips, max, complete);
}
