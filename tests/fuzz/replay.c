/* Feed every file named on the command line (or found in the directories
 * named) to LLVMFuzzerTestOneInput, without libFuzzer: the normal test run
 * replays the committed corpora so that found bugs stay fixed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return -1;
	}
	size_t alloc = 4096, n = 0;
	uint8_t *buf = malloc(alloc);
	size_t r;
	while ((r = fread(buf + n, 1, alloc - n, f)) > 0) {
		n += r;
		if (n == alloc)
			buf = realloc(buf, alloc *= 2);
	}
	fclose(f);
	/* An exact-size copy so ASan catches reads past the end. */
	uint8_t *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			while (d && (e = readdir(d))) {
				if (e->d_name[0] == '.')
					continue;
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
				if (run_file(path))
					return 1;
				files++;
			}
			if (d)
				closedir(d);
		} else {
			if (run_file(argv[i]))
				return 1;
			files++;
		}
	}
	printf("replayed %d inputs\n", files);
	return 0;
}
