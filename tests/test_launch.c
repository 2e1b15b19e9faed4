/*
 * test_launch.c: the launch settings run on the framework they name.
 *
 * Every Megatron-LM flag parplan writes must exist in Megatron-LM's argument
 * parser at the commit named in tests/data/megatron-lm-core_v0.15.0-flags.txt
 * (the list is extracted from megatron/training/arguments.py at tag
 * core_v0.15.0; the file says how).  The flags are collected over every plan
 * of the decision space of each example problem, in every precision its GPU
 * runs and every attention kernel, so each branch of the flag writer that a
 * plan can reach is seen.  Every Megatron-Bridge override key must be a
 * field of its ConfigContainer at tag v0.2.2
 * (tests/data/megatron-bridge_v0.2.2-keys.txt, extracted by
 * tests/data/megatron-bridge-keys.py), and every torchtitan TOML key one
 * of its job configuration at tag v0.2.2 (tests/data/torchtitan_v0.2.2-keys.txt), and every
 * DeepSpeed configuration key one of DeepSpeed v0.17.6's
 * (tests/data/deepspeed_v0.17.6-keys.txt, extracted by tests/data/deepspeed-keys.py).
 */
#include "catalog.h"
#include "launch.h"
#include "problem.h"
#include "rules.h"
#include "space.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FLAGS 1024
#define FLAG_LEN 64
/* The plans of one problem variant the test writes settings for: every
 * PLAN_STRIDE-th plan of each shape (degrees) in the space's order, at most
 * PLANS_PER_SHAPE of a shape and PLANS_PER_CASE of the variant, so that the
 * walk reaches every shape's branches (pipeline layouts, sequence
 * parallelism, TP overlap) rather than the first shapes' every micro-batch
 * and ZeRO stage.  So sampled, 1,500 plans a variant write every flag and
 * key that 4,000 (16 a shape) do, and five that the first 4,000 in order
 * never wrote (the uneven pipeline's first and last stage, sequence
 * parallelism, TP overlap, torchtitan's AsyncTP), in under half the time. */
#define PLANS_PER_CASE 1500
#define PLAN_STRIDE 3
#define PLANS_PER_SHAPE 12

/* A set of flags, with an open-addressing hash index over them: the test
 * looks up every setting of ~10^5 plans, which a linear scan made the
 * suite's slowest test. */
#define FLAG_SLOTS 4096 /* a power of two, over MAX_FLAGS */

typedef struct flag_set {
    int n;
    char flag[MAX_FLAGS][FLAG_LEN];
    int slot[FLAG_SLOTS]; /* 1 + the index of a flag, 0 empty */
} flag_set;

static void flag_set_clear(flag_set *s)
{
    s->n = 0;
    memset(s->slot, 0, sizeof s->slot);
}

/* FNV-1a of the string, as the slot to probe first. */
static unsigned flag_hash(const char *f)
{
    unsigned h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)f; *c; c++)
        h = (h ^ *c) * 16777619u;
    return h & (FLAG_SLOTS - 1);
}

/* The slot that holds f, or the empty slot where it would go. */
static int flag_slot(const flag_set *s, const char *f)
{
    unsigned i = flag_hash(f);
    while (s->slot[i] && strcmp(s->flag[s->slot[i] - 1], f) != 0)
        i = (i + 1) & (FLAG_SLOTS - 1);
    return (int)i;
}

static bool has_flag(const flag_set *s, const char *f)
{
    return s->slot[flag_slot(s, f)] != 0;
}

static void add_flag(flag_set *s, const char *f)
{
    int i = flag_slot(s, f);
    if (s->slot[i] || s->n >= MAX_FLAGS)
        return;
    snprintf(s->flag[s->n], FLAG_LEN, "%s", f);
    if (strcmp(s->flag[s->n], f) != 0) /* longer than FLAG_LEN: kept as cut, looked up as cut */
        i = flag_slot(s, s->flag[s->n]);
    if (!s->slot[i])
        s->slot[i] = ++s->n;
}

/* The flags of Megatron-LM's parser, from the list file. */
static void load_megatron_flags(flag_set *s)
{
    char path[1024];
    pp_source_path("tests/data/megatron-lm-core_v0.15.0-flags.txt", path, sizeof path);
    char *text = pp_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    flag_set_clear(s);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] == '-')
            add_flag(s, line);
    free(text);
}

/* The keys of a list file (lines not starting with '#'). */
static void load_keys(const char *file, flag_set *s)
{
    char path[1024];
    pp_source_path(file, path, sizeof path);
    char *text = pp_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    flag_set_clear(s);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#')
            add_flag(s, line);
    free(text);
}

/* Every setting of a configuration target as section.key (key at the top). */
static void add_setting_keys(const pp_launch_target *t, flag_set *out)
{
    for (int i = 0; i < t->n; i++) {
        char key[FLAG_LEN];
        if (t->settings[i].section)
            snprintf(key, sizeof key, "%s.%s", t->settings[i].section, t->settings[i].key);
        else
            snprintf(key, sizeof key, "%s", t->settings[i].key);
        add_flag(out, key);
    }
}

/* How many of written are not in known, each printed as "not a WHAT: x". */
static int count_unknown(const flag_set *written, const flag_set *known, const char *what)
{
    int missing = 0;
    for (int i = 0; i < written->n; i++)
        if (!has_flag(known, written->flag[i])) {
            printf("\n  not a %s: %s", what, written->flag[i]);
            missing++;
        }
    return missing;
}

/* Every "--flag" of the plan's Megatron-LM command line, every key of its
 * Megatron-Bridge overrides (but the recipe's name) and every section.key
 * of its torchtitan TOML. */
static void collect(const pp_problem *prob, const pp_plan *plan, flag_set *out, flag_set *bridge,
                    flag_set *titan, flag_set *ds)
{
    static pp_launch l;
    pp_launch_build(prob, plan, pp_microbatches(prob, plan), &l);
    const pp_launch_target *br = &l.targets[PP_LT_BRIDGE];
    for (int i = 0; i < br->n; i++)
        if (strcmp(br->settings[i].key, "recipe") != 0)
            add_flag(bridge, br->settings[i].key);
    add_setting_keys(&l.targets[PP_LT_DEEPSPEED], ds);
    add_setting_keys(&l.targets[PP_LT_TORCHTITAN], titan);
    char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
    int n = pp_launch_lines(&l.targets[PP_LT_MEGATRON], lines, PP_LAUNCH_MAX_SETTINGS);
    for (int i = 0; i < n; i++) {
        char copy[PP_LAUNCH_TEXT];
        snprintf(copy, sizeof copy, "%.*s", PP_LAUNCH_TEXT - 1, lines[i]);
        for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
            if (tok[0] == '-' && tok[1] == '-')
                add_flag(out, tok);
    }
}

