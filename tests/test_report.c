/*
 * test_report.c: the whole report of `plan`, as a user gets it.
 *
 * parplan runs on the default example (GPT-3 175B on 1024 A100s) with
 * Megatron-LM's published plan as the baseline, writing the Markdown report
 * and the JSON result.  Every section of the report is then checked against
 * the JSON: the numbers a reader sees are the numbers a tool reads.  The
 * Mermaid blocks are checked by a small validator of the syntax GitHub's
 * renderer accepts; two runs must give byte-identical reports; a hostile
 * model name must stay inside its table cell and its chart labels.
 */
#include "explain.h"
#include "mermaid.h"
#include "problem.h"
#include "report_md.h"
#include "rules.h"
#include "schedule.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

typedef struct report {
    char *md;
    char *json_text;
    cJSON *json;
} report;

/* Run `parplan plan PROBLEM -o R.md --json R.json [extra...]`. */
static void run_plan(const char *problem, const char *tag, const char *const *extra, report *out)
{
    char md_path[512], json_path[512], name[64];
    snprintf(name, sizeof name, "%s.md", tag);
    pp_temp_path(name, md_path, sizeof md_path);
    snprintf(name, sizeof name, "%s.json", tag);
    pp_temp_path(name, json_path, sizeof json_path);
    const char *args[16] = {"plan", problem, "-o", md_path, "--json", json_path};
    int n = 6;
    for (int i = 0; extra && extra[i] && n < 15; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    pp_run_result r;
    CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    if (r.exit_code != 0)
        fprintf(stderr, "parplan failed: %s\n", r.err);
    pp_run_free(&r);
    out->md = pp_slurp(md_path);
    out->json_text = pp_slurp(json_path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out->md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out->json_text);
    out->json = cJSON_Parse(out->json_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out->json);
}

static void report_free(report *r)
{
    free(r->md);
    free(r->json_text);
    cJSON_Delete(r->json);
    memset(r, 0, sizeof *r);
}

/* The default example's report, computed once for the section tests. */
static report example;
static bool have_example;

static const report *default_report(void)
{
    if (!have_example) {
        char problem[1024], baseline[1024];
        pp_source_path(PP_EXAMPLE, problem, sizeof problem);
        pp_source_path(PP_EXAMPLE_PLAN, baseline, sizeof baseline);
        const char *extra[] = {"--baseline", baseline, NULL};
        run_plan(problem, "example", extra, &example);
        have_example = true;
    }
    return &example;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CU_ASSERT_PTR_NOT_NULL(v);
    return v;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    CU_ASSERT_TRUE(cJSON_IsNumber(v));
    return v ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    CU_ASSERT_TRUE(cJSON_IsString(v));
    return v && cJSON_IsString(v) ? v->valuestring : "";
}

/* Assert that the report contains the formatted text; print it if not. */
static void has(const char *md, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void has(const char *md, const char *fmt, ...)
{
    char needle[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(needle, sizeof needle, fmt, ap);
    va_end(ap);
    bool found = strstr(md, needle) != NULL;
    CU_ASSERT_TRUE(found);
    if (!found)
        fprintf(stderr, "\nnot in the report: [%s]\n", needle);
}

/* The section of the report under "## title", up to the next "## ". */
static char *section(const char *md, const char *title)
{
    char head[128];
    snprintf(head, sizeof head, "\n## %s", title);
    const char *start = strstr(md, head);
    CU_ASSERT_PTR_NOT_NULL(start);
    if (!start)
        return calloc(1, 1);
    start++;
    const char *end = strstr(start + 3, "\n## ");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *s = malloc(n + 1);
    memcpy(s, start, n);
    s[n] = '\0';
    return s;
}

/* Markdown text with the backslash escapes of pp_md_escape undone. */
static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; *s; s++) {
        if (*s == '\\' && s[1] && ispunct((unsigned char)s[1]))
            s++;
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

/* "98,765" as the report writes counts. */
static void count_text(double v, char *buf, size_t cap)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%.0f", v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

static void plan_text(const cJSON *plan, char *buf, size_t cap)
{
    snprintf(buf, cap, "tp=%d pp=%d dp=%d cp=%d micro_batch=%d virtual_stages=%d zero=%d recompute=%s sp=%s",
             (int)num(plan, "tp"), (int)num(plan, "pp"), (int)num(plan, "dp"), (int)num(plan, "cp"),
             (int)num(plan, "micro_batch"), (int)num(plan, "virtual_stages"), (int)num(plan, "zero"),
             str(plan, "recompute"), cJSON_IsTrue(get(plan, "sequence_parallel")) ? "on" : "off");
}

/* ---- a validator for the Mermaid blocks ------------------------------------ */

static bool label_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strchr("\":;#%<>{}`\\", s[i]) || (unsigned char)s[i] < 0x20)
            return false;
    return true;
}

/* One pie line: `    "label" : number` with a positive number. */
static bool pie_line_ok(const char *line, double *value)
{
    if (strncmp(line, "    \"", 5) != 0)
        return false;
    const char *close = strchr(line + 5, '"');
    if (!close || !label_ok(line + 5, (size_t)(close - line - 5)) || close == line + 5)
        return false;
    if (strncmp(close, "\" : ", 4) != 0)
        return false;
    char *end;
    *value = strtod(close + 4, &end);
    return end != close + 4 && *end == '\0' && *value > 0 && isfinite(*value);
}

typedef struct gantt_task {
    char name[32], id[32], section[64];
    long start, end;
    bool active;
} gantt_task;

/* One task line: `    name :[active, ]id, start, end` with integer
 * milliseconds, start < end. */
static bool task_line_ok(const char *line, const char *sect, gantt_task *t)
{
    if (strncmp(line, "    ", 4) != 0)
        return false;
    const char *colon = strchr(line + 4, ':');
    if (!colon || colon == line + 4 || colon[-1] != ' ' || !label_ok(line + 4, (size_t)(colon - line - 5)))
        return false;
    snprintf(t->name, sizeof t->name, "%.*s", (int)(colon - line - 5), line + 4);
    snprintf(t->section, sizeof t->section, "%s", sect);
    const char *p = colon + 1;
    t->active = strncmp(p, "active, ", 8) == 0;
    if (t->active)
        p += 8;
    size_t idlen = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (idlen == 0 || idlen >= sizeof t->id || strncmp(p + idlen, ", ", 2) != 0)
        return false;
    snprintf(t->id, sizeof t->id, "%.*s", (int)idlen, p);
    char *end;
    t->start = strtol(p + idlen + 2, &end, 10);
    if (strncmp(end, ", ", 2) != 0)
        return false;
    const char *q = end + 2;
    t->end = strtol(q, &end, 10);
    return end != q && *end == '\0' && t->start >= 0 && t->start < t->end;
}

static bool quiet; /* the validator's own tests feed it bad lines on purpose */

typedef struct mermaid_stats {
    int blocks, pies, gantts;
    int n_tasks;
    gantt_task tasks[4096];
    int n_slices;
    double slices[64];
} mermaid_stats;

/* Check every ```mermaid block of md; fills stats.  Returns the number of
 * malformed lines (0 = all well formed). */
static int validate_mermaid(const char *md, mermaid_stats *st)
{
    memset(st, 0, sizeof *st);
    int bad = 0;
    const char *p = md;
    while ((p = strstr(p, "```mermaid\n")) != NULL) {
        p += strlen("```mermaid\n");
        const char *end = strstr(p, "\n```");
        if (!end) {
            bad++;
            break;
        }
        st->blocks++;
        char *block = malloc((size_t)(end - p) + 2);
        memcpy(block, p, (size_t)(end - p));
        block[end - p] = '\n';
        block[end - p + 1] = '\0';
        char *save = NULL, *line = strtok_r(block, "\n", &save);
        /* front matter */
        if (line && strcmp(line, "---") == 0) {
            while ((line = strtok_r(NULL, "\n", &save)) && strcmp(line, "---") != 0)
                if (!strchr(line, ':'))
                    bad++;
            line = line ? strtok_r(NULL, "\n", &save) : NULL;
        }
        if (line && strncmp(line, "pie title ", 10) == 0) {
            st->pies++;
            if (!label_ok(line + 10, strlen(line + 10)))
                bad++;
            int slices = 0;
            while ((line = strtok_r(NULL, "\n", &save))) {
                double v;
                if (!pie_line_ok(line, &v)) {
                    if (!quiet)
                        fprintf(stderr, "\nbad pie line: [%s]\n", line);
                    bad++;
                } else if (st->n_slices < 64)
                    st->slices[st->n_slices++] = v;
                slices++;
            }
            if (slices == 0)
                bad++;
        } else if (line && strcmp(line, "gantt") == 0) {
            st->gantts++;
            bool date_x = false;
            char sect[64] = "";
            while ((line = strtok_r(NULL, "\n", &save))) {
                if (strncmp(line, "    title ", 10) == 0) {
                    if (!label_ok(line + 10, strlen(line + 10)))
                        bad++;
                } else if (strcmp(line, "    dateFormat x") == 0)
                    date_x = true;
                else if (strncmp(line, "    axisFormat %", 16) == 0 || strcmp(line, "    todayMarker off") == 0)
                    ;
                else if (strncmp(line, "    section ", 12) == 0) {
                    snprintf(sect, sizeof sect, "%s", line + 12);
                    if (!label_ok(sect, strlen(sect)))
                        bad++;
                } else {
                    gantt_task t;
                    if (!sect[0] || !task_line_ok(line, sect, &t)) {
                        if (!quiet)
                            fprintf(stderr, "\nbad gantt line: [%s]\n", line);
                        bad++;
                    } else if (st->n_tasks < 4096)
                        st->tasks[st->n_tasks++] = t;
                }
            }
            if (!date_x)
                bad++;
        } else {
            bad++;
        }
        free(block);
        p = end + 4;
    }
    /* task ids are unique */
    for (int i = 0; i < st->n_tasks; i++)
        for (int j = i + 1; j < st->n_tasks; j++)
            if (strcmp(st->tasks[i].id, st->tasks[j].id) == 0)
                bad++;
    return bad;
}

/* ---- the sections against the JSON ------------------------------------------- */

static void test_summary(void)
{
    const report *r = default_report();
    const cJSON *j = r->json;
    char *s = section(r->md, "Summary");
    char a[64], b[64], plan[512];
    CU_ASSERT_STRING_EQUAL(str(j, "status"), "optimal");
    has(r->md, "# parplan: optimal parallel plan");
    has(s, "| predicted step time | %.3f s |", num(j, "step_time_s"));
    const cJSON *thr = get(j, "throughput");
    count_text(num(thr, "tokens_per_s"), a, sizeof a);
    has(s, "| tokens/s | %s |", a);
    has(s, "| model TFLOP/s per GPU | %.1f |", num(thr, "model_tflops_per_gpu"));
    has(s, "| MFU (model FLOPs utilization) | %.1f %% |", 100.0 * num(thr, "mfu"));
    const cJSON *mem = get(j, "memory_gib");
    has(s, "| peak memory per GPU | %.2f GiB of %.2f GiB", num(mem, "total"), num(mem, "capacity"));
    plan_text(get(j, "plan"), plan, sizeof plan);
    has(s, "| plan | %s", plan);
    /* training.tokens is given (3e11), so the time to train and GPU-hours are */
    has(s, "| time to train | %.1f days", num(j, "time_to_train_days"));
    CU_ASSERT_DOUBLE_EQUAL(num(j, "time_to_train_s"), 3e11 / num(thr, "tokens_per_s"), 1e-6);
    count_text(num(j, "gpu_hours"), b, sizeof b);
    has(s, "| GPU-hours | %s |", b);
    CU_ASSERT_DOUBLE_EQUAL(num(j, "gpu_hours"), num(j, "time_to_train_s") / 3600.0 * num(j, "gpus"), 1e-6);
    /* what limits it, what would speed it up: the same sentences as the JSON */
    char *u = unescape(s);
    const cJSON *lim = get(j, "limits");
    has(u, "**What limits it.** %s", str(lim, "text"));
    const cJSON *sp;
    int k = 0;
    cJSON_ArrayForEach(sp, get(lim, "speedups"))
    {
        if (k++ >= 4)
            break;
        CU_ASSERT_TRUE(num(sp, "gain") > 0);
        has(u, "- %s: %.1f %% less time per step (%.3f s)", str(sp, "what"), 100.0 * num(sp, "gain"),
            num(sp, "step_time_s"));
    }
    CU_ASSERT_TRUE(k >= 1); /* something would speed it up */
    free(u);
    free(s);
}

static void test_how_to_run(void)
{
    const report *r = default_report();
    const cJSON *j = r->json, *plan = get(j, "plan");
    char *s = section(r->md, "How to run it");
    int tp = (int)num(plan, "tp"), pp = (int)num(plan, "pp"), v = (int)num(plan, "virtual_stages");
    has(s, "--tensor-model-parallel-size %d", tp);
    has(s, "--pipeline-model-parallel-size %d", pp);
    has(s, "--micro-batch-size %d", (int)num(plan, "micro_batch"));
    has(s, "--global-batch-size 1536");
    has(s, "--context-parallel-size %d", (int)num(plan, "cp"));
    if (v > 1)
        has(s, "--num-layers-per-virtual-pipeline-stage %d", 96 / (pp * v));
    CU_ASSERT_EQUAL(strstr(s, "--sequence-parallel") != NULL, cJSON_IsTrue(get(plan, "sequence_parallel")));
    CU_ASSERT_EQUAL(strstr(s, "--use-distributed-optimizer") != NULL, num(plan, "zero") >= 1);
    const char *rc = str(plan, "recompute");
    if (strcmp(rc, "none") != 0)
        has(s, "--recompute-granularity %s", rc);
    else
        CU_ASSERT_PTR_NULL(strstr(s, "--recompute-granularity"));
    const cJSON *run = get(j, "how_to_run"), *arg;
    cJSON_ArrayForEach(arg, get(run, "megatron_args")) has(s, "    %s \\\n", arg->valuestring);
    const cJSON *ds = get(run, "deepspeed");
    has(s, "\"gradient_accumulation_steps\": %d", (int)num(ds, "gradient_accumulation_steps"));
    CU_ASSERT_EQUAL(num(ds, "gradient_accumulation_steps"), num(j, "microbatches"));
    has(s, "\"train_micro_batch_size_per_gpu\": %d", (int)num(ds, "train_micro_batch_size_per_gpu"));
    has(s, "\"zero_optimization\": { \"stage\": %d", (int)num(plan, "zero"));
    has(s, "### Compression");
    free(s);
}

static void test_time_and_memory(void)
{
    const report *r = default_report();
    const cJSON *j = r->json, *t = get(j, "time_s"), *by = get(t, "exposed_comm_by_dim");
    char *s = section(r->md, "Where the step time goes");
    double step = num(j, "step_time_s");
    const struct {
        const char *row;
        double v;
    } rows[] = {
        {"computation (forward, backward, recomputation)", num(t, "compute")},
        {"pipeline bubble", num(t, "bubble")},
        {"exposed communication: tensor-parallel", num(by, "tp")},
        {"exposed communication: context-parallel", num(by, "cp")},
        {"exposed communication: pipeline", num(by, "pp")},
        {"exposed communication: data-parallel", num(by, "dp")},
        {"compression kernels", num(t, "compression")},
        {"optimizer step", num(t, "optimizer")},
    };
    double sum = 0.0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        has(s, "| %s | %.3f | %.1f %% |", rows[i].row, rows[i].v, 100.0 * rows[i].v / step);
        sum += rows[i].v;
    }
    CU_ASSERT_DOUBLE_EQUAL(sum, step, 1e-9 * step);
    has(s, "| **step time** | **%.3f** |", step);
    /* the pie shows the same numbers */
    has(s, "    \"computation\" : %.3f\n", num(t, "compute"));
    has(s, "    \"pipeline bubble\" : %.3f\n", num(t, "bubble"));
    /* a slice that rounds to zero is left out of the pie */
    if (num(by, "dp") >= 0.0005)
        has(s, "    \"data-parallel comm\" : %.3f\n", num(by, "dp"));
    else
        CU_ASSERT_PTR_NULL(strstr(s, "\"data-parallel comm\""));
    if (num(by, "tp") >= 0.0005)
        has(s, "    \"tensor-parallel comm\" : %.3f\n", num(by, "tp"));
    free(s);

    const cJSON *m = get(j, "memory_gib");
    s = section(r->md, "Memory per GPU");
    has(s, "| weights | %.2f |", num(m, "weights"));
    has(s, "| gradients | %.2f |", num(m, "gradients"));
    has(s, "| optimizer states | %.2f |", num(m, "optimizer"));
    has(s, "| activations | %.2f |", num(m, "activations"));
    has(s, "| **total** | **%.2f** |", num(m, "total"));
    has(s, "| capacity | %.2f |", num(m, "capacity"));
    has(s, "    \"activations\" : %.2f\n", num(m, "activations"));
    has(s, "    \"free\" : %.2f\n", num(m, "capacity") - num(m, "total"));
    free(s);
}

