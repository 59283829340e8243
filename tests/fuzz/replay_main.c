/*
 * replay_main.c - a main() for the fuzz target when libFuzzer is not used
 * (gcc, or clang without the fuzzer runtime): feeds each file named on the
 * command line, or each regular file of each directory named there, to
 * LLVMFuzzerTestOneInput once.  The target aborts on a mismatch, so an exit
 * status of 0 means every input passed.  The normal test suite runs it over
 * tests/fuzz/corpus and tests/fuzz/regressions.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "rp_fuzz_replay: out of memory\n");
            fclose(f);
            return 1;
        }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "rp_fuzz_replay: cannot read %s\n", path);
        free(buf);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the files of a directory in name order; returns files run or -1. */
static long run_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n])
            break;
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    long ran = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]))
                bad = 1;
            ran++;
        }
        free(names[i]);
    }
    free(names);
    return bad ? -1 : ran;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n"
                        "Feeds every input to the raypack differential fuzz target once.\n",
                argv[0]);
        return 2;
    }
    long total = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            long r = run_dir(argv[i]);
            if (r < 0)
                bad = 1;
            else {
                printf("%s: %ld inputs passed\n", argv[i], r);
                total += r;
            }
        } else if (run_file(argv[i])) {
            bad = 1;
        } else {
            total++;
        }
    }
    printf("rp_fuzz_replay: %ld inputs replayed, %s\n", total, bad ? "FAILED" : "all passed");
    return bad;
}