/* Plans of the problem's space, sampled as PLANS_PER_CASE says; how many. */
static int collect_space(const pp_problem *prob, flag_set *out, flag_set *bridge, flag_set *titan, flag_set *ds)
{
    pp_space space;
    pp_error err;
    if (pp_space_build(prob, &space, &err) != PP_OK)
        return 0;
    int plans = 0;
    for (int i = 0; i < space.n_shapes && plans < PLANS_PER_CASE; i++) {
        pp_odometer o;
        if (!pp_odometer_start(&o, &space, &space.shapes[i]))
            continue;
        int walked = 0, of_shape = 0;
        do {
            if (walked++ % PLAN_STRIDE != 0)
                continue;
            pp_plan plan;
            pp_odometer_plan(&o, &space.shapes[i], &plan);
            collect(prob, &plan, out, bridge, titan, ds);
            plans++;
            of_shape++;
        } while (plans < PLANS_PER_CASE && of_shape < PLANS_PER_SHAPE && pp_odometer_next(&o));
    }
    pp_space_free(&space);
    return plans;
}

static const char *const EXAMPLES[] = {
    "data/examples/gpt3-175b-1024-a100.json",   "data/examples/llama3-70b-h100.json",
    "data/examples/deepseek-v3-h800.json",      "data/examples/llama2-70b-lora-h100.json",
    "data/examples/llama3-70b-gb200-nvl72.json", "data/examples/small-gpt-8gpu.json",
    "data/examples/gpt-neox-20b-lassen.json",
};

static void test_megatron_flags_exist(void)
{
    static flag_set known, written, bridge_known, bridge, titan_known, titan, ds_known, ds;
    load_megatron_flags(&known);
    CU_ASSERT_FATAL(known.n > 500);
    load_keys("tests/data/megatron-bridge_v0.2.2-keys.txt", &bridge_known);
    CU_ASSERT_FATAL(bridge_known.n > 300);
    load_keys("tests/data/torchtitan_v0.2.2-keys.txt", &titan_known);
    CU_ASSERT_FATAL(titan_known.n > 100);
    load_keys("tests/data/deepspeed_v0.17.6-keys.txt", &ds_known);
    CU_ASSERT_FATAL(ds_known.n > 100);
    flag_set_clear(&written);
    flag_set_clear(&bridge);
    flag_set_clear(&titan);
    flag_set_clear(&ds);
    pp_catalog cat;
    pp_load_catalog(&cat);
    long plans = 0;
    for (size_t e = 0; e < sizeof EXAMPLES / sizeof EXAMPLES[0]; e++) {
        pp_problem base;
        pp_load_problem(EXAMPLES[e], &cat, &base);
        for (int prec = 0; prec < PP_PREC_COUNT; prec++) {
            if (!(base.cluster.gpu.peak_tflops[prec] > 0))
                continue;
            for (int k = 0; k < PP_ATTN_COUNT; k++) {
                pp_problem p = base;
                p.training.precision = (pp_precision)prec;
                p.training.attention_kernel = (pp_attention_kernel)k;
                p.training.framework = k == 0 ? base.training.framework : PP_FW_MEGATRON_CORE;
                if (k == 1) { /* no recipe builds the model: its shape is written too, a window with it */
                    p.model.bridge_recipe[0] = '\0';
                    p.model.sliding_window = p.model.seq_len / 4;
                    p.model.window_attn_skip_freq = 2;
                }
                plans += collect_space(&p, &written, &bridge, &titan, &ds);
            }
        }
    }
    pp_catalog_free(&cat);
    CU_ASSERT(plans > 1000);
    CU_ASSERT(written.n > 20);
    int missing = count_unknown(&written, &known, "flag of Megatron-LM core_v0.15.0") +
                  count_unknown(&bridge, &bridge_known, "key of Megatron-Bridge v0.2.2") +
                  count_unknown(&titan, &titan_known, "key of torchtitan v0.2.2") +
                  count_unknown(&ds, &ds_known, "key of DeepSpeed v0.17.6");
    CU_ASSERT(bridge.n > 30);
    CU_ASSERT(titan.n > 15);
    CU_ASSERT(ds.n >= 7);
    CU_ASSERT_EQUAL(missing, 0);
    if (missing)
        printf("\n");
}

/* The flags of one problem's plan as one string. */
static void flags_of(const pp_problem *p, const pp_plan *pl, char *out, size_t cap)
{
    char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
    int n = pp_megatron_flags(p, pl, lines, PP_LAUNCH_MAX_SETTINGS);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strncat(out, lines[i], cap - strlen(out) - 1);
        strncat(out, "\n", cap - strlen(out) - 1);
    }
}

/* The DeepSeek-V3 example and its published plan. */
static void load_deepseek(const pp_catalog *cat, pp_problem *p, pp_plan *pl)
{
    pp_load_problem("data/examples/deepseek-v3-h800.json", cat, p);
    char path[1024];
    pp_source_path("data/examples/deepseek-v3-h800.plan.json", path, sizeof path);
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_load(path, p, pl, &err), PP_OK);
}