static void test_schedule(void)
{
    const report *r = default_report();
    const cJSON *sc = get(r->json, "schedule");
    char *s = section(r->md, "Pipeline schedule");
    int pp = (int)num(sc, "pp"), m = (int)num(sc, "microbatches"), shown = (int)num(sc, "microbatches_shown");
    CU_ASSERT_TRUE(pp >= 2);
    /* the replay of all m micro-batches takes the cost model's pipeline time */
    double replay = pp_schedule_makespan_s(pp, (int)num(sc, "virtual_stages"), m, num(sc, "other_forward_s"),
                                           num(sc, "other_backward_s"), num(sc, "forward_s"), num(sc, "backward_s"));
    CU_ASSERT_DOUBLE_EQUAL(replay, num(sc, "pipeline_s"), 1e-9 * replay);
    has(s, "%d micro-batches per step", m);
    has(s, "the pipeline part of the step is %.3f s", num(sc, "pipeline_s"));
    has(s, "the fill and drain (the bubble) take %.3f s", num(sc, "bubble_s"));
    has(s, "and %.4f s on the others", num(sc, "bubble_slot_s"));
    /* the chart is one repeating round of the schedule (2p of the m
     * micro-batches: fill, a steady round, drain), and says so; the real
     * step is m - 2p more slots of the last stage */
    CU_ASSERT_EQUAL(shown, m > 2 * pp ? 2 * pp : m);
    CU_ASSERT_DOUBLE_EQUAL(num(sc, "shown_makespan_s"), num(sc, "pipeline_s") - (m - shown) * num(sc, "slot_s"),
                           1e-9 * num(sc, "pipeline_s"));
    if (shown < m) {
        has(s, "running one repeating round of the schedule, not every micro-batch: %d of the %d micro-batches", shown, m);
        has(s, "and ends %.3f s later", num(sc, "pipeline_s") - num(sc, "shown_makespan_s"));
    } else
        has(s, "running all %d micro-batches, the schedule of the whole step", m);
    CU_ASSERT_PTR_NULL(strstr(s, "stay as drawn"));
    /* all stages when pp <= 8 and their bars fit, else the first and the last */
    const cJSON *stages = get(sc, "stages_shown");
    bool all = pp <= 8 && (long)pp * 2 * shown * (int)num(sc, "virtual_stages") <= PP_SCHEDULE_MAX_TASKS;
    CU_ASSERT_EQUAL(cJSON_GetArraySize(stages), all ? pp : 2);
    mermaid_stats *st = malloc(sizeof *st);
    CU_ASSERT_EQUAL(validate_mermaid(s, st), 0);
    CU_ASSERT_EQUAL(st->gantts, 1);
    const cJSON *tasks = get(sc, "tasks");
    CU_ASSERT_EQUAL(st->n_tasks, cJSON_GetArraySize(tasks));
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tasks)
    {
        if (i >= st->n_tasks)
            break;
        const gantt_task *g = &st->tasks[i++];
        char sect[64];
        snprintf(sect, sizeof sect, "stage %d", (int)num(t, "stage"));
        CU_ASSERT_STRING_EQUAL(g->section, sect);
        CU_ASSERT_EQUAL(g->start, lround(num(t, "start_s") * 1000.0));
        long end = lround(num(t, "end_s") * 1000.0);
        CU_ASSERT_EQUAL(g->end, end > g->start ? end : g->start + 1);
        CU_ASSERT_EQUAL(g->active, strcmp(str(t, "pass"), "backward") == 0);
        CU_ASSERT_EQUAL(g->name[0], strcmp(str(t, "pass"), "backward") == 0 ? 'B' : 'F');
    }
    /* each stage runs one thing at a time */
    for (int k = 1; k < st->n_tasks; k++)
        if (strcmp(st->tasks[k].section, st->tasks[k - 1].section) == 0)
            CU_ASSERT_TRUE(st->tasks[k].start >= st->tasks[k - 1].end - 1);
    free(st);
    free(s);
}

