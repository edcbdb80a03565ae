/* Shell-style host patterns (store.h's store_host_match), for the sources'
 * queries. */
#include "store/store.h"

bool store_host_match(const char *pat, const char *host)
{
	if (!pat)
		return true;
	const char *star = NULL, *resume = NULL;
	while (*host) {
		if (*pat == '*') {
			star = pat++;
			resume = host;
		} else if (*pat && (*pat == '?' || *pat == *host)) {
			pat++;
			host++;
		} else if (star) {
			pat = star + 1;
			host = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}
