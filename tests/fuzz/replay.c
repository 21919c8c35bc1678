/* SPDX-License-Identifier: ISC */
/*
 * The fuzz corpus through the fuzz target, without libFuzzer: every file
 * of the corpus directory, then each truncated at every length, in the
 * normal test run.  Fails (aborts) where the fuzzer would report.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char *argv[])
{
	struct dirent *de;
	struct stat st;
	uint8_t *buf;
	size_t n = 0, len;
	DIR *dir;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: replay CORPUS-DIR\n");
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	if ((dir = opendir(argv[1])) == NULL) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((fd = openat(dirfd(dir), de->d_name, O_RDONLY)) < 0 ||
		    fstat(fd, &st) < 0) {
			perror(de->d_name);
			return 1;
		}
		buf = malloc((size_t)st.st_size + 1);
		if (buf == NULL || read(fd, buf, (size_t)st.st_size) !=
		    st.st_size)
			return 1;
		close(fd);
		LLVMFuzzerTestOneInput(buf, (size_t)st.st_size);
		/* Every truncation too: a short read must be harmless. */
		for (len = 1; len < (size_t)st.st_size && len < 256; len++)
			LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	closedir(dir);
	printf("replayed %zu corpus files\n", n);
	return n > 0 ? 0 : 1;
}