static void test_binding(void)
{
    const report *r = default_report();
    char *s = section(r->md, "Binding constraints");
    char *u = unescape(s);
    const cJSON *f;
    int families = 0;
    bool memory = false;
    cJSON_ArrayForEach(f, get(r->json, "binding"))
    {
        families++;
        const char *name = str(f, "family");
        has(u, "| %s | ", name);
        has(u, "- **%s** (%s). %s\n", name, str(f, "explain"), str(f, "verdict"));
        const cJSON *cf;
        int k = 0;
        cJSON_ArrayForEach(cf, get(f, "counterfactuals"))
        {
            CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(cf, "status"));
            /* memory states its first re-solve (no limit at all) only when no
             * finite memory helps (cons_memory.c) */
            bool stated = !(strcmp(name, "memory") == 0 && k++ == 0);
            if (stated && strcmp(str(cf, "status"), "infeasible") != 0 && num(cf, "gain") > 0) {
                char p[32];
                double g = 100.0 * num(cf, "gain");
                snprintf(p, sizeof p, g < 1.0 ? "%.2f%%" : "%.1f%%", g);
                has(u, "%s less (%.3f s)", p, num(cf, "step_time_s")); /* the sentence states the re-solve */
            }
        }
        if (strcmp(name, "memory") == 0) {
            memory = true;
            /* the first re-solve drops the family; 16 GiB more per GPU comes next */
            if (cJSON_IsTrue(get(f, "binds"))) {
                has(u, "Memory binds");
                CU_ASSERT_STRING_EQUAL(str(cJSON_GetArrayItem(get(f, "counterfactuals"), 1), "change"),
                                       "memory_gib=96");
            } else
                has(u, "Memory does not bind");
        }
        if (strcmp(name, "divisibility") == 0)
            CU_ASSERT_TRUE(cJSON_GetArraySize(get(f, "cuts")) > 0);
        if (strcmp(name, "bandwidth") == 0) /* twice the network is priced */
            has(u, "with 400 Gb/s of network per GPU instead of 200, ");
    }
    CU_ASSERT_EQUAL(families, 5);
    CU_ASSERT_TRUE(memory);
    free(u);
    free(s);
}

