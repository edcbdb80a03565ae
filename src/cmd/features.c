/* The optional features this binary was built with, for `scorch version`. */
#include "cmd/cmd.h"

const char *scorch_features(void)
{
	return ""
#ifdef HAVE_ZLIB
	       "+zlib"
#else
	       "-zlib"
#endif
#ifdef HAVE_LZMA
	       " +lzma"
#else
	       " -lzma"
#endif
#ifdef HAVE_ZSTD
	       " +zstd"
#else
	       " -zstd"
#endif
#ifdef HAVE_ELFUTILS
	       " +libelf +libdw"
#else
	       " -libelf -libdw"
#endif
#ifdef HAVE_LIBBPF
	       " +bpf"
#else
	       " -bpf"
#endif
#ifdef HAVE_CAIRO
	       " +cairo"
#else
	       " -cairo"
#endif
#ifdef HAVE_CURL
	       " +curl"
#else
	       " -curl"
#endif
		;
}
