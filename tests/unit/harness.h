/* A tiny unit-test harness: TEST(name) registers itself; CHECK records a
 * failure and continues; output is TAP lines for tests/run. */
#ifndef SCORCH_TESTS_HARNESS_H
#define SCORCH_TESTS_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(struct unit_test *t);
	int failures;
	const char *skip;
	struct unit_test *next;
};

void unit_register(struct unit_test *t);
/* Write text into path (a fixture file). Returns 0, or -1. */
int unit_write_file(const char *path, const char *text);
void unit_fail(struct unit_test *t, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define TEST(name)                                                                 \
	static void test_##name(struct unit_test *t_);                             \
	static struct unit_test unit_##name = { #name, test_##name, 0, NULL, NULL }; \
	__attribute__((constructor)) static void register_##name(void)             \
	{                                                                          \
		unit_register(&unit_##name);                                       \
	}                                                                          \
	static void test_##name(struct unit_test *t_)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			unit_fail(t_, __FILE__, __LINE__, "CHECK(%s)", #cond); \
	} while (0)

#define REQUIRE(cond)                                                            \
	do {                                                                     \
		if (!(cond)) {                                                   \
			unit_fail(t_, __FILE__, __LINE__, "REQUIRE(%s)", #cond); \
			return;                                                  \
		}                                                                \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                  \
	do {                                                                                \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                            \
		if (a_ != b_)                                                               \
			unit_fail(t_, __FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, \
				  (unsigned long long)a_, (unsigned long long)b_);          \
	} while (0)

#define CHECK_STR(a, b)                                                                     \
	do {                                                                                \
		const char *a_ = (a), *b_ = (b);                                            \
		if (!a_ || !b_ || strcmp(a_, b_))                                           \
			unit_fail(t_, __FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
				  a_ ? a_ : "(null)", b_ ? b_ : "(null)");                  \
	} while (0)

#define SKIP(why)              \
	do {                   \
		t_->skip = (why); \
		return;        \
	} while (0)

#endif
