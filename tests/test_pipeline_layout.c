/*
 * test_pipeline_layout.c: the pipeline layout decision (util/decisions.def's
 * pipeline_layout; its rule in space/rules.c, its meaning in cost/layout.c,
 * its flags in reports/launch.c).  DeepSeek-V3's 61 layers run on 16 x 2,
 * 8 x 4 and 16 x 1 chunks in NVIDIA's recipes; they price in eval and in the
 * planner, the Megatron-Core layout string printed for them parses back to
 * the chunks priced, and the default (auto) keeps the splits parplan priced
 * before the decision existed.
 */
#include "costmodel.h"
#include "decisions.h"
#include "launch.h"
#include "planner.h"
#include "rules.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* DeepSeek-V3 on 2,048 H800 (the example), at a global batch whose
 * micro-batches per pipeline are a multiple of 16 (interleaving needs it). */
static void deepseek(const pp_catalog *cat, pp_problem *p)
{
    pp_load_problem("data/examples/deepseek-v3-h800.json", cat, p);
    p->training.global_batch = 8192;
    /* the layouts are the question: not the example's stated all-to-all
     * overlap, which Megatron-Core runs only with interleaving */
    p->training.moe_a2a_overlap = p->training.moe_a2a_overlap_given = false;
    CU_ASSERT_EQUAL_FATAL(p->model.layers, 61);
}

static pp_plan deepseek_plan(int pp, int v)
{
    pp_plan pl = pp_test_plan(1, pp, 2048 / pp, 1, 1);
    pl.virtual_stages = v;
    pl.ep = 64;
    pl.zero = 1;
    pl.recompute = PP_RECOMPUTE_SELECTIVE;
    return pl;
}

static const int CASES[][2] = {{16, 2}, {8, 4}, {16, 1}};

/* The chunks of a split in model order (chunk g = j pp + stage; without
 * interleaving a chunk is a stage). */
static int chunk_layers(const pp_stage_split *s, long chunks, long g)
{
    if (chunks == 1)
        return s->first_chunk;
    return g == 0 ? s->first_chunk : g == chunks - 1 ? s->last_chunk : s->chunk > 0 ? s->chunk : s->middle;
}

static void test_deepseek_layouts_price(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    deepseek(&cat, &p);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        pp_plan pl = deepseek_plan(CASES[i][0], CASES[i][1]);
        pp_error err;
        int rc = pp_plan_check(&p, &pl, &err);
        if (rc)
            printf("\n  pp %d v %d: %s", pl.pp, pl.virtual_stages, err.msg);
        CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
        pp_stage_split s;
        CU_ASSERT_FATAL(pp_stage_layers(&p, &pl, &s));
        /* the stages hold every layer, and so do the chunks */
        CU_ASSERT_EQUAL(s.first + (pl.pp - 2) * s.middle + s.last, 61);
        long chunks = (long)pl.pp * pl.virtual_stages, held = 0;
        for (long g = 0; g < chunks; g++)
            held += chunk_layers(&s, chunks, g);
        CU_ASSERT_EQUAL(held, 61);
        /* NVIDIA's layouts: 3, 4 ... 4, 2 on 16 stages; 7, 8 ... 8, 6 on 8 */
        CU_ASSERT_EQUAL(s.middle, pl.pp == 16 ? 4 : 8);
        CU_ASSERT(s.first < s.middle && s.last < s.first);
        double step = pp_step_time_s(&p, &pl);
        CU_ASSERT(isfinite(step) && step > 0.0);
        /* the slowest stage sets the pace: more layers on one stage is never faster */
        pp_eval ev;
        pp_evaluate(&p, &pl, &ev);
        CU_ASSERT(isfinite(ev.mem.total_gib) && ev.mem.total_gib > 0.0);
    }
    pp_catalog_free(&cat);
}

/* Megatron-Core's parse_str_to_list: commas dropped, "(...)*n" and "x*n"
 * unrolled, chunks split at "|"; returns the chunks, with each chunk's
 * decoder layers in t[], the MTP modules ("m") in *mtp, and whether E and L
 * sit first and last, the MTP modules in the last chunk after its layers. */
