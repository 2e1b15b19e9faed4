/*
 * bench_process.c: how long a user waits, as whole `parplan` processes.
 *
 * The figures of docs/benchmarks.md "Interactive" section: the median wall
 * time of RUNS runs of each command, and its ratio to the median of one
 * `parplan eval` process timed in the same round, so the machine's speed
 * cancels (a slower or busier machine slows both).  The commands run from
 * the source tree with their reports written to /dev/null:
 *
 *   eval      the default example's published plan (the unit)
 *   plan      the default example (GPT-3 175B on 1024 A100)
 *   plan-ds   DeepSeek-V3 on 2048 H800
 *   capacity  the Llama-3-70B capacity example
 *
 * Usage: bench_process [PARPLAN_BINARY] [RUNS]   (default: the build's parplan, 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PARPLAN_SOURCE_DIR
#define PARPLAN_SOURCE_DIR "."
#endif
#ifndef PARPLAN_BINARY
#define PARPLAN_BINARY "parplan"
#endif

#define MAX_RUNS 101

typedef struct bench_cmd {
    const char *name;
    const char *args[8]; /* after the binary; NULL-terminated */
} bench_cmd;

static const bench_cmd CMDS[] = {
    {"eval", {"eval", "data/examples/gpt3-175b-1024-a100.json", "--plan", "data/examples/gpt3-175b-1024-a100.plan.json",
              "-o", "/dev/null", NULL}},
    {"plan", {"plan", "data/examples/gpt3-175b-1024-a100.json", "-o", "/dev/null", NULL}},
    {"plan-ds", {"plan", "data/examples/deepseek-v3-h800.json", "-o", "/dev/null", NULL}},
    {"capacity", {"capacity", "data/examples/llama3-70b-capacity.json", "-o", "/dev/null", NULL}},
};
#define N_CMDS ((int)(sizeof CMDS / sizeof CMDS[0]))

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run the command once; its wall time in seconds, or -1 if it failed. */
static double run_once(const char *binary, const bench_cmd *c)
{
    const char *argv[10] = {binary};
    for (int i = 0; c->args[i]; i++)
        argv[i + 1] = c->args[i];
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        if (chdir(PARPLAN_SOURCE_DIR) != 0 || !freopen("/dev/null", "w", stderr))
            _exit(127);
        execv(binary, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1.0;
    double t = now_s() - t0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *binary = argc > 1 ? argv[1] : PARPLAN_BINARY;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_process: RUNS must be 1 to %d\n", MAX_RUNS);
        return 2;
    }
    if (binary[0] != '/') {
        fprintf(stderr, "bench_process: give the binary as an absolute path\n");
        return 2;
    }
    static double t[N_CMDS][MAX_RUNS];
    /* Rounds interleave the commands, so a burst of load touches them all. */
    for (int r = 0; r < runs; r++)
        for (int i = 0; i < N_CMDS; i++)
            if ((t[i][r] = run_once(binary, &CMDS[i])) < 0) {
                fprintf(stderr, "bench_process: '%s' failed\n", CMDS[i].name);
                return 1;
            }
    double median[N_CMDS];
    for (int i = 0; i < N_CMDS; i++) {
        qsort(t[i], (size_t)runs, sizeof t[i][0], cmp_double);
        median[i] = runs % 2 ? t[i][runs / 2] : 0.5 * (t[i][runs / 2 - 1] + t[i][runs / 2]);
    }
    printf("| command | median ms (%d runs) | min ms | x eval |\n| --- | ---: | ---: | ---: |\n", runs);
    for (int i = 0; i < N_CMDS; i++)
        printf("| %s | %.1f | %.1f | %.1f |\n", CMDS[i].name, 1e3 * median[i], 1e3 * t[i][0], median[i] / median[0]);
    return 0;
}
