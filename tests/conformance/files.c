// files.c: the file I/O of ABI section 14 (files the host mounts) through
// wasi-libc, as C programs do it: fopen, fread, fwrite, opendir. The host
// mounts a read-only directory at /in and a writable one at /out; each
// step prints one line that the test checks.
//
//   files           read /in/input.txt, round-trip it through device
//                   memory, write its upper case to
//                   /out/result.txt, list /in, and try to leave the
//                   mounts or write to /in (each prints its errno)
//   files write     write /out/big in 1000-byte fwrites until one fails
//   files open      open /in/input.txt until an open fails
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

// try prints what opening path in mode gives: "ok" or the errno's name.
static void try(const char *path, const char *mode) {
	errno = 0;
	FILE *f = fopen(path, mode);
	if (f != NULL) {
		printf("%s %s: ok\n", path, mode);
		fclose(f);
		return;
	}
	const char *name = "other";
	switch (errno) {
	case ENOENT: name = "ENOENT"; break;
	case EROFS: name = "EROFS"; break;
	case ELOOP: name = "ELOOP"; break;
	case EACCES: name = "EACCES"; break;
	case EPERM: name = "EPERM"; break;
	case ENOTCAPABLE: name = "ENOTCAPABLE"; break;
	}
	printf("%s %s: %s\n", path, mode, name);
}

static int names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int copy_upper(void) {
	FILE *in = fopen("/in/input.txt", "r");
	if (in == NULL) {
		perror("/in/input.txt");
		return 1;
	}
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, in);
	fclose(in);
	// Through the device and back, as an inference program's input goes.
	void *dev = NULL;
	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtMalloc(&dev, sizeof buf, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMemcpy(dev, sizeof buf, buf, n, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
		fprintf(stderr, "to the device: %s\n", aclGetRecentErrMsg());
		return 1;
	}
	memset(buf, 0, sizeof buf);
	if (aclrtMemcpy(buf, sizeof buf, dev, n, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS || aclrtFree(dev) != ACL_SUCCESS) {
		fprintf(stderr, "from the device: %s\n", aclGetRecentErrMsg());
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		buf[i] = (char)toupper((unsigned char)buf[i]);
	}
	FILE *out = fopen("/out/result.txt", "w");
	if (out == NULL || fwrite(buf, 1, n, out) != n || fclose(out) != 0) {
		perror("/out/result.txt");
		return 1;
	}
	printf("copied %zu bytes\n", n);
	return 0;
}

static int list(void) {
	DIR *d = opendir("/in");
	if (d == NULL) {
		perror("/in");
		return 1;
	}
	char *found[64];
	int k = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && k < 64) {
		if (e->d_name[0] != '.') {
			found[k++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(found, (size_t)k, sizeof found[0], names);
	printf("/in:");
	for (int i = 0; i < k; i++) {
		printf(" %s", found[i]);
		free(found[i]);
	}
	printf("\n");
	return 0;
}

static int write_until_full(void) {
	FILE *f = fopen("/out/big", "w");
	if (f == NULL) {
		perror("/out/big");
		return 1;
	}
	setvbuf(f, NULL, _IONBF, 0); // each fwrite is one write
	static char block[1000];
	memset(block, 'x', sizeof block);
	size_t total = 0;
	for (int i = 0; i < 1000; i++) {
		errno = 0;
		if (fwrite(block, 1, sizeof block, f) != sizeof block) {
			printf("wrote %zu bytes, then %s\n", total, errno == EFBIG ? "EFBIG" : errno == ENOSPC ? "ENOSPC" : "other");
			fclose(f);
			return 0;
		}
		total += sizeof block;
	}
	printf("wrote %zu bytes, no limit\n", total);
	fclose(f);
	return 0;
}

static int open_until_full(void) {
	FILE *files[100];
	int n = 0;
	errno = 0;
	while (n < 100 && (files[n] = fopen("/in/input.txt", "r")) != NULL) {
		n++;
	}
	printf("opened %d files, then %s\n", n, errno == EMFILE ? "EMFILE" : "other");
	for (int i = 0; i < n; i++) {
		fclose(files[i]);
	}
	FILE *again = fopen("/in/input.txt", "r");
	printf("after closing: %s\n", again != NULL ? "ok" : "failed");
	if (again != NULL) {
		fclose(again);
	}
	return 0;
}

int main(int argc, char **argv) {
	if (aclInit(NULL) != ACL_SUCCESS) {
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "write") == 0) {
		return write_until_full();
	}
	if (argc > 1 && strcmp(argv[1], "open") == 0) {
		return open_until_full();
	}
	if (copy_upper() != 0 || list() != 0) {
		return 1;
	}
	try("/in/input.txt", "r");
	try("/in/input.txt", "w");
	try("/in/new.txt", "w");
	try("/in/../secret.txt", "r");
	try("/in/escape", "r");
	try("/in/up/secret.txt", "r");
	try("/secret.txt", "r");
	try("/etc/passwd", "r");
	try("/out/../in/input.txt", "r");
	return 0;
}