static void test_runner_ups(void)
{
    const report *r = default_report();
    char *s = section(r->md, "Runner-ups");
    char *u = unescape(s);
    const cJSON *ru, *ups = get(r->json, "runner_ups");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(ups), 5); /* --top defaults to 5 for the report */
    double best = num(r->json, "step_time_s");
    int rank = 2;
    cJSON_ArrayForEach(ru, ups)
    {
        char plan[512];
        plan_text(get(ru, "plan"), plan, sizeof plan);
        double t = num(ru, "step_time_s"), gap = num(ru, "gap_to_best");
        CU_ASSERT_DOUBLE_EQUAL(gap, (t - best) / best, 1e-12);
        CU_ASSERT_EQUAL(cJSON_IsTrue(get(ru, "tie")), gap <= num(get(r->json, "ties"), "cost_model_error"));
        has(s, "| %d | %s", rank, plan);
        has(u, " | %.3f | +%.2f %% | %s | %s | %.2f | %s |", t, 100.0 * gap, cJSON_IsTrue(get(ru, "tie")) ? "tie" : "no",
            str(ru, "why"), num(ru, "memory_free_gib"), str(ru, "tricks_text"));
        /* the reason names the part that costs most */
        const cJSON *lo = get(ru, "loses_on");
        CU_ASSERT_TRUE(gap == 0.0 || num(lo, "delta_s") > 0);
        rank++;
    }
    const cJSON *ties = get(r->json, "ties");
    /* the tie band is the calibration's cross-validated error (efficiency.json) */
    pp_catalog cat;
    pp_load_catalog(&cat);
    CU_ASSERT(cat.model_error > 0.0);
    CU_ASSERT_DOUBLE_EQUAL(num(ties, "cost_model_error"), cat.model_error, 1e-12);
    has(u, "%s", str(ties, "text"));
    char e[32];
    snprintf(e, sizeof e, "%.1f%%", 100.0 * cat.model_error);
    has(u, "within %s of the optimum", e);
    pp_catalog_free(&cat);
    free(u);
    free(s);
}

