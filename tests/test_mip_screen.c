/*
 * test_mip_screen.c: what the MIP's screen and price cache
 * (formulate/mip/mip.c, mip_cache.c) assume of the cost model, over the
 * examples' spaces:
 *
 *   - a plan's stage term is at least that of its `least` plan
 *     (pp_plan_least: no recomputation, no fp8 store), which the screen's
 *     bound prices instead of every recompute variant;
 *   - the `thrifty` values (full recomputation, the fp8 store) hold no more
 *     activation memory than the plan's, which is why the screen tries them
 *     first when it asks whether a shape has any plan that fits (its answer
 *     does not depend on it: test_planner.c compares the MIP with the
 *     enumerator);
 *   - plans with one pp_form_stage_kernels_key have bit for bit the same stage
 *     kernels (the price cache prices them once per key), and the stage
 *     term priced from them is pp_form_term_of's.
 */
#include "costmodel.h"
#include "decisions.h"
#include "rules.h"
#include "space.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const EXAMPLES[] = {
    "data/examples/gpt3-175b-1024-a100.json",    "data/examples/llama3-70b-h100.json",
    "data/examples/deepseek-v3-h800.json",       "data/examples/llama2-70b-lora-h100.json",
    "data/examples/llama3-70b-gb200-nvl72.json", "data/examples/small-gpt-8gpu.json",
    "data/examples/gpt-neox-20b-lassen.json",
};

#define SHAPES_PER_EXAMPLE 400 /* spread over the space; every stage choice of each */

typedef struct tally {
    long plans, least_checked, thrifty_checked;
} tally;

static double stage_obj(const pp_problem *prob, const pp_plan *plan, double *mem_gib, int *n_mem)
{
    pp_form_shape sf;
    pp_form_shape_of(prob, plan, &sf);
    pp_form_term t;
    pp_form_term_of(prob, plan, &sf, PP_FORM_STAGE, &t);
    *n_mem = sf.n_mem;
    memcpy(mem_gib, t.mem_gib, sizeof t.mem_gib);
    return t.obj_s;
}

/* One valid plan of a shape's stage choices: its least and thrifty plans
 * against it. */
static void check_plan(const pp_problem *prob, const pp_plan *plan, tally *n)
{
    if (pp_plan_check(prob, plan, NULL) != PP_OK)
        return;
    n->plans++;
    double mem[PP_MEM_STAGES], mem_least[PP_MEM_STAGES], mem_thrifty[PP_MEM_STAGES];
    int n_mem, n_least, n_thrifty;
    double obj = stage_obj(prob, plan, mem, &n_mem);

    pp_plan least = *plan;
    pp_plan_least(&least);
    double obj_least = stage_obj(prob, &least, mem_least, &n_least);
    CU_ASSERT(obj_least <= obj * (1.0 + 1e-12));
    n->least_checked++;

    pp_plan thrifty = *plan;
    for (int k = 0; k < PP_DEC_COUNT; k++)
        if (pp_decisions[k].has_thrifty)
            pp_decision_set(&thrifty, pp_decisions[k].id, pp_decisions[k].thrifty);
    if (pp_plan_check(prob, &thrifty, NULL) != PP_OK)
        return; /* the screen only tries thrifty values that are candidates */
    stage_obj(prob, &thrifty, mem_thrifty, &n_thrifty);
    CU_ASSERT_EQUAL(n_thrifty, n_mem);
    for (int k = 0; k < n_mem && k < n_thrifty; k++)
        CU_ASSERT(mem_thrifty[k] <= mem[k] * (1.0 + 1e-12));
    n->thrifty_checked++;
}

/* Every combination of the stage family's options of shape sh. */
static void check_shape(const pp_problem *prob, const pp_space *s, const pp_shape *sh, tally *n)
{
    const pp_decision *rows[PP_DEC_COUNT];
    const pp_int_list *lists[PP_DEC_COUNT];
    int at[PP_DEC_COUNT], k = 0;
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        if (d->role != PP_ROLE_OPTION || d->term != PP_FORM_STAGE)
            continue;
        const pp_int_list *l = pp_space_options(s, sh, (pp_option_kind)d->order);
        if (l->n == 0)
            return;
        rows[k] = d;
        lists[k] = l;
        at[k++] = 0;
    }
    for (bool more = true; more;) {
        pp_plan plan = sh->base;
        for (int i = 0; i < k; i++)
            pp_decision_set(&plan, rows[i]->id, lists[i]->v[at[i]]);
        check_plan(prob, &plan, n);
        more = false;
        for (int i = k - 1; i >= 0 && !more; i--) {
            more = ++at[i] < lists[i]->n;
            if (!more)
                at[i] = 0;
        }
    }
}

