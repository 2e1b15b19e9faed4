/*
 * regress_main.c: replay fuzz inputs without libFuzzer.
 *
 *   fuzz_regress_NAME PATH...
 *
 * Each PATH is a file or a directory (walked recursively, in name order);
 * every regular file is handed to the harness's LLVMFuzzerTestOneInput once,
 * exactly as libFuzzer would.  A harness aborts on a broken promise and the
 * sanitizers abort on a memory or arithmetic error, so the exit code is 0
 * only when every input passed.  CTest runs it over tests/fuzz/corpus/ and
 * tests/fuzz/regressions/ in the normal and the sanitizer builds.
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static long replayed;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap) {
            unsigned char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    replayed++;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return S_ISREG(st.st_mode) ? run_file(path) : 0;
    struct dirent **names;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        perror(path);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (name[0] != '.') {
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, name);
            rc |= run_path(child);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= run_path(argv[i]);
    fprintf(stderr, "%ld inputs replayed\n", replayed);
    return rc || replayed == 0;
}