/* A problem of the Hugging Face config tests/data/NAME on 32 of the GPU. */
static void load_hf(const pp_catalog *cat, const char *name, const char *gpu, pp_problem *p)
{
    char dir[1024], json[2048];
    pp_source_path("tests/data", dir, sizeof dir);
    snprintf(json, sizeof json,
             "{ \"model\": { \"hf_config\": \"%s\", \"seq_len\": 4096 }, \"cluster\": { \"gpu\": \"%s\", "
             "\"nodes\": 4 }, \"training\": { \"global_batch\": 256 } }",
             name, gpu);
    pp_error err;
    int rc = pp_problem_parse(json, "problem.json", dir, cat, p, &err);
    if (rc)
        printf("\n  %s: %s\n", err.path, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
}

/* The model's own architecture reaches the flags: DeepSeek-V3's router,
 * latent norms, rotary base and MTP module (models.json and its Hugging
 * Face config alike), Qwen3's QK norm, Llama 3's rotary base. */
static void test_model_flags(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_plan pl;
    load_deepseek(&cat, &p, &pl);
    static char flags[16384];
    flags_of(&p, &pl, flags, sizeof flags);
    const char *want[] = {"--qk-layernorm", "--rotary-base 10000", "--moe-router-score-function sigmoid",
                          "--moe-router-enable-expert-bias", "--moe-router-num-groups 8",
                          "--moe-router-group-topk 4", "--moe-router-topk-scaling-factor 2.5", "--mtp-num-layers 1",
                          "--v-head-dim 128"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        PP_ASSERT_CONTAINS(flags, want[i]);
    }
    CU_ASSERT_PTR_NULL(strstr(flags, "--kv-channels")); /* latent attention: --v-head-dim */
    /* the Hugging Face config says the same */
    pp_problem hf;
    load_hf(&cat, "deepseek-v3-config.json", "h800-sxm5-80gb", &hf);
    const pp_model *a = &p.model, *b = &hf.model;
    CU_ASSERT(b->qk_layernorm && b->router_sigmoid && b->router_expert_bias);
    CU_ASSERT_EQUAL(b->router_groups, a->router_groups);
    CU_ASSERT_EQUAL(b->router_group_topk, a->router_group_topk);
    CU_ASSERT_DOUBLE_EQUAL(b->router_scaling, a->router_scaling, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(b->rope_theta, a->rope_theta, 1e-9);
    /* Qwen3 from its config: QK norm and its rotary base, softmax router */
    load_hf(&cat, "qwen3-30b-a3b-config.json", "h100-sxm5-80gb", &hf);
    CU_ASSERT(hf.model.qk_layernorm && !hf.model.router_sigmoid && hf.model.router_groups == 0);
    CU_ASSERT_DOUBLE_EQUAL(hf.model.rope_theta, 1e6, 1e-9);
    /* Llama 3: its rotary base, no QK norm, no router */
    pp_load_problem("data/examples/llama3-70b-h100.json", &cat, &p);
    pp_plan dense = pp_test_plan(8, 1, (int)(pp_problem_gpus(&p) / 8), 1, 1);
    flags_of(&p, &dense, flags, sizeof flags);
    PP_ASSERT_CONTAINS(flags, "--rotary-base 500000");
    CU_ASSERT_PTR_NULL(strstr(flags, "--qk-layernorm"));
    CU_ASSERT_PTR_NULL(strstr(flags, "--moe-router"));
    CU_ASSERT_PTR_NULL(strstr(flags, "--window"));
    /* GPT-OSS, from its config and from the catalog alike: every other
     * layer windowed to 128 tokens, the query's own and 127 before it
     * (Transformer Engine's (left, right) besides the query: Megatron-LM's
     * GPT-OSS example, --window-size 127,0), its sinks and its clamped GLU
     * with the +1 offset (examples/gptoss/02_train.sh), not SwiGLU */
    load_hf(&cat, "gpt-oss-120b-config.json", "h100-sxm5-80gb", &hf);
    pp_load_problem("data/examples/gpt-oss-120b-h100-32k.json", &cat, &p);
    const pp_problem *oss[] = {&hf, &p};
    for (int k = 0; k < 2; k++) {
        pp_plan moe = pp_test_plan(1, 1, (int)pp_problem_gpus(oss[k]), 1, 1);
        moe.ep = 8;
        flags_of(oss[k], &moe, flags, sizeof flags);
        PP_ASSERT_CONTAINS(flags, "--window-size 127,0 --window-attn-skip-freq 2");
        PP_ASSERT_CONTAINS(flags, "--quick-geglu --glu-linear-offset 1 --activation-func-clamp-value 7");
        PP_ASSERT_CONTAINS(flags, "--softmax-type learnable");
        CU_ASSERT_PTR_NULL(strstr(flags, "--swiglu"));
    }
    pp_catalog_free(&cat);
}

/* A router's groups must divide its experts, and its group top-k fit them. */
static void test_router_groups_checked(void)
{
    char path[1024];
    pp_temp_path("router-groups.json", path, sizeof path);
    pp_write_json(path, "{ 'model': { 'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 2048,"
                        "  'experts': 16, 'experts_per_token': 2, 'moe_ffn_hidden': 512, 'router_groups': 3,"
                        "  'router_group_topk': 2 },"
                        "  'cluster': { 'gpu': 'h100-sxm5-80gb', 'nodes': 1 }, 'training': { 'global_batch': 64 } }");
    const char *args[] = {"plan", path, NULL};
    pp_run_expect(args, 2, "$.model.router_groups: expected groups dividing the experts (16)");
    pp_write_json(path, "{ 'model': { 'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 2048,"
                        "  'router_score': 'relu' },"
                        "  'cluster': { 'gpu': 'h100-sxm5-80gb', 'nodes': 1 }, 'training': { 'global_batch': 64 } }");
    pp_run_expect(args, 2, "$.model.router_score: expected 'softmax' or 'sigmoid', found 'relu'");
    /* GPT-OSS's activation: one of two words, on a gated MLP only */
    pp_write_json(path, "{ 'model': { 'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 2048,"
                        "  'gated_mlp': true, 'glu_activation': 'gelu' },"
                        "  'cluster': { 'gpu': 'h100-sxm5-80gb', 'nodes': 1 }, 'training': { 'global_batch': 64 } }");
    pp_run_expect(args, 2, "$.model.glu_activation: expected 'swiglu' or 'quick-geglu', found 'gelu'");
    pp_write_json(path, "{ 'model': { 'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 2048,"
                        "  'glu_activation': 'quick-geglu' },"
                        "  'cluster': { 'gpu': 'h100-sxm5-80gb', 'nodes': 1 }, 'training': { 'global_batch': 64 } }");
    pp_run_expect(args, 2, "$.model.glu_activation: expected a gated MLP (gated_mlp true) for a GLU activation");
}

/* A setting of a target, or NULL. */
/* The "how to run" Markdown of an optimal plan and its evaluation, into a
 * buffer the caller frees. */
static void how_to_run_md(const pp_problem *p, const pp_plan *pl, const pp_eval *e, pp_strbuf *sb)
{
    pp_plan_result res = {.status = PP_STATUS_OPTIMAL};
    res.best.plan = *pl;
    res.best.eval = *e;
    pp_sb_init(sb);
    pp_md_how_to_run(sb, p, &res);
}

static const pp_launch_setting *setting(const pp_launch_target *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->settings[i].key, key) == 0)
            return &t->settings[i];
    return NULL;
}

