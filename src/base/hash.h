/* A fast 64-bit hash for byte strings and integers (our own wyhash-style mix). */
#ifndef SCORCH_BASE_HASH_H
#define SCORCH_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hash_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t hash_u64(uint64_t x)
{
	return hash_mix(x ^ 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull);
}

static inline uint64_t hash_read64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t hash_bytes(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0x2d358dccaa6c78a5ull ^ n;
	while (n >= 16) {
		h = hash_mix(hash_read64(p) ^ 0x8bb84b93962eacc9ull, hash_read64(p + 8) ^ h);
		p += 16;
		n -= 16;
	}
	uint64_t a = 0, b = 0;
	if (n >= 8) {
		a = hash_read64(p);
		memcpy(&b, p + n - 8, 8);
	} else if (n) {
		memcpy(&a, p, n);
	}
	return hash_mix(a ^ 0x8bb84b93962eacc9ull ^ h, b ^ 0x4b33a62ed433d4a3ull);
}

#endif