static int parse_layout(const char *in, int *t, int max, int *mtp, bool *ends_ok)
{
    char a[4096], b[4096];
    size_t n = 0;
    for (const char *c = in; *c && n + 1 < sizeof a; c++)
        if (*c != ',' && *c != '"')
            a[n++] = *c;
    a[n] = '\0';
    /* (group)*k */
    n = 0;
    for (const char *c = a; *c && n + 1 < sizeof b;) {
        if (*c == '(') {
            const char *close = strchr(c, ')');
            if (!close || close[1] != '*')
                return -1;
            int k = 0, used = 0;
            if (sscanf(close + 2, "%d%n", &k, &used) != 1)
                return -1;
            for (int r = 0; r < k; r++)
                for (const char *g = c + 1; g < close && n + 1 < sizeof b; g++)
                    b[n++] = *g;
            c = close + 2 + used;
        } else
            b[n++] = *c++;
    }
    b[n] = '\0';
    /* x*k */
    n = 0;
    for (const char *c = b; *c && n + 1 < sizeof a;) {
        if (c[1] == '*') {
            int k = 0, used = 0;
            if (sscanf(c + 2, "%d%n", &k, &used) != 1)
                return -1;
            for (int r = 0; r < k && n + 1 < sizeof a; r++)
                a[n++] = *c;
            c += 2 + used;
        } else
            a[n++] = *c++;
    }
    a[n] = '\0';
    int chunks = 0;
    t[0] = 0;
    *mtp = 0;
    *ends_ok = a[0] == 'E' && n > 0 && a[n - 1] == 'L';
    for (const char *c = a; *c; c++) {
        if (*c == '|') {
            if (++chunks >= max)
                return -1;
            t[chunks] = 0;
        } else if (*c == 't')
            t[chunks] += *mtp == 0 ? 1 : (*ends_ok = false, 1);
        else if (*c == 'm')
            ++*mtp;
        else if ((*c == 'E' && c != a) || (*c == 'L' && c[1]) || (*c != 'E' && *c != 'L'))
            *ends_ok = false;
    }
    if (*mtp > 0 && strchr(strchr(a, 'm'), '|')) /* an MTP module off the last chunk */
        *ends_ok = false;
    return chunks + 1;
}

static void test_layout_string_round_trips(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    deepseek(&cat, &p);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        pp_plan pl = deepseek_plan(CASES[i][0], CASES[i][1]);
        char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
        int n = pp_megatron_flags(&p, &pl, lines, PP_LAUNCH_MAX_SETTINGS);
        const char *layout = NULL, *first = NULL;
        for (int k = 0; k < n; k++) {
            const char *at = strstr(lines[k], "--pipeline-model-parallel-layout ");
            if (at)
                layout = at + strlen("--pipeline-model-parallel-layout ");
            if (strstr(lines[k], "--decoder-first-pipeline-num-layers"))
                first = lines[k];
        }
        pp_stage_split s;
        CU_ASSERT_FATAL(pp_stage_layers(&p, &pl, &s));
        if (pl.virtual_stages == 1) { /* first and last counts say it */
            CU_ASSERT_PTR_NOT_NULL(first);
            CU_ASSERT_PTR_NULL(layout);
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(layout);
        int t[256], mtp = -1;
        bool ends_ok = false;
        int chunks = parse_layout(layout, t, 256, &mtp, &ends_ok);
        CU_ASSERT_EQUAL(chunks, pl.pp * pl.virtual_stages);
        CU_ASSERT(ends_ok);
        CU_ASSERT_EQUAL(mtp, p.training.mtp_layers); /* DeepSeek-V3's module, in the last chunk */
        int total = 0;
        for (int g = 0; g < chunks; g++) {
            CU_ASSERT_EQUAL(t[g], chunk_layers(&s, chunks, g));
            total += t[g];
        }
        CU_ASSERT_EQUAL(total, 61);
    }
    /* the recipe's own string parses as Megatron-Core parses it */
    int t[64], mtp;
    bool ends_ok;
    CU_ASSERT_EQUAL(parse_layout("\"Et*3|(tt|)*29,t|L\"", t, 64, &mtp, &ends_ok), 32);
    CU_ASSERT(ends_ok && t[0] == 3 && t[1] == 2 && t[30] == 1 && t[31] == 0 && mtp == 0);
    CU_ASSERT_EQUAL(parse_layout("\"E|t*3|(t|)*5mL\"", t, 64, &mtp, &ends_ok), 8); /* the MTP guide's example */
    CU_ASSERT(ends_ok && t[0] == 0 && t[1] == 3 && t[6] == 1 && t[7] == 0 && mtp == 1);
    parse_layout("\"Et|tm|L\"", t, 64, &mtp, &ends_ok); /* not in the last chunk */
    CU_ASSERT_FALSE(ends_ok);
    pp_catalog_free(&cat);
}