/* Every example's space, its shapes sampled every `stride` (about
 * SHAPES_PER_EXAMPLE of them), handed to one example's check. */
typedef void (*example_check)(const pp_problem *prob, const pp_space *space, int stride, void *ctx);

static void for_each_example(example_check check, void *ctx)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (size_t e = 0; e < sizeof EXAMPLES / sizeof EXAMPLES[0]; e++) {
        pp_problem prob;
        pp_load_problem(EXAMPLES[e], &cat, &prob);
        pp_space space;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_space_build(&prob, &space, &err), PP_OK);
        check(&prob, &space, space.n_shapes > SHAPES_PER_EXAMPLE ? space.n_shapes / SHAPES_PER_EXAMPLE : 1, ctx);
        pp_space_free(&space);
    }
    pp_catalog_free(&cat);
}

static void least_and_thrifty_of(const pp_problem *prob, const pp_space *space, int stride, void *ctx)
{
    tally *all = ctx, n = {0, 0, 0};
    for (int i = 0; i < space->n_shapes; i += stride)
        check_shape(prob, space, &space->shapes[i], &n);
    CU_ASSERT(n.least_checked > 0);
    all->plans += n.plans;
    all->least_checked += n.least_checked;
    all->thrifty_checked += n.thrifty_checked;
}

static void test_least_and_thrifty(void)
{
    tally all = {0, 0, 0};
    for_each_example(least_and_thrifty_of, &all);
    /* the recompute variants of DeepSeek-V3 alone are thousands of plans */
    CU_ASSERT(all.least_checked > 5000);
    CU_ASSERT(all.thrifty_checked > 1000);
}

#define KEYS_MAX 4096
#define PLANS_PER_SHAPE 64

typedef struct kernel_seen {
    int n;
    pp_plan key[KEYS_MAX];
    pp_stage_kernels kernels[KEYS_MAX];
} kernel_seen;

/* The plan's kernels against the first plan's of its key. */
static void check_kernels(const pp_problem *prob, const pp_plan *plan, kernel_seen *seen, long *shared)
{
    pp_plan key;
    pp_stage_kernels k;
    pp_form_stage_kernels_key(plan, &key);
    pp_form_stage_kernels_of(prob, plan, &k);
    int i = 0;
    while (i < seen->n && memcmp(&seen->key[i], &key, sizeof key) != 0)
        i++;
    if (i < seen->n) {
        CU_ASSERT(memcmp(&seen->kernels[i], &k, sizeof k) == 0);
        (*shared)++;
    } else if (seen->n < KEYS_MAX) {
        seen->key[seen->n] = key;
        seen->kernels[seen->n++] = k;
    }
    /* the stage term from the kernels is pp_form_term_of's */
    pp_form_shape sf;
    pp_form_shape_of(prob, plan, &sf);
    pp_form_term a, b;
    pp_form_term_of(prob, plan, &sf, PP_FORM_STAGE, &a);
    pp_form_stage_term_of(prob, plan, &sf, i < seen->n ? &seen->kernels[i] : &k, &b);
    CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
}

typedef struct kernels_ctx {
    kernel_seen seen;
    long shared_all;
} kernels_ctx;

static void kernels_of_example(const pp_problem *prob, const pp_space *space, int stride, void *ctx)
{
    kernels_ctx *k = ctx;
    k->seen.n = 0;
    long shared = 0;
    for (int i = 0; i < space->n_shapes; i += stride) {
        pp_odometer o;
        if (!pp_odometer_start(&o, space, &space->shapes[i]))
            continue;
        int n = 0;
        do {
            pp_plan plan;
            pp_odometer_plan(&o, &space->shapes[i], &plan);
            if (pp_plan_check(prob, &plan, NULL) == PP_OK)
                check_kernels(prob, &plan, &k->seen, &shared);
        } while (++n < PLANS_PER_SHAPE && pp_odometer_next(&o));
    }
    CU_ASSERT(shared > 0); /* plans of other shapes and options share a key */
    k->shared_all += shared;
}

static void test_kernels_by_key(void)
{
    kernels_ctx *k = calloc(1, sizeof *k); /* a megabyte of keys: not on the stack */
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    for_each_example(kernels_of_example, k);
    CU_ASSERT(k->shared_all > 10000);
    free(k);
}

int main(void)
{
    static const pp_test tests[] = {
        {"least plans bound the stage term; thrifty plans hold the least memory", test_least_and_thrifty},
        {"plans of one kernel key share their stage kernels", test_kernels_by_key},
        {NULL, NULL},
    };
    return pp_test_main("mip_screen", tests);
}