static void test_baseline(void)
{
    const report *r = default_report();
    char *s = section(r->md, "Against the baseline");
    const cJSON *b = get(r->json, "baseline");
    CU_ASSERT_TRUE(cJSON_IsTrue(get(b, "valid")));
    CU_ASSERT_STRING_EQUAL(str(b, "label"), "gpt3-175b-1024-a100.plan.json");
    /* the optimum beats Megatron-LM's published tp=8 pp=16 mb=1 plan, and the report says by how much */
    double saved = num(b, "time_saved");
    CU_ASSERT_TRUE(saved > 0);
    CU_ASSERT_DOUBLE_EQUAL(saved, 1.0 - num(r->json, "step_time_s") / num(b, "step_time_s"), 1e-12);
    has(s, "the optimal plan takes **%.1f %% less time per step**, %.2fx the baseline's throughput", 100.0 * saved,
        num(b, "speedup"));
    has(s, "tp=8 pp=16 dp=8");
    has(s, "| **step time** | **%.3f** | **%.3f** |", num(b, "step_time_s"), num(r->json, "step_time_s"));
    has(r->md, "| against the baseline | %.1f %% less time per step", 100.0 * saved);
    free(s);
}

static void test_certificate(void)
{
    const report *r = default_report();
    char *s = section(r->md, "Certificate");
    const cJSON *c = get(r->json, "certificate");
    char a[64];
    has(s, "| solver | %s |", str(c, "solver"));
    has(s, "| status | optimal |");
    has(s, "| objective (step time) | %.6f s |", num(c, "objective_s"));
    has(s, "| best bound | %.6f s |", num(c, "best_bound_s"));
    has(s, "| relative gap | %.4f %% |", 100.0 * num(c, "gap"));
    count_text(num(c, "decision_space"), a, sizeof a);
    has(s, "| valid plans in the decision space | %s |", a);
    count_text(num(c, "nodes"), a, sizeof a);
    has(s, "| branch-and-bound nodes | %s |", a);
    has(s, "| MIP size | %d rows, %d columns (%d binary) |", (int)num(c, "rows"), (int)num(c, "cols"),
        (int)num(c, "binaries"));
    has(s, "--export-mps model.mps");
    has(s, "glpsol --freemps model.mps");
    has(s, "cbc model.mps solve");
    /* the solve time is in the JSON only */
    char t[64];
    snprintf(t, sizeof t, "%.6f", num(c, "solve_time_s"));
    CU_ASSERT_PTR_NULL(strstr(r->md, t));
    free(s);
}

static void test_inputs(void)
{
    const report *r = default_report();
    char *s = section(r->md, "Inputs and assumptions");
    char *u = unescape(s);
    const cJSON *pr = get(r->json, "problem"), *k;
    has(u, "| model.name | %s |", str(get(pr, "model"), "name"));
    has(u, "| cluster.gpu | %s", str(get(pr, "cluster"), "gpu"));
    int n = 0;
    cJSON_ArrayForEach(k, get(r->json, "assumptions"))
    {
        has(u, "| %s | %s | %s |", str(k, "name"), str(k, "value"), str(k, "source"));
        CU_ASSERT_TRUE(strlen(str(k, "source")) > 10);
        n++;
    }
    CU_ASSERT_TRUE(n >= 10);
    has(u, "nvidia-a100-datasheet"); /* a catalog source is cited, not just named */
    free(u);
    free(s);
}

/* ---- well-formed charts, determinism, escaping ----------------------------------- */