/* The planner finds and prices the interleaved layouts, and its MIP agrees
 * with the enumerator. */
static void test_planner_prices_them(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    deepseek(&cat, &p);
    p.search[PP_DEC_TP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_EP] = (pp_int_list){1, {64}};
    p.search[PP_DEC_CP] = (pp_int_list){1, {1}};
    p.memory_headroom = 0.0;
    p.cluster.gpu.memory_gib = 1000.0; /* price, not fit: the layouts are the question */
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        p.search[PP_DEC_PP] = (pp_int_list){1, {CASES[i][0]}};
        p.search[PP_DEC_VIRTUAL_STAGES] = (pp_int_list){1, {CASES[i][1]}};
        pp_plan_result res[2];
        pp_test_solve_both(&p, res);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(res[k].best.plan.pp, CASES[i][0]);
            CU_ASSERT_EQUAL(res[k].best.plan.virtual_stages, CASES[i][1]);
            CU_ASSERT_EQUAL(res[k].best.plan.pipeline_layout, PP_LAYOUT_AUTO);
            pp_plan_result_free(&res[k]);
        }
    }
    pp_catalog_free(&cat);
}

/* auto is the split parplan priced before the layout was a decision;
 * named, a layout needs what it needs. */
static void test_auto_keeps_the_old_splits(void)
{
    CU_ASSERT_EQUAL(pp_decisions[PP_DEC_PIPELINE_LAYOUT].max, PP_LAYOUT_COUNT - 1);
    CU_ASSERT_EQUAL(pp_decisions[PP_DEC_PIPELINE_LAYOUT].def, PP_LAYOUT_AUTO);
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_load_problem("data/examples/gpt3-175b-1024-a100.json", &cat, &p);
    pp_stage_split s;
    pp_plan pl = pp_test_plan(8, 8, 16, 1, 1);
    p.model.layers = 96; /* 8 x 6 chunks of 2 */
    pl.virtual_stages = 6;
    CU_ASSERT_FATAL(pp_stage_layers(&p, &pl, &s));
    CU_ASSERT(!s.uneven && s.chunk == 2 && s.first == 12);
    p.model.layers = 126; /* 8 x 8 chunks of 2 with the embedding and the loss as layers (NeMo's 405B) */
    pl.virtual_stages = 8;
    CU_ASSERT_FATAL(pp_stage_layers(&p, &pl, &s));
    CU_ASSERT(s.uneven && s.embedding_loss && s.chunk == 2 && s.first == 15 && s.middle == 16 && s.last == 15);
    pl.pp = 16; /* Llama 3 405B: 7 + 14 x 8 + 7 */
    pl.virtual_stages = 1;
    CU_ASSERT_FATAL(pp_stage_layers(&p, &pl, &s));
    CU_ASSERT(s.first == 7 && s.middle == 8 && s.last == 7);
    /* named: even needs pp v to divide the layers */
    p.model.layers = 61;
    pl.virtual_stages = 2;
    pl.dp = 8;
    pl.pipeline_layout = PP_LAYOUT_EVEN;
    CU_ASSERT_FALSE(pp_stage_layers(&p, &pl, &s));
    pp_error err;
    pp_plan_check(&p, &pl, &err);
    CU_ASSERT_EQUAL(pp_plan_broken_rule(&p, &pl, &err), PP_RULE_CHUNKS);
    PP_ASSERT_CONTAINS(err.msg, "pipeline_layout even");
    pl.pipeline_layout = PP_LAYOUT_BALANCED;
    CU_ASSERT(pp_stage_layers(&p, &pl, &s));
    CU_ASSERT(s.first_chunk == 1 && s.chunk == 2 && s.last_chunk == 0);
    pp_catalog_free(&cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"DeepSeek-V3's 61 layers on 16 x 2, 8 x 4 and 16 x 1 chunks price", test_deepseek_layouts_price},
        {"the layout string parses back to the chunks priced", test_layout_string_round_trips},
        {"the planner prices them, MIP = enumeration", test_planner_prices_them},
        {"auto keeps the old splits; a named layout needs its own", test_auto_keeps_the_old_splits},
        {NULL, NULL},
    };
    return pp_test_main("pipeline layout", tests);
}