/* torchtitan's TOML says the experts' degree and an interleaved layout's
 * chunk size, and is exact only where torchtitan runs the plan as priced. */
static void test_torchtitan_moe_and_chunks(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_plan pl;
    load_deepseek(&cat, &p, &pl);
    static pp_launch l;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    const pp_launch_setting *ep = setting(&l.targets[PP_LT_TORCHTITAN], "expert_parallel_degree");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ep);
    CU_ASSERT_EQUAL(ep->num, pl.ep);
    pl.etp = pl.tp > 1 ? pl.tp : 2; /* experts split over TP: not a torchtitan feature */
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT_FALSE(l.targets[PP_LT_TORCHTITAN].exact);
    PP_ASSERT_CONTAINS(l.targets[PP_LT_TORCHTITAN].notes, "expert tensor parallelism");
    /* GPT-3's 96 layers in 8 stages of 6 chunks: 2 layers a chunk */
    pp_load_problem("data/examples/gpt3-175b-1024-a100.json", &cat, &p);
    pp_plan g = pp_test_plan(8, 8, 16, 1, 1);
    g.virtual_stages = 6;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &g, &err), PP_OK);
    pp_launch_build(&p, &g, pp_microbatches(&p, &g), &l);
    const pp_launch_setting *lps = setting(&l.targets[PP_LT_TORCHTITAN], "pipeline_parallel_layers_per_stage");
    CU_ASSERT_PTR_NOT_NULL_FATAL(lps);
    CU_ASSERT_EQUAL(lps->num, 2);
    CU_ASSERT_PTR_NULL(setting(&l.targets[PP_LT_TORCHTITAN], "expert_parallel_degree")); /* dense */
    pp_catalog_free(&cat);
}

/* torchtitan trains in the priced recipe: torchao's float8 with tensorwise
 * (current) scaling for fp8-current, MXFP8 for mxfp8, as converters of the
 * linear layers; a recipe it has not (fp8 delayed scaling, fp8-block, NVFP4)
 * makes its settings inexact with a note, and a problem of framework fsdp
 * in such a recipe has no runnable plan: `plan` explains it (exit 3).
 * DeepSpeed's settings say it has no fp8 recipe of its own. */