static void test_mermaid_well_formed(void)
{
    const report *r = default_report();
    mermaid_stats *st = malloc(sizeof *st);
    CU_ASSERT_EQUAL(validate_mermaid(r->md, st), 0);
    CU_ASSERT_EQUAL(st->pies, 2);
    CU_ASSERT_EQUAL(st->gantts, 1);
    CU_ASSERT_TRUE(st->n_tasks > 0 && st->n_tasks <= PP_SCHEDULE_MAX_TASKS);
    /* the validator itself rejects what would break a chart */
    mermaid_stats *bad = malloc(sizeof *bad);
    quiet = true;
    CU_ASSERT_TRUE(validate_mermaid("```mermaid\npie title a\n    \"x:y\" : 3\n```\n", bad) > 0);
    CU_ASSERT_TRUE(validate_mermaid("```mermaid\npie title a\n    \"x\" : -3\n```\n", bad) > 0);
    CU_ASSERT_TRUE(validate_mermaid("```mermaid\ngantt\n    dateFormat x\n    section s\n    F1 :a, 5, 5\n```\n", bad) > 0);
    CU_ASSERT_TRUE(validate_mermaid("```mermaid\ngantt\n    section s\n    F1 :a, 1, 5\n```\n", bad) > 0);
    CU_ASSERT_TRUE(validate_mermaid("```mermaid\ngantt\n    dateFormat x\n    F1 :a, 1, 5\n```\n", bad) > 0);
    CU_ASSERT_EQUAL(validate_mermaid("```mermaid\ngantt\n    dateFormat x\n    section s\n    F1 :a, 1, 5\n```\n", bad), 0);
    quiet = false;
    free(bad);
    free(st);

    /* a 1F1B schedule without interleaving, and a problem where memory binds */
    char problem[1024];
    pp_source_path(PP_NEOX_EXAMPLE, problem, sizeof problem);
    report neox;
    run_plan(problem, "neox", NULL, &neox);
    st = malloc(sizeof *st);
    CU_ASSERT_EQUAL(validate_mermaid(neox.md, st), 0);
    CU_ASSERT_EQUAL(st->gantts, num(get(neox.json, "schedule"), "pp") >= 2 ? 1 : 0);
    free(st);
    const cJSON *f;
    cJSON_ArrayForEach(f, get(neox.json, "binding")) if (strcmp(str(f, "family"), "memory") == 0)
    {
        CU_ASSERT_TRUE(cJSON_IsTrue(get(f, "binds")));
        const cJSON *plus16 = cJSON_GetArrayItem(get(f, "counterfactuals"), 1);
        CU_ASSERT_STRING_EQUAL(str(plus16, "change"), "memory_gib=31.75");
        CU_ASSERT_TRUE(num(plus16, "gain") > 0);
        char sentence[256];
        snprintf(sentence, sizeof sentence, "Memory binds: faster plans need more than the %.2f GiB usable",
                 num(get(neox.json, "memory_gib"), "usable"));
        has(neox.md, "%s", sentence);
        has(neox.md, "With 32 GiB per GPU instead of 16, a step would take");
    }
    report_free(&neox);
}

/* Remove the one run-dependent line of the JSON (the solve time). */
static void drop_solve_time(char *json)
{
    char *p = strstr(json, "\"solve_time_s\"");
    if (!p)
        return;
    char *eol = strchr(p, '\n');
    memmove(p, eol ? eol : p + strlen(p), strlen(eol ? eol : p + strlen(p)) + 1);
}

