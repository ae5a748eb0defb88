/*
 * fuzz_replay.c: plain-C driver that runs a fuzz target without libFuzzer, so
 * `make check` replays the seed corpus under a normal build. Each seed is run
 * as is and then with FUZZ_REPLAY_MUTATIONS deterministic mutations (byte
 * flips, truncations, splices of other seeds), so the check covers more than
 * the seeds while staying fast and reproducible.
 * Usage: fuzz_replay [CORPUS_DIR]  (default $top_srcdir/tests/fuzz/corpus/NAME)
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_REPLAY_MUTATIONS 400
#define FUZZ_REPLAY_MAX_SEEDS 64
#define FUZZ_REPLAY_MAX_SIZE (64 * 1024)

static uint32_t fuzz_rng = 12345;

static uint32_t fuzz_next(void)
{
	fuzz_rng = fuzz_rng * 1103515245u + 12345u;
	return fuzz_rng >> 8;
}

int main(int argc, char **argv)
{
	static const char tokens[][12] = { ":", "=", ",", "\n", "nodeox:flex", "gres:gpu:", "|",
					   "[", "(", "#", "+",  "GpuType=",    "Group=" };
	uint8_t *seeds[FUZZ_REPLAY_MAX_SEEDS], *buf = malloc(2 * FUZZ_REPLAY_MAX_SIZE + 16);
	size_t sizes[FUZZ_REPLAY_MAX_SEEDS];
	char dir[1024];
	const char *src = getenv("top_srcdir");
	struct dirent *de;
	long runs = 0;
	int n = 0, i, m;
	DIR *d;

	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src ? src : ".", FUZZ_NAME);
	if (!(d = opendir(dir))) {
		fprintf(stderr, "fuzz_replay: cannot open corpus %s\n", dir);
		return 1;
	}
	while ((de = readdir(d)) && n < FUZZ_REPLAY_MAX_SEEDS) {
		char path[1400];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		seeds[n] = malloc(FUZZ_REPLAY_MAX_SIZE);
		sizes[n] = fread(seeds[n], 1, FUZZ_REPLAY_MAX_SIZE, f);
		fclose(f);
		n++;
	}
	closedir(d);
	if (!n) {
		fprintf(stderr, "fuzz_replay: no seeds in %s\n", dir);
		return 1;
	}
	for (i = 0; i < n; i++) {
		LLVMFuzzerTestOneInput(seeds[i], sizes[i]);
		runs++;
		for (m = 0; m < FUZZ_REPLAY_MUTATIONS; m++) {
			size_t len = sizes[i], k, cut;
			int o = (int)(fuzz_next() % (uint32_t)n);

			memcpy(buf, seeds[i], len);
			for (k = 0; k < 1 + fuzz_next() % 4; k++) {
				switch (fuzz_next() % 4) {
				case 0: /* flip a byte */
					if (len)
						buf[fuzz_next() % len] = (uint8_t)fuzz_next();
					break;
				case 1: /* truncate */
					if (len)
						len = fuzz_next() % len;
					break;
				case 2: /* insert a token */ {
					const char *t =
						tokens[fuzz_next() % (sizeof(tokens) / sizeof(tokens[0]))];
					size_t tl = strlen(t), at = len ? fuzz_next() % len : 0;

					memmove(buf + at + tl, buf + at, len - at);
					memcpy(buf + at, t, tl);
					len += tl;
					break;
				}
				default: /* splice the tail of another seed */
					cut = len ? fuzz_next() % len : 0;
					memcpy(buf + cut, seeds[o], sizes[o]);
					len = cut + sizes[o];
				}
				if (len > FUZZ_REPLAY_MAX_SIZE)
					len = FUZZ_REPLAY_MAX_SIZE;
			}
			LLVMFuzzerTestOneInput(buf, len);
			runs++;
		}
	}
	printf("fuzz_replay %s: %d seeds, %ld runs, no crash\n", FUZZ_NAME, n, runs);
	for (i = 0; i < n; i++)
		free(seeds[i]);
	free(buf);
	return 0;
}