static void test_torchtitan_recipes(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_load_problem("data/examples/llama3-70b-h100.json", &cat, &p);
    pp_plan pl = pp_test_plan(8, 4, 16, 1, 1);
    static pp_launch l;
    const pp_launch_target *tt = &l.targets[PP_LT_TORCHTITAN];
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT_PTR_NULL(setting(tt, "converters")); /* bf16: none */
    p.training.precision = PP_PREC_FP8_CURRENT;
    p.training.fp8_params = true;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    const pp_launch_setting *conv = setting(tt, "converters"), *recipe = setting(tt, "recipe_name");
    CU_ASSERT_PTR_NOT_NULL_FATAL(conv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(recipe);
    CU_ASSERT_STRING_EQUAL(conv->section, "model");
    CU_ASSERT_STRING_EQUAL(conv->text, "[\"quantize.linear.float8\"]");
    CU_ASSERT_STRING_EQUAL(recipe->section, "quantize.linear.float8");
    CU_ASSERT_STRING_EQUAL(recipe->text, "tensorwise");
    CU_ASSERT_PTR_NOT_NULL(setting(tt, "enable_fsdp_float8_all_gather"));
    CU_ASSERT(strstr(tt->notes, "recipe") == NULL);
    /* DeepSpeed's configuration has no fp8: it says so */
    PP_ASSERT_CONTAINS(l.targets[PP_LT_DEEPSPEED].notes, "DeepSpeed's configuration has no fp8-current recipe");
    p.training.fp8_params = false;
    static const pp_precision lacking[] = {PP_PREC_FP8, PP_PREC_FP8_BLOCK};
    for (int i = 0; i < 2; i++) {
        p.training.precision = lacking[i];
        pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
        CU_ASSERT_FALSE(tt->exact);
        CU_ASSERT_PTR_NULL(setting(tt, "converters"));
        char want[96];
        snprintf(want, sizeof want, "torchtitan v0.2.2 has no %s recipe", pp_precision_name(lacking[i]));
        PP_ASSERT_CONTAINS(tt->notes, want);
    }
    /* a bf16 gradient reduction: torchtitan reduces in float32 only, so its
     * settings say so and are not the plan's (no mixed_precision_reduce key) */
    p.training.precision = PP_PREC_BF16;
    p.training.framework = PP_FW_FSDP;
    p.fw = cat.frameworks[PP_FW_FSDP];
    pl.zero = 3;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT_TRUE(tt->exact);
    int bf16 = -1;
    for (int i = 0; i < p.n_codecs; i++)
        if (strcmp(p.codecs[i].id, "bf16") == 0)
            bf16 = i;
    CU_ASSERT_FATAL(bf16 > 0);
    pl.codec[PP_DIM_DP] = bf16;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT_FALSE(tt->exact);
    CU_ASSERT_PTR_NULL(setting(tt, "mixed_precision_reduce"));
    PP_ASSERT_CONTAINS(tt->notes, "torchtitan reduces FSDP gradients in float32 only");
    pl.codec[PP_DIM_DP] = 0;
    /* MXFP8 on a B200 */
    pp_load_problem("data/examples/llama3-70b-gb200-nvl72.json", &cat, &p);
    CU_ASSERT_EQUAL_FATAL(p.training.precision, PP_PREC_MXFP8);
    pl = pp_test_plan(8, 4, 9, 1, 1);
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    recipe = setting(tt, "recipe_name");
    CU_ASSERT_TRUE(recipe && strcmp(recipe->section, "quantize.linear.mx") == 0 &&
                   strcmp(recipe->text, "mxfp8_cublas") == 0);
    pp_catalog_free(&cat);
    /* framework fsdp in fp8 delayed scaling: no plan runs it */
    char path[1024];
    pp_temp_path("fsdp-fp8.json", path, sizeof path);
    pp_write_json(path, "{ 'model': 'llama3-8b', 'cluster': { 'gpu': 'h100-sxm5-80gb', 'nodes': 1 },"
                        "  'training': { 'global_batch': 64, 'precision': 'fp8', 'framework': 'fsdp' } }");
    const char *args[] = {"plan", path, "-o", "/dev/null", NULL};
    pp_run_expect(args, 3, "the problem's precision fp8 is priced, but it has no recipe for it (it runs bf16, "
                           "fp8-current, mxfp8)");
}

/* Megatron-Bridge runs the plan the flags run: the same degrees, and what
 * Megatron-LM leaves off by its absence written off (a recipe's defaults
 * differ); a model no recipe builds gets its shape, or is not exact. */
/* What a precision recipe keeps in bf16 runs as priced (names.c): NVFP4's
 * selective bf16 blocks (2 and 8 of 62, arXiv 2509.25149) as Megatron-LM
 * flags, 1 and 4 of Llama 3 8B's 32; Megatron-Bridge's mixed-precision
 * recipes set their own blocks and weight format over any model override
 * (v0.2.2 mixed_precision.py), so a difference is a note and not exact. */
static void test_precision_recipe_blocks(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'b200-sxm-180gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'precision': 'nvfp4'}}", &cat, &p);
    pp_plan pl = pp_test_plan(1, 1, 8, 1, 1);
    static pp_launch l;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    const pp_launch_target *mg = &l.targets[PP_LT_MEGATRON], *br = &l.targets[PP_LT_BRIDGE];
    CU_ASSERT_PTR_NOT_NULL(setting(mg, "--first-last-layers-bf16"));
    const pp_launch_setting *s = setting(mg, "--num-layers-at-start-in-bf16");
    CU_ASSERT_TRUE(s && s->num == 1);
    s = setting(mg, "--num-layers-at-end-in-bf16");
    CU_ASSERT_TRUE(s && s->num == 4);
    PP_REL_EQ(pp_precision_props(PP_PREC_NVFP4)->high_precision_fraction, 10.0 / 62.0, 1e-12);
    CU_ASSERT_FALSE(br->exact);
    PP_ASSERT_CONTAINS(br->notes, "`num_layers_at_end_in_bf16=4`");
    CU_ASSERT_PTR_NULL(setting(br, "model.first_last_layers_bf16")); /* the recipe would overwrite it */
    /* blocks as the problem states them (training.bf16_layers_first/_last):
     * launched as priced */
    pp_problem q;
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'b200-sxm-180gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'precision': 'nvfp4', 'bf16_layers_first': 2}}",
                 &cat, &q);
    CU_ASSERT_EQUAL(q.training.bf16_first, 2);
    CU_ASSERT_EQUAL(q.training.bf16_last, 0);
    pp_launch_build(&q, &pl, pp_microbatches(&q, &pl), &l);
    s = setting(mg, "--num-layers-at-start-in-bf16");
    CU_ASSERT_TRUE(s && s->num == 2);
    s = setting(mg, "--num-layers-at-end-in-bf16");
    CU_ASSERT_TRUE(s && s->num == 0);
    PP_ASSERT_CONTAINS(br->notes, "`num_layers_at_start_in_bf16=2`, `num_layers_at_end_in_bf16=0`");
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'b200-sxm-180gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'precision': 'nvfp4', 'bf16_layers_first': 0,"
                 " 'bf16_layers_last': 0}}",
                 &cat, &q);
    pp_launch_build(&q, &pl, pp_microbatches(&q, &pl), &l);
    CU_ASSERT_PTR_NULL(setting(mg, "--first-last-layers-bf16"));
    CU_ASSERT_TRUE(br->exact); /* bf16_with_nvfp4_mixed keeps none either */
    /* fp8 with current scaling: Bridge's recipe keeps a block at each end
     * and gathers fp8 weights; the plan, priced without either, says so */
    p.training.precision = PP_PREC_FP8_CURRENT;
    p.training.fp8_params = false;
    p.training.bf16_layers_resolved = false; /* the recipe's own, as a problem of it resolves them */
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT_PTR_NULL(setting(mg, "--first-last-layers-bf16"));
    CU_ASSERT_FALSE(br->exact);
    PP_ASSERT_CONTAINS(br->notes, "`num_layers_at_start_in_bf16=0`");
    PP_ASSERT_CONTAINS(br->notes, "`fp8_param_gather=false`");
    /* delayed scaling with fp8 weights: what the recipe sets */
    p.training.precision = PP_PREC_FP8;
    p.training.fp8_params = true;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT(strstr(br->notes, "MixedPrecisionConfig") == NULL);
    /* bf16: no recipe fields to differ */
    p.training.precision = PP_PREC_BF16;
    p.training.fp8_params = false;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    CU_ASSERT(strstr(br->notes, "MixedPrecisionConfig") == NULL);
    pp_catalog_free(&cat);
}

