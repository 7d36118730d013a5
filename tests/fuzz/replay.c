/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs a fuzz target's entry point on every file of the given directories:
 * the seed corpus and the inputs that once found a bug (regressions), built
 * with the normal compiler so that tools/check replays them without clang.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data;
	long size;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	data = malloc(size > 0 ? (size_t)size : 1);
	if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;

		if (!d)
			continue;	/* a target may have no regressions yet */
		while ((e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (replay_file(path) < 0) {
				fprintf(stderr, "%s: cannot read\n", path);
				closedir(d);
				return 1;
			}
			n++;
		}
		closedir(d);
	}
	printf("%u inputs replayed\n", n);
	return n ? 0 : 1;
}