static void test_deterministic(void)
{
    const report *first = default_report();
    char problem[1024], baseline[1024];
    pp_source_path(PP_EXAMPLE, problem, sizeof problem);
    pp_source_path(PP_EXAMPLE_PLAN, baseline, sizeof baseline);
    const char *extra[] = {"--baseline", baseline, NULL};
    report again;
    run_plan(problem, "again", extra, &again);
    CU_ASSERT_EQUAL(strlen(first->md), strlen(again.md));
    CU_ASSERT_STRING_EQUAL(first->md, again.md); /* byte-identical */
    char *a = strdup(first->json_text), *b = strdup(again.json_text);
    drop_solve_time(a);
    drop_solve_time(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
    report_free(&again);
}

static void test_hostile_name(void)
{
    static const char problem_text[] =
        "{ \"model\": { \"name\": \"a|b*_[x]<y>#z:\\\"q\\\";\", \"layers\": 96, \"hidden\": 12288, \"heads\": 96,\n"
        "              \"vocab\": 51200, \"seq_len\": 2048 },\n"
        "  \"cluster\": { \"gpu\": \"a100-sxm4-80gb\", \"gpus_per_node\": 8, \"nodes\": 16 },\n"
        "  \"training\": { \"global_batch\": 512, \"precision\": \"bf16\" },\n"
        "  \"search\": { \"micro_batch\": [1], \"virtual_stages\": [1, 2] } }\n";
    char path[1024];
    pp_write_temp("hostile.json", problem_text, path, sizeof path);
    report r;
    run_plan(path, "hostile-report", NULL, &r);
    CU_ASSERT_STRING_EQUAL(str(get(get(r.json, "problem"), "model"), "name"), "a|b*_[x]<y>#z:\"q\";");
    /* inside its table cells: the row has exactly its three unescaped pipes */
    const char *rows[] = {"\n| model | ", "\n| model.name | "};
    for (int i = 0; i < 2; i++) {
        const char *row = strstr(r.md, rows[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(row);
        row++;
        const char *eol = strchr(row, '\n');
        int pipes = 0;
        for (const char *p = row; p < eol; p++)
            if (*p == '|' && (p == row || p[-1] != '\\'))
                pipes++;
        CU_ASSERT_EQUAL(pipes, 3);
        CU_ASSERT_PTR_NOT_NULL(strstr(row, "a\\|b\\*\\_\\[x\\]\\<y\\>\\#z:\"q\";"));
    }
    CU_ASSERT_PTR_NULL(strstr(r.md, "<y>"));
    CU_ASSERT_PTR_NULL(strstr(r.md, "\n#z"));
    /* and inside its chart labels: titles keep the name without : ; # " < > */
    mermaid_stats *st = malloc(sizeof *st);
    CU_ASSERT_EQUAL(validate_mermaid(r.md, st), 0);
    free(st);
    has(r.md, "pie title Step time of a|b*_[x]yzq, seconds\n");
    has(r.md, "    title Pipeline schedule of a|b*_[x]yzq, ");
    report_free(&r);
}

/* The schedule replay is the cost model's pipeline, term for term: with
 * every stage alike (m + (p-1)/v) slots; with a slower last stage (the
 * logits and the loss) m of its slots and (p-1)/v of the others'. */
static void test_schedule_replay(void)
{
    const int cases[][3] = {{8, 1, 48}, {8, 4, 48}, {8, 4, 8}, {16, 1, 8}, {4, 2, 4}, {8, 3, 48}, {2, 1, 1}, {8, 1, 3},
                            {8, 4, 12}, {16, 2, 120}, {4, 2, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int p = cases[i][0], v = cases[i][1], m = cases[i][2];
        double f = 0.7 / v, b = 1.6 / v, fl = 1.0 / v, bl = 2.2 / v;
        double want = (m + (double)(p - 1) / v) * (f + b) * v;
        CU_ASSERT_DOUBLE_EQUAL(pp_schedule_makespan_s(p, v, m, f, b, f, b), want, 1e-9 * want);
        double slow_last = m * (fl + bl) * v + (double)(p - 1) / v * (f + b) * v;
        CU_ASSERT_DOUBLE_EQUAL(pp_schedule_makespan_s(p, v, m, f, b, fl, bl), slow_last, 1e-9 * slow_last);
    }
    /* interleaving needs m >= pp (groups of pp to m, pp_vp_microbatch_group) */
    CU_ASSERT_TRUE(pp_schedule_makespan_s(8, 4, 6, 1, 2, 1, 2) < 0);
}

/* pp_schedule_build lays out the real schedule: a replay of all m
 * micro-batches that ends at the cost model's m slots plus (p-1)/v bubble
 * slots, with the
 * bars of the stages drawn (an excerpt of each when there are too many). */
static void check_built_schedule(const pp_problem *prob, int tp, int pp, int v, int expect_m, bool expect_excerpt)
{
    pp_plan plan;
    pp_plan_init(&plan);
    plan.tp = tp, plan.pp = pp, plan.virtual_stages = v;
    plan.dp = (int)(pp_problem_gpus(prob) / (tp * pp));
    plan.sequence_parallel = true;
    plan.recompute = PP_RECOMPUTE_SELECTIVE;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(prob, &plan, &err), PP_OK);
    pp_schedule s;
    CU_ASSERT_EQUAL_FATAL(pp_schedule_build(prob, &plan, &s, &err), PP_OK);
    double want = s.microbatches * s.slot_s + (double)(pp - 1) / v * s.bubble_slot_s;
    CU_ASSERT_TRUE(s.bubble_slot_s < s.slot_s); /* the last stage also runs the logits and the loss */
    CU_ASSERT_EQUAL(s.microbatches, expect_m);
    /* one round: 2p micro-batches (the fill, a steady round, the drain) */
    int shown = s.microbatches > 2 * pp ? 2 * pp : s.microbatches;
    CU_ASSERT_EQUAL(s.microbatches_shown, shown);
    CU_ASSERT_DOUBLE_EQUAL(s.pipeline_s, want, 1e-9 * want);
    double drawn = want - (s.microbatches - shown) * s.slot_s;
    CU_ASSERT_DOUBLE_EQUAL(s.shown_makespan_s, drawn, 1e-9 * want);
    CU_ASSERT_DOUBLE_EQUAL(pp_schedule_makespan_s(pp, v, s.microbatches, s.other_forward_s, s.other_backward_s,
                                                  s.forward_s, s.backward_s),
                           want, 1e-9 * want);
    CU_ASSERT_TRUE(s.n_tasks <= PP_SCHEDULE_MAX_TASKS);
    CU_ASSERT_EQUAL(s.ops_left_out > 0, expect_excerpt);
    /* the chart renders where users read Markdown: under Mermaid's text limit */
    pp_strbuf chart;
    pp_sb_init(&chart);
    pp_mermaid_gantt(&chart, "a title", &s, NULL);
    CU_ASSERT_TRUE(strlen(pp_sb_str(&chart)) < PP_MERMAID_MAX_TEXT);
    pp_sb_free(&chart);
    /* every stage drawn: its 2 m v operations of the round, less those left out, one at a time */
    CU_ASSERT_EQUAL(s.n_tasks, s.n_stages_shown * (2 * shown * v - s.ops_left_out));
    double last_end = 0;
    for (int i = 0; i < s.n_tasks; i++) {
        if (i > 0 && s.tasks[i].stage == s.tasks[i - 1].stage)
            CU_ASSERT_TRUE(s.tasks[i].start_s >= s.tasks[i - 1].end_s - 1e-12);
        last_end = fmax(last_end, s.tasks[i].end_s);
    }
    CU_ASSERT_DOUBLE_EQUAL(last_end, drawn, 1e-9 * want); /* the drawn drain ends the round */
    pp_schedule_free(&s);
}

static void test_schedule_built_whole(void)
{
    char path[1024];
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", path, sizeof path);
    pp_catalog cat;
    pp_problem prob;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_catalog_load(pp_default_data_dir(), &cat, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(pp_problem_load(path, &cat, &prob, &err), PP_OK);
    /* 1024 GPUs, global batch 1536: tp 8 x pp 8 leaves dp 16, so 96 micro-batches of 1 */
    /* one round of 2p micro-batches is drawn */
    check_built_schedule(&prob, 8, 8, 1, 96, false);  /* 1F1B: 16 of 96, 8 stages x 32 bars, all drawn */
    check_built_schedule(&prob, 8, 8, 4, 96, false);  /* interleaved: 1024 bars, the first and last stage */
    check_built_schedule(&prob, 8, 16, 3, 192, false); /* 32 of 192: 2 stages x 192 bars */
    check_built_schedule(&prob, 8, 16, 6, 192, true); /* 16 stages x 6 chunks: 2 x 384 bars, an excerpt */
    check_built_schedule(&prob, 8, 4, 1, 48, false);  /* 4 stages, all drawn */
    prob.training.global_batch = 768;                  /* 48 micro-batches */
    check_built_schedule(&prob, 8, 8, 4, 48, false);  /* the 8-stage 4-chunk case: 2 x 128 bars */
    check_built_schedule(&prob, 8, 8, 1, 48, false);
    check_built_schedule(&prob, 8, 2, 1, 12, false);  /* 2 stages: every bar of both */
    pp_catalog_free(&cat);
}

/* Every Mermaid block of every example's report (plan, capacity, and eval
 * of the published plans) stays under Mermaid's default maxTextSize of
 * 50,000 characters, so it renders where users read Markdown. */
static size_t largest_mermaid(const char *md)
{
    size_t most = 0;
    for (const char *p = md; (p = strstr(p, "```mermaid\n")) != NULL;) {
        p += strlen("```mermaid\n");
        const char *end = strstr(p, "\n```");
        if (!end)
            return (size_t)-1;
        if ((size_t)(end - p) > most)
            most = (size_t)(end - p);
        p = end;
    }
    return most;
}

static void test_examples_mermaid_under_limit(void)
{
    static const char *const runs[][3] = {
        {"plan", "data/examples/deepseek-v3-h800.json", NULL},
        {"plan", "data/examples/gpt-neox-20b-lassen.json", NULL},
        {"plan", "data/examples/gpt3-175b-1024-a100.json", NULL},
        {"plan", "data/examples/llama2-70b-lora-h100.json", NULL},
        {"capacity", "data/examples/llama3-70b-capacity.json", NULL},
        {"plan", "data/examples/llama3-70b-gb200-nvl72.json", NULL},
        {"plan", "data/examples/llama3-70b-h100.json", NULL},
        {"plan", "data/examples/small-gpt-8gpu.json", NULL},
        {"eval", "data/examples/deepseek-v3-h800.json", "data/examples/deepseek-v3-h800.plan.json"},
        {"eval", "data/examples/gpt3-175b-1024-a100.json", "data/examples/gpt3-175b-1024-a100.plan.json"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char problem[1024], plan[1024], md[512];
        pp_source_path(runs[i][1], problem, sizeof problem);
        pp_temp_path("mermaid-limit.md", md, sizeof md);
        const char *args[8] = {runs[i][0], problem, "-o", md, NULL, NULL, NULL, NULL};
        if (runs[i][2]) {
            pp_source_path(runs[i][2], plan, sizeof plan);
            args[4] = "--plan";
            args[5] = plan;
        }
        pp_run_result r;
        CU_ASSERT_EQUAL_FATAL(pp_run(args, NULL, &r), 0);
        CU_ASSERT_EQUAL(r.exit_code, 0);
        pp_run_free(&r);
        char *text = pp_slurp(md);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        size_t most = largest_mermaid(text);
        if (most >= PP_MERMAID_MAX_TEXT)
            fprintf(stderr, "\n  %s %s: a Mermaid block of %zu characters\n", runs[i][0], runs[i][1], most);
        CU_ASSERT(most < PP_MERMAID_MAX_TEXT);
        CU_ASSERT(strstr(text, "```mermaid") != NULL);
        free(text);
    }
}

/* "Accuracy binds" only where an error budget stops the plan: GPT-NeoX on
 * Lassen, with Megatron-Core's codecs (none, or bf16 for dp within its 0.02),
 * would go faster only by compressing the pipeline and the parameters,
 * which tolerate no error: it does not bind.  The same model under DeepSpeed
 * and MVAPICH2-GDR on a 10 Gb/s network with a dp budget of 0.01 compresses
 * nothing there (zfp16 saves nothing on fp16, zfp8 adds 0.054) and would
 * take a lossier codec on dp without the budget: it binds. */
static bool accuracy_binds(const report *r)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, get(r->json, "binding")) if (strcmp(str(f, "family"), "accuracy") == 0) return cJSON_IsTrue(
        get(f, "binds"));
    return false;
}

static void test_accuracy_binds_only_when_tight(void)
{
    char problem[1024];
    pp_source_path(PP_NEOX_EXAMPLE, problem, sizeof problem);
    report neox;
    run_plan(problem, "neox-acc", NULL, &neox);
    CU_ASSERT_FALSE(accuracy_binds(&neox));
    CU_ASSERT_PTR_NULL(strstr(neox.md, "Accuracy binds"));
    PP_ASSERT_CONTAINS(neox.md, "Accuracy does not bind");
    report_free(&neox);

    char tight[512];
    pp_temp_path("neox-tight-dp.json", tight, sizeof tight);
    pp_write_json(tight, "{'model': 'gpt-neox-20b', 'cluster': {'gpu': 'v100-sxm2-16gb', 'gpus_per_node': 4, "
                         "'nodes': 48, 'intra_node_GBps': 75, 'inter_node_Gbps': 10}, "
                         "'training': {'global_batch': 1536, 'precision': 'fp16', 'optimizer': 'adam', "
                         "'framework': 'deepspeed', 'collectives': 'mvapich2-gdr'}, "
                         "'constraints': {'error_tolerance': {'dp': 0.01}}}");
    report g;
    run_plan(tight, "neox-tight", NULL, &g);
    CU_ASSERT_TRUE(accuracy_binds(&g));
    PP_ASSERT_CONTAINS(g.md, "Accuracy binds");
    report_free(&g);
}

static void test_mermaid_label(void)
{
    pp_strbuf sb;
    pp_sb_init(&sb);
    pp_mermaid_label(&sb, "  a:b;c#d\"e'f%g<h>{i}`j\\k \n l  ");
    CU_ASSERT_STRING_EQUAL(pp_sb_str(&sb), "abcdefghijk l");
    pp_sb_free(&sb);
}

int main(void)
{
    static const pp_test tests[] = {
        {"summary against the JSON (time to train, GPU-hours, limits)", test_summary},
        {"how to run it: Megatron-LM flags and DeepSpeed config", test_how_to_run},
        {"where the time and the memory go: tables and pies", test_time_and_memory},
        {"pipeline schedule: gantt tasks are the JSON's", test_schedule},
        {"binding constraints with re-solved counterfactuals", test_binding},
        {"runner-ups: gap, tie, why they lose", test_runner_ups},
        {"the baseline (Megatron-LM's published plan) is beaten, by how much", test_baseline},
        {"certificate and re-check commands", test_certificate},
        {"inputs and assumptions with sources", test_inputs},
        {"Mermaid blocks are well formed", test_mermaid_well_formed},
        {"two runs give byte-identical reports", test_deterministic},
        {"a hostile model name stays in its cell and its labels", test_hostile_name},
        {"schedule replay equals the cost model's pipeline", test_schedule_replay},
        {"every example report's Mermaid blocks stay under 50,000 characters", test_examples_mermaid_under_limit},
        {"accuracy binds only where the plan's error budget stops it", test_accuracy_binds_only_when_tight},
        {"the schedule laid out is the whole step's", test_schedule_built_whole},
        {"Mermaid label sanitizing", test_mermaid_label},
        {NULL, NULL},
    };
    int rc = pp_test_main("report", tests);
    report_free(&example);
    return rc;
}