static void test_bridge_overrides(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_load_problem("data/examples/llama3-70b-h100.json", &cat, &p);
    pp_plan pl = pp_test_plan(8, 4, (int)(pp_problem_gpus(&p) / 32), 1, 1);
    pl.tp_comm_overlap = false;
    pl.sequence_parallel = true;
    pl.recompute = PP_RECOMPUTE_FULL;
    static pp_launch l;
    pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
    const pp_launch_target *br = &l.targets[PP_LT_BRIDGE];
    CU_ASSERT_TRUE(br->exact);
    const pp_launch_setting *s = setting(br, "model.tensor_model_parallel_size");
    CU_ASSERT_TRUE(s && s->num == 8);
    s = setting(br, "model.pipeline_model_parallel_size");
    CU_ASSERT_TRUE(s && s->num == 4);
    s = setting(br, "comm_overlap.tp_comm_overlap"); /* the Llama 3 70B recipe turns it on */
    CU_ASSERT_TRUE(s && s->kind == PP_LV_BOOL && !s->on);
    s = setting(br, "model.recompute_granularity");
    CU_ASSERT_TRUE(s && strcmp(s->text, "full") == 0);
    s = setting(br, "model.virtual_pipeline_model_parallel_size");
    CU_ASSERT_TRUE(s && s->kind == PP_LV_NULL);
    s = setting(br, "recipe");
    CU_ASSERT_TRUE(s && strstr(s->text, "llama3_70b_pretrain_config"));
    CU_ASSERT_PTR_NULL(setting(br, "model.num_layers")); /* the recipe builds the model */
    CU_ASSERT_PTR_NULL(setting(br, "model.cp_comm_type")); /* cp 1: nothing exchanged */
    /* context parallelism's exchange is the plan's, recipe or not (a
     * windowed model's ring would stop at Transformer Engine's assert) */
    pp_plan cpl = pp_test_plan(8, 2, (int)(pp_problem_gpus(&p) / 32), 2, 1);
    cpl.sequence_parallel = true;
    cpl.cp_comm = PP_CP_ALL_GATHER;
    pp_launch_build(&p, &cpl, pp_microbatches(&p, &cpl), &l);
    s = setting(br, "model.cp_comm_type");
    CU_ASSERT_TRUE(s && strcmp(s->text, "all_gather") == 0);
    cpl.cp_comm = PP_CP_A2A; /* DeepSpeed-Ulysses' all-to-alls: Megatron-Core's and TE's "a2a" */
    pp_launch_build(&p, &cpl, pp_microbatches(&p, &cpl), &l);
    s = setting(br, "model.cp_comm_type");
    CU_ASSERT_TRUE(s && strcmp(s->text, "a2a") == 0);
    /* DeepSeek-V3 with no recipe: the shape is written, but a layer
     * pattern of dense and MoE layers has no override parplan writes */
    pp_plan ds;
    load_deepseek(&cat, &p, &ds);
    p.model.bridge_recipe[0] = '\0';
    pp_launch_build(&p, &ds, pp_microbatches(&p, &ds), &l);
    s = setting(br, "model.num_layers");
    CU_ASSERT_TRUE(s && s->num == 61);
    s = setting(br, "model.num_moe_experts");
    CU_ASSERT_TRUE(s && s->num == 256);
    CU_ASSERT_FALSE(br->exact);
    /* Adam's moments in the type priced: the DeepSeek-V3 example keeps them
     * in bf16 (its report, §3.3.3), which Megatron-LM runs with the
     * precision-aware optimizer and Bridge with torch dtypes; a problem
     * that states nothing gets fp32 written over a recipe's own choice */
    CU_ASSERT_EQUAL(p.training.moment_bytes, 2);
    char flags[8192];
    flags_of(&p, &ds, flags, sizeof flags);
    PP_ASSERT_CONTAINS(flags, "--use-precision-aware-optimizer");
    PP_ASSERT_CONTAINS(flags, "--exp-avg-dtype bf16");
    PP_ASSERT_CONTAINS(flags, "--exp-avg-sq-dtype bf16");
    s = setting(br, "optimizer.use_precision_aware_optimizer");
    CU_ASSERT_TRUE(s && s->kind == PP_LV_BOOL && s->on);
    s = setting(br, "optimizer.exp_avg_dtype");
    CU_ASSERT_TRUE(s && strcmp(s->text, "torch.bfloat16") == 0);
    p.training.moment_bytes = 4;
    pp_launch_build(&p, &ds, pp_microbatches(&p, &ds), &l);
    flags_of(&p, &ds, flags, sizeof flags);
    CU_ASSERT_PTR_NULL(strstr(flags, "--use-precision-aware-optimizer"));
    s = setting(br, "optimizer.use_precision_aware_optimizer");
    CU_ASSERT_TRUE(s && s->kind == PP_LV_BOOL && !s->on);
    s = setting(br, "optimizer.exp_avg_sq_dtype");
    CU_ASSERT_TRUE(s && strcmp(s->text, "torch.float32") == 0);
    PP_ASSERT_CONTAINS(br->notes, "--moe-layer-freq");
    /* its 61 layers on 16 x 2 chunks: Megatron-LM's layout string, unquoted */
    load_deepseek(&cat, &p, &ds);
    ds.tp = 2;
    ds.pp = 16;
    ds.virtual_stages = 2;
    ds.dp = 64;
    ds.cp = 1;
    ds.sequence_parallel = true;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &ds, &err), PP_OK);
    pp_launch_build(&p, &ds, pp_microbatches(&p, &ds), &l);
    const pp_launch_setting *flag = setting(&l.targets[PP_LT_MEGATRON], "--pipeline-model-parallel-layout");
    s = setting(br, "model.pipeline_model_parallel_layout");
    CU_ASSERT_PTR_NOT_NULL_FATAL(flag);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(strlen(s->text) + 2, strlen(flag->text));
    CU_ASSERT_EQUAL(strncmp(s->text, flag->text + 1, strlen(s->text)), 0);
    CU_ASSERT_TRUE(br->exact);
    /* with the all-to-all overlap the recipe's shared-expert overlap goes
     * off (Bridge asserts the two apart; its DeepSeek provider turns it on),
     * and stays as the recipe has it without */
    s = setting(br, "model.moe_shared_expert_overlap"); /* the example states DualPipe's overlap */
    CU_ASSERT_TRUE(s && s->kind == PP_LV_BOOL && !s->on);
    p.training.moe_a2a_overlap = ds.moe_a2a_overlap = false;
    pp_launch_build(&p, &ds, pp_microbatches(&p, &ds), &l);
    CU_ASSERT_PTR_NULL(setting(br, "model.moe_shared_expert_overlap"));
    ds.moe_a2a_overlap = true;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &ds, &err), PP_OK);
    pp_launch_build(&p, &ds, pp_microbatches(&p, &ds), &l);
    s = setting(br, "model.moe_shared_expert_overlap");
    CU_ASSERT_TRUE(s && s->kind == PP_LV_BOOL && !s->on);
    pp_catalog_free(&cat);
}

/* The environment a run needs, said in the launch notes.  A plan priced
 * without NVLink SHARP on a GPU whose NVSwitch runs it says to launch with
 * it off; priced with NCCL's default, nothing to say; an A100, which has
 * none, nothing either.  Transformer Engine's userbuffers need CUDA
 * multicast (NVLink SHARP's NVSwitch) or UB_SKIPMC=1: a TP-overlapped plan
 * on an A100 says so to Megatron-LM and Megatron-Bridge, on an H100 and
 * without the overlap nothing, and torchtitan's AsyncTP never. */
