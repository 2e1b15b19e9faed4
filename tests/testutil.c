/* testutil.c: suite runner and process helpers for the CUnit tests. */
#include "testutil.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int pp_test_main(const char *suite_name, const pp_test *tests)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite suite = CU_add_suite(suite_name, NULL, NULL);
    if (!suite) {
        CU_cleanup_registry();
        return 1;
    }
    for (const pp_test *t = tests; t->name; t++)
        if (!CU_add_test(suite, t->name, t->fn)) {
            CU_cleanup_registry();
            return 1;
        }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0)
        return 1;
    return failed ? 1 : 0;
}

static char *slurp_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

int pp_run(const char *const *args, const char *stdin_text, pp_run_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    char out_tmpl[] = "/tmp/pp_out_XXXXXX", err_tmpl[] = "/tmp/pp_err_XXXXXX", in_tmpl[] = "/tmp/pp_in_XXXXXX";
    int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl), in_fd = mkstemp(in_tmpl);
    if (out_fd < 0 || err_fd < 0 || in_fd < 0)
        return -1;
    unlink(out_tmpl);
    unlink(err_tmpl);
    unlink(in_tmpl);
    if (stdin_text) {
        size_t n = strlen(stdin_text);
        if (write(in_fd, stdin_text, n) != (ssize_t)n)
            return -1;
        lseek(in_fd, 0, SEEK_SET);
    }
    size_t argc = 0;
    while (args[argc])
        argc++;
    const char **argv = calloc(argc + 2, sizeof *argv);
    if (!argv)
        return -1;
    argv[0] = PARPLAN_BINARY;
    for (size_t i = 0; i < argc; i++)
        argv[i + 1] = args[i];
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(PARPLAN_BINARY, (char *const *)argv);
        _exit(127);
    }
    free(argv);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFEXITED(status))
        r->exit_code = WEXITSTATUS(status);
    lseek(out_fd, 0, SEEK_SET);
    lseek(err_fd, 0, SEEK_SET);
    r->out = slurp_fd(out_fd);
    r->err = slurp_fd(err_fd);
    close(out_fd);
    close(err_fd);
    close(in_fd);
    return 0;
}

void pp_run_free(pp_run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void pp_write_temp(const char *name, const char *text, char *path, size_t path_len)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/parplan_test_%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(path, path_len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

void pp_source_path(const char *rel, char *path, size_t path_len)
{
    snprintf(path, path_len, "%s/%s", PARPLAN_SOURCE_DIR, rel);
}
