/* The README's demo: a toy request server with a recognisable profile, for
 * `scorch record -o demo.svg -- build/workloads/demo`. Each request is
 * parsed, answered and logged; answering renders a template, checksums the
 * body and, for every other request, sorts a result set. A worker thread
 * compacts an index meanwhile. Runs for SECONDS (default 3) of wall time.
 * The sort goes through libc's qsort, built without frame pointers: the
 * stacks under it are whole only when unwound with DWARF.
 * Built like the other workloads: -O1 -fno-omit-frame-pointer -fno-inline
 * -fno-optimize-sibling-calls. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void consume(unsigned long x)
{
	sink += x;
}

__attribute__((noinline)) unsigned long tokenize(const char *s, size_t n)
{
	unsigned long tokens = 0;
	for (int round = 0; round < 2200; round++)
		for (size_t i = 0; i < n; i++)
			tokens += s[i] == ' ' || s[i] == '/';
	consume(tokens);
	return tokens;
}

__attribute__((noinline)) unsigned long parse_headers(const char *s, size_t n)
{
	unsigned long h = 5381;
	for (int round = 0; round < 2000; round++)
		for (size_t i = 0; i < n; i++)
			h = h * 33 + (unsigned char)s[i];
	consume(h);
	return h;
}

__attribute__((noinline)) void parse_request(const char *req, size_t n)
{
	tokenize(req, n);
	parse_headers(req, n);
}

__attribute__((noinline)) void render_template(char *out, size_t n, unsigned long seed)
{
	for (int round = 0; round < 80; round++)
		for (size_t i = 0; i < n; i++)
			out[i] = (char)('a' + (seed + i * 7 + round) % 26);
	consume((unsigned long)out[n / 2]);
}

__attribute__((noinline)) unsigned long checksum(const char *buf, size_t n)
{
	unsigned long a = 1, b = 0;
	for (int round = 0; round < 10; round++)
		for (size_t i = 0; i < n; i++) {
			a = (a + (unsigned char)buf[i]) % 65521;
			b = (b + a) % 65521;
		}
	consume(b << 16 | a);
	return b << 16 | a;
}

__attribute__((noinline)) int compare_ids(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return (x > y) - (x < y);
}

/* Through libc's qsort, which has no frame pointers (Debian builds it
 * without): a frame-pointer walk loses sort_results and everything above
 * compare_ids; scorch record's DWARF unwinding (the default) keeps them. */
__attribute__((noinline)) void sort_results(unsigned long seed)
{
	enum { N = 8000 };
	unsigned long *v = malloc(N * sizeof(*v));
	if (!v)
		return;
	for (int i = 0; i < N; i++)
		v[i] = (seed = seed * 6364136223846793005ul + 1) >> 20;
	qsort(v, N, sizeof(v[0]), compare_ids);
	consume(v[N / 2]);
	free(v);
}

__attribute__((noinline)) void build_response(char *body, size_t n, unsigned long id)
{
	render_template(body, n, id);
	checksum(body, n);
	if (id % 2 == 0)
		sort_results(id);
}

__attribute__((noinline)) void write_log(int fd, unsigned long id)
{
	char line[64];
	memset(line, 'x', sizeof(line));
	for (int i = 0; i < 1500; i++)
		if (write(fd, line, sizeof(line)) < 0)
			break;
	consume(id);
}

__attribute__((noinline)) void handle_request(int log_fd, unsigned long id)
{
	static const char req[] = "GET /index.html HTTP/1.1 Host: example.org "
				  "Accept: text/html User-Agent: demo/1.0 Connection: keep-alive";
	char body[4096];
	parse_request(req, sizeof(req) - 1);
	build_response(body, sizeof(body), id);
	write_log(log_fd, id);
}

__attribute__((noinline)) void serve(double until)
{
	int fd = open("/dev/null", O_WRONLY);
	for (unsigned long id = 0; now() < until; id++)
		handle_request(fd, id);
	if (fd >= 0)
		close(fd);
}

__attribute__((noinline)) void compact_index(double until)
{
	unsigned long x = 1;
	while (now() < until) {
		for (int i = 0; i < 200000; i++)
			x = x * 2862933555777941757ul + 3037000493ul;
		consume(x);
	}
}

static void *worker(void *arg)
{
	compact_index(*(double *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	double until = now() + seconds;
	pthread_t t;
	int have_thread = !pthread_create(&t, NULL, worker, &until);
	serve(until);
	if (have_thread)
		pthread_join(t, NULL);
	return 0;
}