static void test_environment_notes(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    static pp_launch l;
    const char *cases[] = {"data/examples/llama3-70b-h100.json", "data/examples/gpt3-175b-1024-a100.json"};
    for (int e = 0; e < 2; e++) {
        pp_problem p;
        pp_load_problem(cases[e], &cat, &p);
        pp_plan pl = pp_test_plan(8, 4, (int)(pp_problem_gpus(&p) / 32), 1, 1);
        pl.sequence_parallel = true;
        for (int on = 0; on <= 1; on++) {
            p.training.nccl_nvls = p.cluster.nccl_nvls = on;
            pl.tp_comm_overlap = on;
            pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), &l);
            CU_ASSERT_EQUAL(strstr(l.targets[PP_LT_MEGATRON].notes, "NCCL_NVLS_ENABLE=0") != NULL, e == 0 && !on);
            for (int t = PP_LT_MEGATRON; t <= PP_LT_BRIDGE; t++)
                CU_ASSERT_EQUAL(strstr(l.targets[t].notes, "UB_SKIPMC=1") != NULL, e == 1 && on);
            CU_ASSERT_PTR_NULL(strstr(l.targets[PP_LT_TORCHTITAN].notes, "UB_SKIPMC"));
        }
    }
    pp_catalog_free(&cat);
}

/* CUDA graphs are advised where a Megatron-Core plan gives each GPU under
 * 8 ms of a layer's forward and backward per micro-batch (launch.c), with
 * flags Megatron-LM has, and only attention captured for a dropless MoE
 * model. */
static void test_cuda_graph_advice(void)
{
    static flag_set known;
    load_megatron_flags(&known);
    CU_ASSERT(has_flag(&known, "--cuda-graph-impl"));
    CU_ASSERT(has_flag(&known, "--cuda-graph-scope"));
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_load_problem("data/examples/llama2-70b-lora-h100.json", &cat, &p);
    /* MLPerf's Llama 2 70B LoRA plan on 8 H100 (tp 4, cp 2), then cp 1 */
    pp_plan small = pp_test_plan(4, 1, 1, 2, 1), large = pp_test_plan(4, 1, 2, 1, 1);
    pp_eval es, el;
    pp_evaluate(&p, &small, &es);
    pp_evaluate(&p, &large, &el);
    pp_cuda_graph_advice as, al;
    pp_cuda_graph_advice_of(&p, &small, &es, &as);
    pp_cuda_graph_advice_of(&p, &large, &el, &al);
    printf("\n    tp 4 cp 2: %.2f ms a layer, cp 1: %.2f ms ", as.layer_ms, al.layer_ms);
    /* the layer's work per micro-batch halves with cp, about */
    CU_ASSERT(as.layer_ms > 0.4 * al.layer_ms && as.layer_ms < 0.6 * al.layer_ms);
    CU_ASSERT_EQUAL(as.advised, as.layer_ms < 8.0);
    CU_ASSERT_EQUAL(al.advised, al.layer_ms < 8.0);
    CU_ASSERT(as.advised);
    CU_ASSERT_STRING_EQUAL(as.impl, "local");
    CU_ASSERT_PTR_NULL(as.scope);
    CU_ASSERT(as.free_gib >= 0.0 && as.free_gib <= es.mem.usable_gib);
    /* the Markdown says it, with the flag */
    pp_strbuf sb;
    how_to_run_md(&p, &small, &es, &sb);
    CU_ASSERT_PTR_NOT_NULL(strstr(sb.data, "### CUDA graphs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sb.data, "`--cuda-graph-impl local`"));
    pp_sb_free(&sb);
    /* another framework: no advice (the evidence is Megatron-Core's and NeMo's) */
    pp_problem q = p;
    q.training.framework = PP_FW_FSDP;
    pp_cuda_graph_advice aq;
    pp_cuda_graph_advice_of(&q, &small, &es, &aq);
    CU_ASSERT_FALSE(aq.advised);
    /* a dropless MoE model: the attention block, the router and its
     * preprocessing are captured */
    pp_problem d;
    pp_plan dl;
    load_deepseek(&cat, &d, &dl);
    pp_eval ed;
    pp_evaluate(&d, &dl, &ed);
    pp_cuda_graph_advice ad;
    pp_cuda_graph_advice_of(&d, &dl, &ed, &ad);
    CU_ASSERT_STRING_EQUAL(ad.impl, "transformer_engine");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ad.scope);
    CU_ASSERT_STRING_EQUAL(ad.scope, "attn moe_router moe_preprocess");
    CU_ASSERT_EQUAL(ad.advised, ad.layer_ms < 8.0 || ad.host_wait_s > 0.0);
    pp_catalog_free(&cat);
}

/* training.cuda_graphs launches what it prices: partial graphs through
 * Transformer Engine with the MoE layer's captured scopes, full ones as
 * Megatron-Core's local per-layer graphs, none (the default) written as
 * none to Megatron-Bridge, whose recipes may turn graphs on; a MoE plan
 * whose layers wait for the host is told so, in seconds, and a plan that
 * states its graphs is not advised again.  Refused under a framework that
 * captures none. */
static void test_cuda_graphs_launch(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    static const struct {
        const char *model, *graphs, *impl, *scope;
    } cases[] = {{"Qwen3-235B-A22B", "'none'", NULL, NULL},
                 {"Qwen3-235B-A22B", "'partial'", "--cuda-graph-impl transformer_engine",
                  "--cuda-graph-scope attn moe_router moe_preprocess"},
                 {"llama3-70b", "'full'", "--cuda-graph-impl local", NULL}};
    pp_problem p;
    pp_plan pl = pp_test_plan(4, 8, 8, 1, 1);
    pl.ep = 8;
    pl.virtual_stages = 4;
    double host_wait[3] = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'model': '%s', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 32},"
                 " 'training': {'global_batch': 2048, 'cuda_graphs': %s%s}}",
                 cases[i].model, cases[i].graphs,
                 i < 2 ? ", 'moe_force_balance': true, 'moe_dispatcher': 'deepep'" : "");
        pl.ep = i < 2 ? 8 : 1;
        pp_test_load(json, &cat, &p);
        char lines[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
        int n = pp_megatron_flags(&p, &pl, lines, PP_LAUNCH_MAX_SETTINGS);
        bool impl = false, scope = false, any = false;
        for (int k = 0; k < n; k++) {
            impl = impl || (cases[i].impl && strstr(lines[k], cases[i].impl));
            scope = scope || (cases[i].scope && strstr(lines[k], cases[i].scope));
            any = any || strstr(lines[k], "--cuda-graph") != NULL;
        }
        CU_ASSERT_EQUAL(any, cases[i].impl != NULL);
        CU_ASSERT_EQUAL(impl, cases[i].impl != NULL);
        CU_ASSERT_EQUAL(scope, cases[i].scope != NULL);
        pp_launch *l = malloc(sizeof *l);
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        pp_launch_build(&p, &pl, pp_microbatches(&p, &pl), l);
        const pp_launch_setting *b = setting(&l->targets[PP_LT_BRIDGE], "model.cuda_graph_impl");
        CU_ASSERT_PTR_NOT_NULL(b);
        if (b)
            CU_ASSERT_STRING_EQUAL(b->text, i == 0 ? "none" : i == 1 ? "transformer_engine" : "local");
        free(l);
        pp_eval e;
        pp_evaluate(&p, &pl, &e);
        pp_cuda_graph_advice a;
        pp_cuda_graph_advice_of(&p, &pl, &e, &a);
        host_wait[i] = a.host_wait_s;
        CU_ASSERT_EQUAL(a.advised, i == 0);
        /* per-layer graphs run without full recomputation only: not offered, and marked */
        pp_plan full = pl;
        full.recompute = PP_RECOMPUTE_FULL;
        char why[512];
        CU_ASSERT_EQUAL(pp_option_offered(&p, PP_DEC_RECOMPUTE, PP_RECOMPUTE_FULL), i == 0);
        CU_ASSERT_EQUAL(pp_plan_runnable(&p, &full, why, sizeof why), i == 0);
        if (i > 0)
            PP_ASSERT_CONTAINS(why, "full recompute is only supported with full iteration CUDA graph");
    }
    /* the alltoall dispatcher with an expert capacity copies counts to the
     * host in its preprocessing, which Megatron-Core does not capture */
    pp_test_load("{'model': 'Qwen3-235B-A22B', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 32},"
                 " 'training': {'global_batch': 2048, 'cuda_graphs': 'partial'}}",
                 &cat, &p);
    pp_plan capped = pl;
    capped.ep = 8;
    capped.moe_capacity_factor = 1; /* 1.0 */
    capped.moe_dispatcher = 0;      /* alltoall */
    char cl[PP_LAUNCH_MAX_SETTINGS][PP_LAUNCH_TEXT];
    int nc = pp_megatron_flags(&p, &capped, cl, PP_LAUNCH_MAX_SETTINGS);
    bool router = false, preprocess = false;
    for (int k = 0; k < nc; k++) {
        router = router || strstr(cl[k], "--cuda-graph-scope attn moe_router") != NULL;
        preprocess = preprocess || strstr(cl[k], "moe_preprocess") != NULL;
    }
    CU_ASSERT(router);
    CU_ASSERT_FALSE(preprocess);
    /* the eager run waits for the host (tp 4 leaves each GPU 1,024 tokens a
     * micro-batch: the model zoo's 29.0 s run), and the report says how long */
    printf("\n    eager: %.2f s a step waiting for the host ", host_wait[0]);
    CU_ASSERT(host_wait[0] > 1.0);
    CU_ASSERT_EQUAL(host_wait[1], 0.0);
    CU_ASSERT_EQUAL(host_wait[2], 0.0);
    pp_test_load("{'model': 'Qwen3-235B-A22B', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 32},"
                 " 'training': {'global_batch': 2048, 'moe_force_balance': true, 'moe_dispatcher': 'deepep'}}",
                 &cat, &p);
    pl.ep = 8; /* the model zoo's plan, as in the loop's first case */
    pp_eval e;
    pp_evaluate(&p, &pl, &e);
    pp_strbuf sb;
    how_to_run_md(&p, &pl, &e, &sb);
    PP_ASSERT_CONTAINS(sb.data, "of the GPU waiting for the host");
    PP_ASSERT_CONTAINS(sb.data, "`--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router moe_preprocess`");
    pp_sb_free(&sb);
    /* a framework that captures none refuses partial or full graphs */
    char *text = pp_json_of("{'model': 'Qwen3-235B-A22B', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 32},"
                            " 'training': {'global_batch': 2048, 'framework': 'fsdp', 'cuda_graphs': 'partial'}}");
    pp_error err;
    CU_ASSERT_EQUAL(pp_problem_parse(text, "problem.json", NULL, &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "training.cuda_graphs");
    PP_ASSERT_CONTAINS(err.msg, "megatron-core");
    free(text);
    text = pp_json_of("{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                      " 'training': {'global_batch': 64, 'cuda_graphs': 'sometimes'}}");
    CU_ASSERT_EQUAL(pp_problem_parse(text, "problem.json", NULL, &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "training.cuda_graphs");
    free(text);
    /* a dropless MoE layer cannot be captured whole */
    text = pp_json_of("{'model': 'Qwen3-235B-A22B', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 32},"
                      " 'training': {'global_batch': 2048, 'cuda_graphs': 'full'}}");
    CU_ASSERT_EQUAL(pp_problem_parse(text, "problem.json", NULL, &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "training.cuda_graphs");
    PP_ASSERT_CONTAINS(err.msg, "drop-padding");
    free(text);
    pp_catalog_free(&cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"every Megatron-LM flag, Bridge override, torchtitan and DeepSpeed key written exists",
         test_megatron_flags_exist},
        {"the model's router, norms, rotary base and MTP reach the flags", test_model_flags},
        {"a router's groups are checked", test_router_groups_checked},
        {"Megatron-Bridge overrides say the plan the flags say", test_bridge_overrides},
        {"a precision recipe's bf16 blocks and weight format run as priced", test_precision_recipe_blocks},
        {"torchtitan: expert degree, layers per chunk, exact only as priced", test_torchtitan_moe_and_chunks},
        {"torchtitan: the priced fp8 or MXFP8 recipe as a converter; a recipe it lacks runs no plan",
         test_torchtitan_recipes},
        {"the environment a run needs: NVLink SHARP off, userbuffers without multicast", test_environment_notes},
        {"CUDA graphs advised below 8 ms of GPU work a layer, attention and router for dropless MoE",
         test_cuda_graph_advice},
        {"training.cuda_graphs launches the graphs it prices; an eager MoE plan is told its host wait",
         test_cuda_graphs_launch},
        {NULL, NULL},
    };
    return pp_test_main("launch settings", tests);
}
