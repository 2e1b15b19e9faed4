/*
 * test_problem.c: the input layer (formulate/input/problem.c, catalog.c,
 * hfconfig.c, json_util.c) read as a specification.
 *
 * The first tests load good documents with the real catalogs of data/ and
 * check every value and default.  The rest feed bad documents, one mistake
 * each, and check the three things a user sees: the exit code (PP_EINPUT),
 * the JSON path of the mistake and the key words of the message.
 *
 * Problems are written with single quotes for readability; pp_json_of() turns
 * them into double quotes before parsing.
 */
#include "json_util.h"
#include "problem.h"
#include "shapes_json.h"
#include "costmodel.h"
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEST_DATA_DIR PARPLAN_SOURCE_DIR "/tests/data"
#define ORIGIN "problem.json"
#define BIG 65536

/* The contract's example PROBLEM.json (docs/interface.md). */
static const char *const interface_example =
    "{ 'model': { 'name': 'gpt3-175b', 'layers': 96, 'hidden': 12288, 'heads': 96, 'kv_heads': 96,"
    "             'ffn_hidden': 49152, 'gated_mlp': false, 'vocab': 51200, 'seq_len': 2048 },"
    "  'cluster': { 'gpu': 'a100-sxm4-80gb', 'gpus_per_node': 8, 'nodes': 128,"
    "               'intra_node_GBps': 300, 'inter_node_Gbps': 200 },"
    "  'training': { 'global_batch': 1536, 'precision': 'bf16', 'optimizer': 'adam' },"
    "  'search': { 'tp': [1, 2, 4, 8], 'micro_batch': [1, 2, 4] },"
    "  'objective': 'min_step_time' }";

/* ---- helpers ---------------------------------------------------------------- */

/* Parse a single-quoted problem with the real catalog; hf_config paths are
 * relative to tests/data. */
static int parse_problem(const char *squoted, pp_problem *p, pp_error *err)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    char *text = pp_json_of(squoted);
    pp_error_clear(err);
    int rc = pp_problem_parse(text, ORIGIN, TEST_DATA_DIR, &cat, p, err);
    free(text);
    pp_catalog_free(&cat);
    return rc;
}

/* A problem whose sections are the given ones (NULL: a valid default). */
static char *problem_with(const char *model, const char *cluster, const char *training, const char *extra)
{
    char *buf = malloc(BIG);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    snprintf(buf, BIG, "{'model': %s, 'cluster': %s, 'training': %s%s%s}", model ? model : "'gpt3-175b'",
             cluster ? cluster : "{'gpu': 'a100-sxm4-80gb', 'nodes': 128}",
             training ? training : "{'global_batch': 1536}", extra ? ", " : "", extra ? extra : "");
    return buf;
}

static void assert_labeled(bool ok, const char *label, const char *what, int rc, const pp_error *err, int line)
{
    char note[1800];
    snprintf(note, sizeof note, "%s: %s (rc %d, path '%s', message '%s')", label, what, rc, err->path, err->msg);
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, note, __FILE__, "", CU_FALSE);
}

/* The error is PP_EINPUT at exactly "problem.json: PATH" (or, when path does
 * not start with '$', at a location containing it), and the message contains
 * each of words (NULL-terminated). */
static void check_error_at(const char *label, int rc, const pp_error *err, const char *origin, const char *path,
                           const char *const *words, int line)
{
#ifdef PRINT_ERRORS /* build with -DPRINT_ERRORS to read every message */
    fprintf(stderr, "%-28s %s: %s\n", label, err->path, err->msg);
#endif
    assert_labeled(rc == PP_EINPUT, label, "expected PP_EINPUT", rc, err, line);
    char want[512];
    if (path[0] == '$') {
        snprintf(want, sizeof want, "%s: %s", origin, path);
        assert_labeled(strcmp(err->path, want) == 0, label, "wrong path", rc, err, line);
    } else {
        assert_labeled(strstr(err->path, path) != NULL, label, "wrong path", rc, err, line);
    }
    for (; *words; words++)
        assert_labeled(strstr(err->msg, *words) != NULL, label, *words, rc, err, line);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void bad_problem_at(const char *label, const char *squoted, const char *path, const char *const *words,
                           int line)
{
    pp_problem p;
    pp_error err;
    int rc = parse_problem(squoted, &p, &err);
    check_error_at(label, rc, &err, ORIGIN, path, words, line);
}

/* Same, with the problem built by problem_with() (the text is freed). */
static void bad_built_at(const char *label, char *text, const char *path, const char *const *words, int line)
{
    bad_problem_at(label, text, path, words, line);
    free(text);
}

#define BAD(label, squoted, path, ...) bad_problem_at(label, squoted, path, WORDS(__VA_ARGS__), __LINE__)
#define BAD_BUILT(label, text, path, ...) bad_built_at(label, text, path, WORDS(__VA_ARGS__), __LINE__)

static void bad_plan_at(const char *label, const char *squoted, const char *path, const char *const *words,
                        int line)
{
    pp_problem p;
    pp_error err;
    char *prob = problem_with(NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(parse_problem(prob, &p, &err), PP_OK);
    free(prob);
    char *text = pp_json_of(squoted);
    pp_plan plan;
    int rc = pp_plan_parse(text, "plan.json", &p, &plan, &err);
    free(text);
    check_error_at(label, rc, &err, "plan.json", path, words, line);
}

#define BAD_PLAN(label, squoted, path, ...) bad_plan_at(label, squoted, path, WORDS(__VA_ARGS__), __LINE__)

static bool has_value(const pp_int_list *l, int v)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return true;
    return false;
}

/* ---- good documents ------------------------------------------------------------ */

static void test_interface_example_loads(void)
{
    pp_problem p;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(parse_problem(interface_example, &p, &err), PP_OK);
    CU_ASSERT_STRING_EQUAL(p.model.name, "gpt3-175b");
    CU_ASSERT_EQUAL(p.model.layers, 96);
    CU_ASSERT_EQUAL(p.model.hidden, 12288);
    CU_ASSERT_EQUAL(p.model.heads, 96);
    CU_ASSERT_EQUAL(p.model.kv_heads, 96);
    CU_ASSERT_EQUAL(p.model.ffn_hidden, 49152);
    CU_ASSERT_FALSE(p.model.gated_mlp);
    CU_ASSERT_TRUE(p.model.tie_embeddings);
    CU_ASSERT_EQUAL(p.model.vocab, 51200);
    CU_ASSERT_EQUAL(p.model.seq_len, 2048);
    CU_ASSERT_TRUE(p.has_cluster);
    CU_ASSERT_STRING_EQUAL(p.cluster.gpu.id, "a100-sxm4-80gb");
    CU_ASSERT_EQUAL(p.cluster.gpu.peak_tflops[PP_PREC_BF16], 312);
    CU_ASSERT_EQUAL(p.cluster.gpus_per_node, 8);
    CU_ASSERT_EQUAL(p.cluster.nodes, 128);
    CU_ASSERT_EQUAL(pp_problem_gpus(&p), 1024);
    CU_ASSERT_EQUAL(p.cluster.intra_node_GBps, 300);
    CU_ASSERT_EQUAL(p.cluster.inter_node_Gbps, 200);
    CU_ASSERT_EQUAL(p.training.global_batch, 1536);
    CU_ASSERT_EQUAL(p.training.precision, PP_PREC_BF16);
    CU_ASSERT_EQUAL(p.search[PP_DEC_TP].n, 4);
    CU_ASSERT_EQUAL(p.search[PP_DEC_TP].v[3], 8);
    CU_ASSERT_EQUAL(p.search[PP_DEC_MICRO_BATCH].n, 3);
    CU_ASSERT_EQUAL(p.search[PP_DEC_PP].n, 0); /* absent: every value */
    CU_ASSERT_EQUAL(p.objective, PP_OBJ_MIN_STEP_TIME);
    CU_ASSERT_FALSE(p.capacity.present);
}

/* Everything pp_problem_init promises, as a parsed minimal problem shows it. */
static void test_defaults(void)
{
    pp_problem p;
    pp_error err;
    char *text = problem_with("{'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 1000, 'seq_len': 128}", NULL,
                              NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(parse_problem(text, &p, &err), PP_OK);
    free(text);
    CU_ASSERT_STRING_EQUAL(p.model.name, "custom");
    CU_ASSERT_EQUAL(p.model.kv_heads, 4);
    CU_ASSERT_EQUAL(p.model.ffn_hidden, 256);
    CU_ASSERT_FALSE(p.model.gated_mlp);
    CU_ASSERT_TRUE(p.model.tie_embeddings);
    CU_ASSERT_EQUAL(p.memory_headroom, 0.05);
    CU_ASSERT_EQUAL(p.error_tolerance[PP_DIM_DP], 0.02);
    CU_ASSERT_EQUAL(p.error_tolerance[PP_DIM_TP], 0.0);
    CU_ASSERT_EQUAL(p.error_tolerance[PP_DIM_PP], 0.0);
    CU_ASSERT_EQUAL(p.compress_min_bytes, 1048576);
    CU_ASSERT_TRUE(p.training.flash_attention);
    CU_ASSERT_TRUE(p.training.dp_overlap);
    CU_ASSERT_EQUAL(p.training.precision, PP_PREC_BF16);
    CU_ASSERT_EQUAL(p.training.tokens, 0);
    /* Megatron-Core in bf16: fp32 gradients reduced and held; the loss on vocabulary slices */
    CU_ASSERT_EQUAL(p.training.grad_reduce_dtype, PP_PREC_FP32);
    CU_ASSERT_EQUAL(p.training.grad_accum_bytes, 4);
    CU_ASSERT_FALSE(p.training.loss_gathered);
    CU_ASSERT_EQUAL(p.training.lora_rank, 0); /* every weight trains */
    CU_ASSERT_EQUAL(p.objective, PP_OBJ_MIN_STEP_TIME);
    CU_ASSERT_FALSE(p.allow_tp_across_nodes);
    /* links default to the GPU's flagship system (DGX A100) */
    CU_ASSERT_EQUAL(p.cluster.gpus_per_node, 8);
    CU_ASSERT_EQUAL(p.cluster.intra_node_GBps, 300);
    CU_ASSERT_EQUAL(p.cluster.inter_node_Gbps, 200);
    /* codecs come from the catalog, "none" first; lossless ones have no error */
    CU_ASSERT_TRUE(p.n_codecs >= 2);
    CU_ASSERT_STRING_EQUAL(p.codecs[0].id, "none");
    for (int i = 0; i < p.n_codecs; i++)
        if (!p.codecs[i].lossy)
            CU_ASSERT_EQUAL(p.codecs[i].rel_error, 0);
}

/* Gradients are held in the type they are reduced in unless told: Megatron's
 * --grad-reduce-in-bf16 makes its gradient buffer bf16; DeepSpeed holds
 * 16-bit gradients whatever it reduces in. */
static void test_grad_accum_defaults(void)
{
    const struct {
        const char *training;
        int bytes;
    } cases[] = {
        {"{'global_batch': 8, 'grad_reduce_dtype': 'bf16'}", 2},
        {"{'global_batch': 8, 'precision': 'fp16'}", 2},
        {"{'global_batch': 8, 'framework': 'fsdp'}", 4},
        {"{'global_batch': 8, 'framework': 'deepspeed', 'grad_reduce_dtype': 'fp32'}", 2},
        {"{'global_batch': 8, 'grad_reduce_dtype': 'bf16', 'grad_accum_dtype': 'fp32'}", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pp_problem p;
        pp_error err;
        char *text = problem_with(NULL, NULL, cases[i].training, NULL);
        CU_ASSERT_EQUAL_FATAL(parse_problem(text, &p, &err), PP_OK);
        free(text);
        CU_ASSERT_EQUAL(p.training.grad_accum_bytes, cases[i].bytes);
    }
}

static void test_init_functions(void)
{
    pp_problem p;
    pp_problem_init(&p);
    CU_ASSERT_EQUAL(p.n_codecs, 1);
    CU_ASSERT_STRING_EQUAL(p.codecs[0].id, "none");
    CU_ASSERT_EQUAL(p.codecs[0].lossless_ratio, 1);
    CU_ASSERT_EQUAL(pp_problem_gpus(&p), 0);
    pp_plan plan;
    pp_plan_init(&plan);
    CU_ASSERT_EQUAL(plan.cp, 1);
    CU_ASSERT_EQUAL(plan.virtual_stages, 1);
    CU_ASSERT_EQUAL(plan.tp_depth, 1);
    CU_ASSERT_EQUAL(plan.recompute, PP_RECOMPUTE_NONE);
    pp_efficiency e;
    pp_efficiency_init(&e);
    CU_ASSERT_EQUAL(e.gemm, 0.75);
    CU_ASSERT_EQUAL(e.attention, 0.5);
    CU_ASSERT_EQUAL(e.hbm, 0.7);
    CU_ASSERT_EQUAL(e.nvlink, 0.75);
    CU_ASSERT_EQUAL(e.network, 0.8);
    CU_ASSERT_EQUAL(e.kernel_us, 5);
    CU_ASSERT_EQUAL(e.nvlink_latency_us, 5);
    CU_ASSERT_EQUAL(e.network_latency_us, 10);
}

static void test_every_section_parsed(void)
{
    pp_problem p;
    pp_error err;
    char *text = problem_with(
        NULL, "'selene'", "{'global_batch': 64, 'precision': 'fp16', 'tokens': 3e11, 'flash_attention': false,"
                          " 'dp_overlap': false, 'fused_elementwise': false, 'fused_norm': true,"
                          " 'grad_accum_dtype': 'fp32', 'loss_parallel': false, 'lora_rank': 16,"
                          " 'lora_targets': 'all-linear'}",
        "'name': 'x', 'description': 'y',"
        "'search': {'pp': [1, 2], 'dp': [4], 'cp': [1, 2], 'virtual_stages': [1, 3], 'zero': [0, 3],"
        "  'recompute': ['none', 'full'], 'sequence_parallel': [true], 'tp_mode': ['1d', '2.5d'],"
        "  'compression': {'dp': ['none', 'zfp8'], 'pp': ['mpc']}},"
        "'objective': 'min_cost',"
        "'constraints': {'memory_headroom': 0.2, 'allow_tp_across_nodes': true,"
        "  'error_tolerance': {'tp': 0.001}, 'compress_min_bytes': 4096}");
    int rc = parse_problem(text, &p, &err);
    free(text);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    CU_ASSERT_EQUAL(pp_problem_gpus(&p), 560 * 8); /* Selene */
    CU_ASSERT_EQUAL(p.training.precision, PP_PREC_FP16);
    CU_ASSERT_EQUAL(p.training.tokens, 3e11);
    CU_ASSERT_FALSE(p.training.flash_attention);
    CU_ASSERT_FALSE(p.training.dp_overlap);
    CU_ASSERT_FALSE(p.training.fused_elementwise);
    CU_ASSERT_TRUE(p.training.fused_norm);
    CU_ASSERT_EQUAL(p.training.grad_accum_bytes, 4); /* fp16 training holds fp16 gradients unless told */
    CU_ASSERT_TRUE(p.training.loss_gathered);
    CU_ASSERT_EQUAL(p.training.lora_rank, 16);
    CU_ASSERT_EQUAL(p.training.lora_targets, PP_LORA_ALL_LINEAR);
    CU_ASSERT_TRUE(has_value(&p.search[PP_DEC_ZERO], 3));
    CU_ASSERT_TRUE(has_value(&p.search[PP_DEC_RECOMPUTE], PP_RECOMPUTE_FULL));
    CU_ASSERT_TRUE(has_value(&p.search[PP_DEC_SEQUENCE_PARALLEL], 1));
    CU_ASSERT_EQUAL(p.search[PP_DEC_SEQUENCE_PARALLEL].n, 1);
    CU_ASSERT_TRUE(has_value(&p.search[PP_DEC_TP_MODE], PP_TP_2P5D));
    CU_ASSERT_EQUAL(p.search[PP_DEC_CODEC(PP_DIM_DP)].n, 2);
    CU_ASSERT_STRING_EQUAL(p.codecs[p.search[PP_DEC_CODEC(PP_DIM_DP)].v[1]].id, "zfp8");
    CU_ASSERT_STRING_EQUAL(p.codecs[p.search[PP_DEC_CODEC(PP_DIM_PP)].v[0]].id, "mpc");
    /* nccl (the default) does not compress: an unlisted dimension searches
     * none and the framework's casts only */
    CU_ASSERT_TRUE(p.search[PP_DEC_CODEC(PP_DIM_TP)].n >= 1);
    for (int i = 0; i < p.search[PP_DEC_CODEC(PP_DIM_TP)].n; i++) {
        int k = p.search[PP_DEC_CODEC(PP_DIM_TP)].v[i];
        CU_ASSERT_TRUE(k == 0 || p.codecs[k].cast);
    }
    CU_ASSERT_EQUAL(p.objective, PP_OBJ_MIN_COST);
    CU_ASSERT_EQUAL(p.memory_headroom, 0.2);
    CU_ASSERT_TRUE(p.allow_tp_across_nodes);
    CU_ASSERT_EQUAL(p.error_tolerance[PP_DIM_TP], 0.001);
    CU_ASSERT_EQUAL(p.error_tolerance[PP_DIM_DP], 0.02); /* untouched */
    CU_ASSERT_EQUAL(p.compress_min_bytes, 4096);
}

/* A custom GPU needs peak_tflops and memory_gib; the rest is the A100's. */
static void test_custom_gpu(void)
{
    pp_problem p;
    pp_error err;
    char *text = problem_with(NULL, "{'gpu': {'peak_tflops': 400, 'memory_gib': 96}, 'nodes': 2}", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(parse_problem(text, &p, &err), PP_OK);
    free(text);
    const pp_gpu *g = &p.cluster.gpu;
    CU_ASSERT_STRING_EQUAL(g->id, "custom");
    CU_ASSERT_EQUAL(g->peak_tflops[PP_PREC_BF16], 400);
    CU_ASSERT_EQUAL(g->peak_tflops[PP_PREC_FP8], 0);
    CU_ASSERT_EQUAL(g->memory_gib, 96);
    CU_ASSERT_EQUAL(g->hbm_GBps, 2039);
    CU_ASSERT_EQUAL(g->nvlink_GBps, 300);
    CU_ASSERT_EQUAL(p.cluster.gpus_per_node, 8);
    CU_ASSERT_EQUAL(p.cluster.inter_node_Gbps, 200);
}

/* Parse a problem whose model is the given object (single quotes); it must parse. */
static void parse_model_ok(const char *model, pp_problem *p)
{
    pp_error err;
    char *text = problem_with(model, NULL, NULL, NULL);
    int rc = parse_problem(text, p, &err);
    free(text);
    if (rc)
        fprintf(stderr, "%s: %s\n", err.path, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
}

/* Every size and flag of a model shape, name aside. */
static void check_shape(const pp_model *m, const pp_model *want)
{
    const int got[] = {m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim, m->ffn_hidden, m->vocab, m->seq_len,
                       m->gated_mlp, m->tie_embeddings};
    const int expected[] = {want->layers, want->hidden,  want->heads, want->kv_heads,  want->head_dim,
                            want->ffn_hidden, want->vocab, want->seq_len, want->gated_mlp, want->tie_embeddings};
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        CU_ASSERT_EQUAL(got[i], expected[i]);
}

static void test_hf_config(void)
{
    pp_problem p;
    parse_model_ok("{'hf_config': 'llama-3-8b-config.json', 'seq_len': 8192}", &p);
    /* no head_dim in the config: 0, hidden / heads */
    check_shape(&p.model, &(pp_model){.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn_hidden = 14336,
                                       .vocab = 128256, .seq_len = 8192, .gated_mlp = true});
    CU_ASSERT_EQUAL(pp_model_head_dim(&p.model), 128);
    parse_model_ok("{'hf_config': 'llama-3-8b-config.json', 'seq_len': 4096, 'name': 'L3'}", &p);
    CU_ASSERT_EQUAL(p.model.seq_len, 4096);
    CU_ASSERT_STRING_EQUAL(p.model.name, "L3");
}

/* Mistral-NeMo 12B (mistralai/Mistral-Nemo-Base-2407, config.json as
 * published): 32 heads of 128 make attention 4096 wide against hidden 5120. */
static void test_hf_config_head_dim(void)
{
    pp_problem p;
    const pp_model nemo = {.layers = 40, .hidden = 5120, .heads = 32, .kv_heads = 8, .head_dim = 128,
                           .ffn_hidden = 14336, .vocab = 131072, .seq_len = 4096, .gated_mlp = true};
    parse_model_ok("{'hf_config': 'mistral-nemo-12b-config.json', 'seq_len': 4096}", &p);
    check_shape(&p.model, &nemo);
    CU_ASSERT_EQUAL(p.model.heads * pp_model_head_dim(&p.model), 4096);
    CU_ASSERT_STRING_EQUAL(p.model.name, "mistralai/Mistral-Nemo-Base-2407");
    /* the model card's 12.2 B parameters, within 1 % (hidden x hidden
     * attention projections would make it 12.8 B) */
    CU_ASSERT_DOUBLE_EQUAL(pp_model_params(&p.model) / 12.2e9, 1.0, 0.01);
    /* the same shape spelled out in a problem, and the key's limits */
    parse_model_ok("{'layers': 40, 'hidden': 5120, 'heads': 32, 'kv_heads': 8, 'head_dim': 128, 'ffn_hidden': 14336,"
                   " 'gated_mlp': true, 'tie_embeddings': false, 'vocab': 131072, 'seq_len': 4096}",
                   &p);
    check_shape(&p.model, &nemo);
    /* with head_dim, heads need not divide hidden */
    parse_model_ok("{'layers': 2, 'hidden': 1000, 'heads': 48, 'head_dim': 64, 'vocab': 9, 'seq_len': 8}", &p);
    parse_model_ok("{'layers': 2, 'hidden': 64, 'heads': 4, 'head_dim': 0, 'vocab': 9, 'seq_len': 8}", &p);
    CU_ASSERT_EQUAL(pp_model_head_dim(&p.model), 16); /* 0: hidden / heads */
    BAD_BUILT("head_dim -1", problem_with("{'layers': 2, 'hidden': 64, 'heads': 4, 'head_dim': -1, 'vocab': 9,"
                                          " 'seq_len': 8}", NULL, NULL, NULL),
              "$.model.head_dim", "expected an integer in 0..65536", "found the number -1");
    BAD_BUILT("head_dim too wide", problem_with("{'layers': 2, 'hidden': 64, 'heads': 4096, 'head_dim': 4096,"
                                                " 'vocab': 9, 'seq_len': 8}", NULL, NULL, NULL),
              "$.model.head_dim", "heads x head_dim <= 1048576", "found 4096 x 4096");
}

/* A Hugging Face config of a small model (hidden 512, 8 heads, SwiGLU)
 * with `layers` layers and the keys `extra`, written to a temporary `name`,
 * and the problem's model object that reads it at seq_len in model. */
static void small_hf_config(const char *name, int layers, const char *extra, int seq_len, char *model, size_t cap)
{
    char cfg[1024], path[256];
    snprintf(cfg, sizeof cfg,
             "{\"num_hidden_layers\": %d, \"hidden_size\": 512, \"num_attention_heads\": 8, "
             "\"intermediate_size\": 2048, \"vocab_size\": 1000, \"hidden_act\": \"silu\", %s}",
             layers, extra);
    pp_write_temp(name, cfg, path, sizeof path);
    snprintf(model, cap, "{'hf_config': '%s', 'seq_len': %d}", path, seq_len);
}

/* Sliding-window attention: GPT-OSS-120B's config (tests/data: the keys
 * its Hugging Face config.json names, the values of openai/gpt-oss's
 * ModelConfig) windows every other layer, the first included, to 128
 * tokens: Megatron-LM's --window-attn-skip-freq 2, as the catalog entry
 * says; the other configs' ways of saying a window; the keys' limits. */
static void test_sliding_window_models(void)
{
    pp_problem p, q;
    parse_model_ok("{'hf_config': 'gpt-oss-120b-config.json', 'seq_len': 4096}", &p);
    CU_ASSERT_EQUAL(p.model.sliding_window, 128);
    CU_ASSERT_EQUAL(p.model.window_attn_skip_freq, 2);
    CU_ASSERT_EQUAL(p.model.experts, 128);
    CU_ASSERT_EQUAL(p.model.experts_per_token, 4);
    CU_ASSERT_EQUAL(pp_windowed_layers(&p.model, 4096), 18);
    /* the model card's 116.83B parameters, biases and sinks aside */
    CU_ASSERT_DOUBLE_EQUAL(pp_model_params(&p.model) / 116.83e9, 1.0, 0.001);
    parse_model_ok("'gpt-oss-120b'", &q);
    check_shape(&q.model, &p.model);
    CU_ASSERT_EQUAL(q.model.sliding_window, 128);
    CU_ASSERT_EQUAL(q.model.window_attn_skip_freq, 2);
    CU_ASSERT_EQUAL(q.model.experts, 128);
    parse_model_ok("'GPT-OSS 20B'", &q);
    CU_ASSERT_EQUAL(q.model.layers, 24);
    CU_ASSERT_EQUAL(q.model.experts, 32);
    CU_ASSERT_DOUBLE_EQUAL(pp_model_params(&q.model) / 20.91e9, 1.0, 0.001);

    /* Gemma 3's older configs: every sliding_window_pattern-th layer full;
     * Gemma 2's: every other; Mistral 7B v0.1's: every layer; Qwen's
     * use_sliding_window false: none */
    static const struct {
        const char *extra;
        int window, freq;
    } ways[] = {{"\"model_type\": \"gemma3_text\", \"sliding_window\": 1024, \"sliding_window_pattern\": 6", 1024, 6},
                {"\"model_type\": \"gemma2\", \"sliding_window\": 4096", 4096, 2},
                {"\"model_type\": \"mistral\", \"sliding_window\": 4096", 4096, 0},
                {"\"model_type\": \"qwen2\", \"sliding_window\": 4096, \"use_sliding_window\": false", 0, 0},
                {"\"model_type\": \"llama\", \"sliding_window\": null", 0, 0}};
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        char model[400];
        small_hf_config("window-config.json", 12, ways[i].extra, 8192, model, sizeof model);
        parse_model_ok(model, &q);
        CU_ASSERT_EQUAL(q.model.sliding_window, ways[i].window);
        CU_ASSERT_EQUAL(q.model.window_attn_skip_freq, ways[i].freq);
    }
    /* a pattern that is not every N-th layer full is refused at its item */
    char path[256], model[400];
    pp_write_temp("window-config.json",
                  "{\"num_hidden_layers\": 4, \"hidden_size\": 512, \"num_attention_heads\": 8, "
                  "\"intermediate_size\": 2048, \"vocab_size\": 1000, \"sliding_window\": 64, \"layer_types\": "
                  "[\"sliding_attention\", \"full_attention\", \"full_attention\", \"sliding_attention\"]}",
                  path, sizeof path);
    snprintf(model, sizeof model, "{'hf_config': '%s', 'seq_len': 256}", path);
    BAD_BUILT("layer_types not periodic", problem_with(model, NULL, NULL, NULL), "window-config.json: $.layer_types[2]",
              "a multiple of 2 full", "found 'full_attention'");

    /* the keys in a model object, and their limits */
    parse_model_ok("{'layers': 4, 'hidden': 256, 'heads': 4, 'vocab': 99, 'seq_len': 2048, 'sliding_window': 512,"
                   " 'window_attn_skip_freq': 4}",
                   &q);
    CU_ASSERT_EQUAL(pp_windowed_layers(&q.model, 2048), 3);
    CU_ASSERT_EQUAL(pp_windowed_layers(&q.model, 512), 0); /* a window of the whole span is none */
    BAD_BUILT("skip freq 1", problem_with("{'layers': 4, 'hidden': 256, 'heads': 4, 'vocab': 99, 'seq_len': 2048,"
                                          " 'sliding_window': 512, 'window_attn_skip_freq': 1}", NULL, NULL, NULL),
              "$.model.window_attn_skip_freq", "an integer >= 2", "found 1");
    BAD_BUILT("skip freq without window",
              problem_with("{'layers': 4, 'hidden': 256, 'heads': 4, 'vocab': 99, 'seq_len': 2048,"
                           " 'window_attn_skip_freq': 2}", NULL, NULL, NULL),
              "$.model.window_attn_skip_freq", "with sliding_window", "sliding_window 0");
    BAD_BUILT("window of a masked LM",
              problem_with("{'layers': 4, 'hidden': 256, 'heads': 4, 'vocab': 99, 'seq_len': 512,"
                           " 'loss_token_fraction': 0.15, 'sliding_window': 128}", NULL, NULL, NULL),
              "$.model.sliding_window", "no sliding_window for a masked LM");
    BAD_BUILT("negative window",
              problem_with("{'layers': 4, 'hidden': 256, 'heads': 4, 'vocab': 99, 'seq_len': 512,"
                           " 'sliding_window': -1}", NULL, NULL, NULL),
              "$.model.sliding_window", "found the number -1");
}

/* A config whose layers are not attention and an MLP (Nemotron-H's Mamba-2
 * pattern, Qwen3-Next's Gated DeltaNet, a Mamba's model type, a layer type
 * that is not attention) is refused at the key that says so: read as a
 * transformer it would be priced as one. */
static void test_hybrid_configs_refused(void)
{
    static const struct {
        const char *extra, *path, *words;
    } bad[] = {
        {"\"model_type\": \"nemotron_h\", \"hybrid_override_pattern\": \"M-M*-M-M-\", \"mamba_num_heads\": 128",
         "hybrid-config.json: $.hybrid_override_pattern", "Mamba-2"},
        {"\"model_type\": \"qwen3_next\", \"full_attention_interval\": 4, \"linear_num_value_heads\": 32",
         "hybrid-config.json: $.full_attention_interval", "Gated DeltaNet"},
        {"\"model_type\": \"mamba2\"", "hybrid-config.json: $.model_type", "Mamba-2"},
        {"\"model_type\": \"hybrid\", \"layer_types\": [\"linear_attention\", \"full_attention\", "
         "\"linear_attention\", \"full_attention\", \"linear_attention\", \"full_attention\", \"linear_attention\", "
         "\"full_attention\"]",
         "hybrid-config.json: $.layer_types[0]", "'linear_attention' layer is not attention"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char model[400];
        small_hf_config("hybrid-config.json", 8, bad[i].extra, 4096, model, sizeof model);
        BAD_BUILT(bad[i].path, problem_with(model, NULL, NULL, NULL), bad[i].path, bad[i].words,
                  "does not price");
    }
}

/* A catalog model with its sequence length overridden. */
static void test_catalog_model_seq_len(void)
{
    pp_problem p, q;
    parse_model_ok("'llama3-70b'", &p);
    parse_model_ok("{'id': 'llama3-70b', 'seq_len': 4096}", &q);
    CU_ASSERT_NOT_EQUAL(p.model.seq_len, 4096);
    CU_ASSERT_EQUAL(q.model.seq_len, 4096);
    q.model.seq_len = p.model.seq_len; /* the rest is the catalog's */
    CU_ASSERT_EQUAL(memcmp(&p.model, &q.model, sizeof p.model), 0);
    parse_model_ok("{'id': 'llama3-70b', 'name': 'L70'}", &q);
    CU_ASSERT_STRING_EQUAL(q.model.name, "L70");
    CU_ASSERT_EQUAL(q.model.seq_len, p.model.seq_len);
    BAD_BUILT("unknown id", problem_with("{'id': 'llama3-70', 'seq_len': 4096}", NULL, NULL, NULL), "$.model.id",
              "found 'llama3-70'", "did you mean 'llama3-70b'?");
    BAD_BUILT("shape key beside id", problem_with("{'id': 'llama3-70b', 'layers': 4}", NULL, NULL, NULL),
              "$.model.layers", "unknown key 'layers'");
    BAD_BUILT("seq_len 0", problem_with("{'id': 'llama3-70b', 'seq_len': 0}", NULL, NULL, NULL), "$.model.seq_len",
              "found the number 0");
}

static void test_capacity(void)
{
    pp_problem p;
    pp_error err;
    char *text = pp_json_of("{'model': 'llama3-70b', 'training': {'global_batch': 2048, 'tokens': 1.5e13},"
                         " 'capacity': {'gpus': [{'gpu': 'a100-sxm4-80gb', 'usd_per_gpu_hour': 1.8},"
                         "   {'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 4, 'inter_node_Gbps': 100}],"
                         "  'nodes': [1, 8, 64], 'deadline_days': 90, 'max_gpus': 4096}, 'objective': 'min_time'}");
    int rc = parse_problem(text, &p, &err);
    free(text);
    CU_ASSERT_EQUAL_FATAL(rc, PP_OK);
    CU_ASSERT_TRUE(p.capacity.present);
    CU_ASSERT_FALSE(p.has_cluster);
    CU_ASSERT_EQUAL(p.capacity.n_gpus, 2);
    CU_ASSERT_EQUAL(p.capacity.gpus[0].usd_per_gpu_hour, 1.8);
    CU_ASSERT_EQUAL(p.capacity.gpus[0].gpus_per_node, 8);
    CU_ASSERT_EQUAL(p.capacity.gpus[1].gpus_per_node, 4);
    CU_ASSERT_EQUAL(p.capacity.gpus[1].inter_node_Gbps, 100);
    CU_ASSERT_EQUAL(p.capacity.gpus[1].intra_node_GBps, p.capacity.gpus[1].gpu.nvlink_GBps);
    CU_ASSERT_EQUAL(p.capacity.n_node_counts, 3);
    CU_ASSERT_EQUAL(p.capacity.node_counts[2], 64);
    CU_ASSERT_EQUAL(p.capacity.deadline_days, 90);
    CU_ASSERT_EQUAL(p.capacity.max_gpus, 4096);
    CU_ASSERT_EQUAL(p.objective, PP_OBJ_MIN_TIME);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Every problem of data/examples loads; the GPT-3 one has the contract's
 * values, and its plan loads too. */
static void test_examples_load(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    char dir[1024];
    pp_source_path("data/examples", dir, sizeof dir);
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (!ends_with(e->d_name, ".json") || ends_with(e->d_name, ".plan.json"))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        pp_problem p;
        pp_error err;
        int rc = pp_problem_load(path, &cat, &p, &err);
        assert_labeled(rc == PP_OK, e->d_name, "loads", rc, &err, __LINE__);
    }
    closedir(d);
    char path[1024];
    pp_source_path("data/examples/gpt3-175b-1024-a100.json", path, sizeof path);
    pp_problem p;
    pp_error err;
    if (access(path, R_OK) == 0) {
        CU_ASSERT_EQUAL_FATAL(pp_problem_load(path, &cat, &p, &err), PP_OK);
        CU_ASSERT_EQUAL(p.model.layers, 96);
        CU_ASSERT_EQUAL(p.model.hidden, 12288);
        CU_ASSERT_EQUAL(p.model.heads, 96);
        CU_ASSERT_EQUAL(p.model.seq_len, 2048);
        CU_ASSERT_EQUAL(pp_problem_gpus(&p), 1024);
        CU_ASSERT_EQUAL(p.training.global_batch, 1536);
        CU_ASSERT_EQUAL(p.training.precision, PP_PREC_BF16);
        pp_plan plan;
        pp_source_path("data/examples/gpt3-175b-1024-a100.plan.json", path, sizeof path);
        CU_ASSERT_EQUAL(pp_plan_load(path, &p, &plan, &err), PP_OK);
        CU_ASSERT_EQUAL(plan.tp * plan.pp * plan.dp * plan.cp, 1024);
    }
    pp_catalog_free(&cat);
}

static void test_plan_defaults_and_dp(void)
{
    pp_problem p;
    pp_error err;
    char *prob = problem_with(NULL, NULL, NULL, NULL); /* 128 nodes x 8 */
    CU_ASSERT_EQUAL_FATAL(parse_problem(prob, &p, &err), PP_OK);
    free(prob);
    pp_plan plan;
    char *text = pp_json_of("{'tp': 8, 'pp': 16}");
    CU_ASSERT_EQUAL_FATAL(pp_plan_parse(text, "plan.json", &p, &plan, &err), PP_OK);
    free(text);
    CU_ASSERT_EQUAL(plan.dp, 8);
    CU_ASSERT_EQUAL(plan.cp, 1);
    CU_ASSERT_EQUAL(plan.micro_batch, 1);
    CU_ASSERT_EQUAL(plan.virtual_stages, 1);
    CU_ASSERT_EQUAL(plan.zero, 0);
    CU_ASSERT_EQUAL(plan.recompute, PP_RECOMPUTE_NONE);
    CU_ASSERT_FALSE(plan.sequence_parallel);
    CU_ASSERT_EQUAL(plan.tp_mode, PP_TP_1D);
    CU_ASSERT_EQUAL(plan.codec[PP_DIM_DP], 0);
    text = pp_json_of("{'tp': 4, 'pp': 2, 'dp': 2, 'cp': 2, 'micro_batch': 2, 'virtual_stages': 3, 'zero': 1,"
                   " 'recompute': 'selective', 'sequence_parallel': true, 'tp_mode': '2.5d', 'tp_depth': 1,"
                   " 'compression': {'dp': 'zfp8', 'tp': 'none', 'pp': 'mpc'}}");
    CU_ASSERT_EQUAL_FATAL(pp_plan_parse(text, "plan.json", &p, &plan, &err), PP_OK);
    free(text);
    CU_ASSERT_EQUAL(plan.dp, 2);
    CU_ASSERT_EQUAL(plan.recompute, PP_RECOMPUTE_SELECTIVE);
    CU_ASSERT_EQUAL(plan.tp_mode, PP_TP_2P5D);
    CU_ASSERT_STRING_EQUAL(p.codecs[plan.codec[PP_DIM_DP]].id, "zfp8");
    CU_ASSERT_STRING_EQUAL(p.codecs[plan.codec[PP_DIM_PP]].id, "mpc");
}

static void test_names(void)
{
    CU_ASSERT_STRING_EQUAL(pp_precision_name(PP_PREC_FP8), "fp8");
    CU_ASSERT_STRING_EQUAL(pp_recompute_name(PP_RECOMPUTE_SELECTIVE), "selective");
    CU_ASSERT_STRING_EQUAL(pp_tp_mode_name(PP_TP_2P5D), "2.5d");
    CU_ASSERT_STRING_EQUAL(pp_dim_name(PP_DIM_PP), "pp");
    CU_ASSERT_STRING_EQUAL(pp_objective_name(PP_OBJ_MIN_GPUS), "min_gpus");
}

/* ---- catalogs ------------------------------------------------------------------- */

static void test_catalog_contents(void)
{
    static const char *const required[] = {"v100-sxm2-16gb", "v100-sxm2-32gb", "v100-sxm3-32gb", "a100-sxm4-40gb",
                                           "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb"};
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(pp_catalog_gpu(&cat, required[i]));
    CU_ASSERT_PTR_NULL(pp_catalog_gpu(&cat, "a100"));
    CU_ASSERT_PTR_NOT_NULL(pp_catalog_model_find(&cat, "gpt3-175b"));
    CU_ASSERT_PTR_NOT_NULL(pp_catalog_cluster_find(&cat, "selene"));
    CU_ASSERT_EQUAL(pp_catalog_codec_index(&cat, "none"), 0);
    CU_ASSERT_EQUAL(pp_catalog_codec_index(&cat, "nope"), -1);
    CU_ASSERT_EQUAL(pp_catalog_count(&cat, PP_CATALOG_CODECS), cat.n_codecs);
    CU_ASSERT_EQUAL(cat.gpus[0].peak_tflops[PP_PREC_FP8], 0); /* V100: null */
    pp_catalog_free(&cat);
    CU_ASSERT_EQUAL(cat.n_gpus, 0);
    CU_ASSERT_PTR_NULL(cat.gpus);
}

/* Own entry, else efficiency_from's (H200 takes H100's), else default;
 * missing keys come from the file's default. */
static void test_efficiency_layers(void)
{
    char path[512];
    pp_temp_path("efficiency.json", path, sizeof path);
    pp_write_json(path, "{'source': 'unit test', 'default': {'gemm': 0.6},"
                        " 'gpus': {'h100-sxm5-80gb': {'gemm': 0.9, 'kernel_us': 3}}}");
    pp_catalog cat;
    pp_error err;
    pp_load_catalog(&cat);
    CU_ASSERT_EQUAL_FATAL(pp_catalog_apply_efficiency(&cat, path, &err), PP_OK);
    const pp_gpu *h100 = pp_catalog_gpu(&cat, "h100-sxm5-80gb");
    const pp_gpu *h200 = pp_catalog_gpu(&cat, "h200-sxm-141gb");
    const pp_gpu *a100 = pp_catalog_gpu(&cat, "a100-sxm4-80gb");
    CU_ASSERT_EQUAL(h100->eff.gemm, 0.9);
    CU_ASSERT_EQUAL(h100->eff.kernel_us, 3);
    CU_ASSERT_EQUAL(h200->eff.gemm, 0.9);
    CU_ASSERT_EQUAL(a100->eff.gemm, 0.6);
    CU_ASSERT_EQUAL(a100->eff.hbm, 0.7); /* neither entry says: built-in */
    PP_ASSERT_CONTAINS(h100->eff.source, "unit test");
    pp_write_json(path, "{'gpus': {'h100-sxm5': {'gemm': 0.9}}}");
    CU_ASSERT_EQUAL(pp_catalog_apply_efficiency(&cat, path, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.gpus['h100-sxm5']");
    PP_ASSERT_CONTAINS(err.msg, "did you mean 'h100-sxm5-80gb'");
    pp_write_json(path, "{'default': {'gemm': 1.5}}");
    CU_ASSERT_EQUAL(pp_catalog_apply_efficiency(&cat, path, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.default.gemm");
    pp_catalog_free(&cat);
}

/* A data directory lacking efficiency.json runs on built-in values, but one
 * lacking gpus.json is an error naming the file. */
static void test_catalog_files(void)
{
    char dir[512];
    pp_temp_dir(NULL, dir, sizeof dir);
    pp_catalog cat;
    pp_error err;
    CU_ASSERT_EQUAL(pp_catalog_load(dir, &cat, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "gpus.json");
    PP_ASSERT_CONTAINS(err.msg, "No such file");
    CU_ASSERT_EQUAL(cat.n_gpus, 0);
    pp_load_catalog(&cat);
    CU_ASSERT_TRUE(cat.gpus[0].eff.gemm > 0 && cat.gpus[0].eff.gemm <= 1);
    pp_catalog_free(&cat);
}

/* A small calibration-bounds.json: family f1 bounds gemm and attention,
 * every_family the rest; family u is the union of the others. */
#define SMALL_BOUNDS                                                                                              \
    "{'source': 'x', 'every_family': {'hbm': {'lo': 0.8, 'hi': 0.9, 'source': 'x'},"                                \
    " 'nvlink': {'lo': 0.7, 'hi': 0.9, 'source': 'x'}, 'network': {'lo': 0.7, 'hi': 0.9, 'source': 'x'},"           \
    " 'kernel_us': {'lo': 2, 'hi': 8, 'source': 'x'}, 'nvlink_latency_us': {'lo': 2, 'hi': 20, 'source': 'x'},"     \
    " 'network_latency_us': {'lo': 9, 'hi': 20, 'source': 'x'}, 'gemm_k_overhead': {'lo': 8, 'hi': 512, 'source': 'x'}," \
    " 'gemm_misaligned': {'lo': 0.1, 'hi': 1, 'source': 'x'}, 'cross_rail': {'lo': 0.25, 'hi': 1, 'source': 'x'}},"  \
    " 'families': [{'id': 'f1', 'name': 'F1', 'bounds': {'gemm': {'lo': 0.5, 'hi': 0.8, 'source': 'g1'},"            \
    " 'attention': {'lo': 0.3, 'hi': 0.6, 'source': 'a1'}}},"                                                         \
    " {'id': 'f2', 'name': 'F2', 'bounds': {'gemm': {'lo': 0.6, 'hi': 0.9, 'source': 'g2'},"                          \
    " 'attention': {'lo': 0.4, 'hi': 0.7, 'source': 'a2'}, 'hbm': {'lo': 0.85, 'hi': 0.95, 'source': 'h2'}}},"        \
    " {'id': 'u', 'name': 'other', 'union_of_families': true, 'source': 'the union'}]}"

/* A small catalog in a fresh directory; NULL sections are valid defaults. */
static void write_catalog_bounds(char *dir, size_t cap, const char *gpus, const char *models, const char *clusters,
                                 const char *codecs, const char *bounds)
{
    static const char *const names[] = {"gpus.json", "models.json", "clusters.json", "codecs.json",
                                        "calibration-bounds.json"};
    const char *texts[] = {
        gpus ? gpus
             : "{'gpus': [{'id': 'g1', 'name': 'G1', 'peak_tflops': {'bf16': 100}, 'memory_gib': 80,"
               " 'hbm_GBps': 1000, 'nvlink_GBps': 100, 'network_Gbps': 100, 'gpus_per_node': 8,"
               " 'calibration_family': 'f1', 'source': 'x'}]}",
        models ? models
               : "{'models': [{'id': 'm1', 'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 10, 'seq_len': 16,"
                 " 'source': 'x'}]}",
        clusters ? clusters : "{'clusters': [{'id': 'c1', 'gpu': 'g1', 'nodes': 2, 'source': 'x'}]}",
        codecs ? codecs : "{'codecs': [{'id': 'none', 'kind': 'none', 'source': 'x'}]}",
        bounds ? bounds : SMALL_BOUNDS,
    };
    pp_temp_dir("catalog", dir, cap);
    for (int i = 0; i < 5; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        pp_write_json(path, texts[i]);
    }
}

static void write_catalog(char *dir, size_t cap, const char *gpus, const char *models, const char *clusters,
                          const char *codecs)
{
    write_catalog_bounds(dir, cap, gpus, models, clusters, codecs, NULL);
}

static void bad_catalog_at(const char *label, const char *gpus, const char *models, const char *clusters,
                           const char *codecs, const char *bounds, const char *file, const char *path,
                           const char *const *words, int line)
{
    char dir[512], origin[600];
    write_catalog_bounds(dir, sizeof dir, gpus, models, clusters, codecs, bounds);
    snprintf(origin, sizeof origin, "%s/%s", dir, file);
    pp_catalog cat;
    pp_error err;
    int rc = pp_catalog_load(dir, &cat, &err);
    check_error_at(label, rc, &err, origin, path, words, line);
    CU_ASSERT_EQUAL(cat.n_gpus, 0); /* left empty */
}

#define BAD_CATALOG(label, g, m, cl, co, file, path, ...)                                                     \
    bad_catalog_at(label, g, m, cl, co, NULL, file, path, WORDS(__VA_ARGS__), __LINE__)

/* The small catalog of write_catalog's defaults, loaded. */
static void load_small_catalog(pp_catalog *cat)
{
    char dir[512];
    pp_error err;
    write_catalog(dir, sizeof dir, NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(pp_catalog_load(dir, cat, &err), PP_OK);
}

static void test_minimal_catalog(void)
{
    pp_catalog cat;
    load_small_catalog(&cat);
    CU_ASSERT_EQUAL(cat.n_codecs, 1);
    CU_ASSERT_EQUAL(cat.compress_min_bytes, 1 << 20);
    CU_ASSERT_EQUAL(cat.gpus[0].eff.gemm, 0.75); /* no efficiency.json: built-in */
    CU_ASSERT_EQUAL(cat.gpus[0].peak_tflops[PP_PREC_FP16], 0);
    CU_ASSERT_EQUAL(cat.clusters[0].cluster.gpus_per_node, 8);
    CU_ASSERT_EQUAL(cat.clusters[0].cluster.intra_node_GBps, 100);
    CU_ASSERT_STRING_EQUAL(cat.models[0].model.name, "m1");
    pp_catalog_free(&cat);
}

/* A GPU goes by the names people write: its id, name or an alias, whatever
 * the case, the separators and the vendor's words; a name of no catalog
 * GPU (L40S) is none, and never a near one: not the A100 for an A800, nor
 * the H200 for a GH200, nor the SXM part for a PCIe card; the words of a
 * name the SXM part has exactly are the SXM part's, though a PCIe card's
 * name holds them too ("A100 80GB"). */
static void test_gpu_names_as_written(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    static const struct {
        const char *name, *id;
    } cases[] = {
        {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"}, {"A100 80GB", "a100-sxm4-80gb"},
        {"A100", "a100-sxm4-80gb"},                  {"a100_40gb", "a100-sxm4-40gb"},
        {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"}, {"H100 SXM5", "h100-sxm5-80gb"},
        {"nvidia h100", "h100-sxm5-80gb"},           {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
        {"V100 16GB", "v100-sxm2-16gb"},             {"H200 SXM", "h200-sxm-141gb"},
        {"AMD Instinct MI300X", "mi300x"},           {"GB200", "gb200-nvl72"},
        {"H100 PCIe", "h100-pcie-80gb"},             {"L40S", NULL},
        {"NVIDIA H100 NVL", "h100-nvl-94gb"},        {"H100 NVL", "h100-nvl-94gb"},
        {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"}, {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
        {"A100 PCIe", "a100-pcie-80gb"},             {"H100 80GB PCIe", "h100-pcie-80gb"},
        {"80GB A100", "a100-sxm4-80gb"},             {"40GB A100", "a100-sxm4-40gb"},
        {"A800", "a800-sxm4-80gb"},                  {"NVIDIA A800-SXM4-80GB", "a800-sxm4-80gb"},
        {"GH200", "gh200-96gb"},                     {"NVIDIA GH200 480GB", "gh200-96gb"},
        {"H200", "h200-sxm-141gb"},
        {"NVIDIA", NULL},                            {"", NULL},
        /* the words of a name in any order, when one GPU alone has them all */
        {"H100 80GB SXM5", "h100-sxm5-80gb"},        {"A100 80GB SXM4", "a100-sxm4-80gb"},
        {"B200 180GB", "b200-sxm-180gb"},            {"NVL72", NULL},
        {"80GB", NULL},
        /* a memory size with a bare G is its GB */
        {"A100-80G", "a100-sxm4-80gb"},              {"A100-40G", "a100-sxm4-40gb"},
        /* the system a GPU is sold in is no word of it; a query's words may
         * come from several of one GPU's names (80GB from the name, SXM
         * from the alias H100-SXM) */
        {"DGX H100", "h100-sxm5-80gb"},              {"HGX H100", "h100-sxm5-80gb"},
        {"DGX GB200", "gb200-nvl72"},                {"DGX-GB300", "gb300-nvl72"},
        {"H100 80GB SXM", "h100-sxm5-80gb"},         {"DGX", NULL},
        {"SXM", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const pp_gpu *g = pp_catalog_gpu_named(&cat, cases[i].name);
        if (cases[i].id) {
            CU_ASSERT_PTR_NOT_NULL(g);
            if (g)
                CU_ASSERT_STRING_EQUAL(g->id, cases[i].id);
        } else
            CU_ASSERT_PTR_NULL(g);
    }
    pp_catalog_free(&cat);
}

/* A problem may name its model and GPU as people write them, not only by
 * id: the same problem either way; a name of neither is an error at its
 * path.  Named values are read in any case. */
static void test_problem_names_as_written(void)
{
    pp_problem a, b;
    pp_error err;
    char *by_id = problem_with("'llama3-8b'", "{'gpu': 'h100-sxm5-80gb', 'nodes': 2}", NULL, NULL);
    char *by_name = problem_with("'Meta Llama 3 8B'", "{'gpu': 'NVIDIA H100 SXM', 'nodes': 2}", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(parse_problem(by_id, &a, &err), PP_OK);
    CU_ASSERT_EQUAL_FATAL(parse_problem(by_name, &b, &err), PP_OK);
    CU_ASSERT_EQUAL(a.model.layers, b.model.layers);
    CU_ASSERT_EQUAL(a.model.hidden, b.model.hidden);
    CU_ASSERT_STRING_EQUAL(a.cluster.gpu.id, b.cluster.gpu.id);
    free(by_id);
    free(by_name);
    /* as Hugging Face names them: an organisation, the format, a fine-tuned
     * release and a version change no shape; a later release of one shape
     * is an alias of its entry (data/models.json) */
    static const struct {
        const char *name, *id;
    } models[] = {{"meta-llama/Llama-2-7b-hf", "llama2-7b"},
                  {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"},
                  {"meta-llama/Llama-3.1-8B-Instruct", "llama3-8b"},
                  {"Llama 3.3 70B", "llama3-70b"},
                  {"deepseek-ai/DeepSeek-V3-Base", "deepseek-v3"},
                  {"EleutherAI/gpt-neox-20b", "gpt-neox-20b"},
                  {"meta-llama/Llama-3.2-1B-Instruct", "llama3.2-1b"},
                  {"Llama 3.2 3B", "llama3.2-3b"},
                  {"facebook/opt-175b", "opt-175b"},
                  {"deepseek-ai/DeepSeek-V2-Lite", "deepseek-v2-lite"},
                  {"moonshotai/Moonlight-16B-A3B-Instruct", "moonlight-16b-a3b"},
                  /* a last word that is the model's own parameter count */
                  {"DeepSeek V3 671B", "deepseek-v3"},
                  {"Nemotron-4 340B", "nemotron4-340b"}};
    pp_catalog cat;
    pp_load_catalog(&cat);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const pp_catalog_model *cm = pp_catalog_model_named(&cat, models[i].name);
        CU_ASSERT_PTR_NOT_NULL(cm);
        if (cm)
            CU_ASSERT_STRING_EQUAL(cm->id, models[i].id);
    }
    /* a version is no neutral word when it names the model (DeepSeek-V2 is
     * not DeepSeek-V3), nor is a context length */
    CU_ASSERT_PTR_NULL(pp_catalog_model_named(&cat, "DeepSeek-V2"));
    CU_ASSERT_PTR_NULL(pp_catalog_model_named(&cat, "Llama-2-7b-32k"));
    /* nor a parameter count of another size (10 % off or more) */
    CU_ASSERT_PTR_NULL(pp_catalog_model_named(&cat, "DeepSeek V3 70B"));
    CU_ASSERT_PTR_NULL(pp_catalog_model_named(&cat, "DeepSeek V3 1.2T"));
    pp_catalog_free(&cat);
    char *bad = problem_with("'Llama 5'", NULL, NULL, NULL);
    CU_ASSERT_EQUAL(parse_problem(bad, &a, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.model");
    free(bad);
    /* named values in any case */
    char *upper = problem_with(NULL, NULL, "{'global_batch': 8, 'precision': 'BF16', 'framework': 'Megatron-Core'}",
                               NULL);
    CU_ASSERT_EQUAL_FATAL(parse_problem(upper, &a, &err), PP_OK);
    CU_ASSERT_EQUAL(a.training.precision, PP_PREC_BF16);
    CU_ASSERT_EQUAL(a.training.framework, PP_FW_MEGATRON_CORE);
    free(upper);
    /* frameworks by their other usual names: today's releases */
    static const struct {
        const char *name;
        pp_framework fw;
    } frameworks[] = {{"NeMo", PP_FW_MEGATRON_CORE},         {"Megatron-LM", PP_FW_MEGATRON_CORE},
                      {"Megatron-Bridge", PP_FW_MEGATRON_CORE}, {"torchtitan", PP_FW_FSDP},
                      {"PyTorch FSDP", PP_FW_FSDP},            {"GPT-NeoX", PP_FW_DEEPSPEED},
                      {"megatron_lm_2021", PP_FW_MEGATRON_2021},
                      /* with the maker's word and a version, as users write them */
                      {"NeMo 25.04", PP_FW_MEGATRON_CORE},     {"NVIDIA NeMo Framework 25.02", PP_FW_MEGATRON_CORE},
                      {"Megatron-LM core_r0.13.0", PP_FW_MEGATRON_CORE}, {"torchtitan v0.2.2", PP_FW_FSDP},
                      {"MosaicML Composer", PP_FW_FSDP},       {"DeepSpeed 0.16", PP_FW_DEEPSPEED},
                      /* a version of the 2021 stacks' era names them */
                      {"Megatron-LM v2.6", PP_FW_MEGATRON_2021}, {"Megatron-LM (2021)", PP_FW_MEGATRON_2021},
                      {"DeepSpeed 0.5.10", PP_FW_DEEPSPEED_2021}};
    for (size_t i = 0; i < sizeof frameworks / sizeof frameworks[0]; i++) {
        char training[160];
        snprintf(training, sizeof training, "{'global_batch': 8, 'framework': '%s'}", frameworks[i].name);
        char *text = problem_with(NULL, NULL, training, NULL);
        CU_ASSERT_EQUAL_FATAL(parse_problem(text, &a, &err), PP_OK);
        CU_ASSERT_EQUAL(a.training.framework, frameworks[i].fw);
        free(text);
    }
    /* precisions by the frameworks' names of their recipes (NeMo and
     * Megatron-Bridge tables and recipes, Megatron-LM's --fp8-recipe) */
    static const struct {
        const char *name;
        pp_precision prec;
    } precisions[] = {{"FP8-CS", PP_PREC_FP8_CURRENT},
                      {"fp8_ds", PP_PREC_FP8},
                      {"FP8-MX", PP_PREC_MXFP8},
                      {"FP8-SS", PP_PREC_FP8_BLOCK},
                      {"NVFP4", PP_PREC_NVFP4},
                      {"tensorwise", PP_PREC_FP8_CURRENT},
                      {"bf16_with_mxfp8_mixed", PP_PREC_MXFP8},
                      {"bf16-mixed", PP_PREC_BF16},
                      {"FP8 current scaling", PP_PREC_FP8_CURRENT}};
    for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++) {
        char training[160];
        snprintf(training, sizeof training, "{'global_batch': 8, 'precision': '%s'}", precisions[i].name);
        char *text = problem_with("'llama3-8b'", "{'gpu': 'b200-sxm-180gb', 'gpus_per_node': 8, 'nodes': 1}",
                                  training, NULL);
        CU_ASSERT_EQUAL_FATAL(parse_problem(text, &a, &err), PP_OK);
        CU_ASSERT_EQUAL(a.training.precision, precisions[i].prec);
        free(text);
    }
    /* an alias is checked against the GPU as the name is: MXFP8 is Blackwell's */
    char *mx_h100 = problem_with("'llama3-8b'", "{'gpu': 'h100-sxm5-80gb', 'gpus_per_node': 8, 'nodes': 1}",
                                 "{'global_batch': 8, 'precision': 'FP8-MX'}", NULL);
    CU_ASSERT_EQUAL(parse_problem(mx_h100, &a, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.training.precision");
    free(mx_h100);
    char *fp32 = problem_with(NULL, NULL, "{'global_batch': 8, 'precision': 'fp32'}", NULL);
    CU_ASSERT_EQUAL(parse_problem(fp32, &a, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "$.training.precision");
    free(fp32);
    /* a name of no framework is still an error at its path, versioned or
     * only a maker's word */
    static const char *const none[] = {"MaxText", "JAX 0.4", "PyTorch", "2.6"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        char training[160];
        snprintf(training, sizeof training, "{'global_batch': 8, 'framework': '%s'}", none[i]);
        char *jax = problem_with(NULL, NULL, training, NULL);
        CU_ASSERT_EQUAL(parse_problem(jax, &a, &err), PP_EINPUT);
        PP_ASSERT_CONTAINS(err.path, "$.training.framework");
        free(jax);
    }
}

/* The one table of efficiency parameters: each field of pp_efficiency once,
 * its built-in value what pp_efficiency_init sets, the fitted ones first. */
static void test_efficiency_table(void)
{
    pp_efficiency e;
    pp_efficiency_init(&e);
    for (int i = 0; i < PP_EFF_PARAM_COUNT; i++) {
        CU_ASSERT_EQUAL(pp_efficiency_value(&e, i), pp_eff_params[i].def);
        CU_ASSERT_STRING_EQUAL(pp_efficiency_key(i), pp_eff_params[i].key);
        CU_ASSERT(pp_eff_params[i].unit[0] && pp_eff_params[i].meaning[0]);
        for (int j = 0; j < i; j++) {
            CU_ASSERT_NOT_EQUAL(pp_eff_params[i].offset, pp_eff_params[j].offset);
            CU_ASSERT_STRING_NOT_EQUAL(pp_eff_params[i].key, pp_eff_params[j].key);
        }
    }
    CU_ASSERT_STRING_EQUAL(pp_efficiency_key(PP_EFF_CROSS_RAIL), "cross_rail");
    CU_ASSERT_EQUAL(PP_EFF_COUNT, PP_EFF_GEMM_MISALIGNED); /* all but gemm_misaligned are fitted to steps */
    CU_ASSERT_STRING_EQUAL(pp_efficiency_key(PP_EFF_PARAM_COUNT), "?");
    *pp_efficiency_field(&e, PP_EFF_HBM) = 0.81;
    CU_ASSERT_EQUAL(e.hbm, 0.81);
}

/* Each GPU names its calibration family; a family takes every_family's bound
 * of a parameter it does not bound itself, and a union family spans the
 * others.  A new GPU is then one entry of gpus.json. */
static void test_calibration_families(void)
{
    pp_catalog cat;
    load_small_catalog(&cat);
    const pp_eff_family *f = pp_catalog_gpu_family(&cat, "g1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(f->name, "F1");
    CU_ASSERT_EQUAL(f->bound[PP_EFF_GEMM].lo, 0.5);
    CU_ASSERT_STRING_EQUAL(f->bound[PP_EFF_GEMM].source, "g1");
    CU_ASSERT_EQUAL(f->bound[PP_EFF_HBM].hi, 0.9); /* every_family's */
    CU_ASSERT_PTR_NULL(pp_catalog_gpu_family(&cat, "g2"));
    CU_ASSERT_EQUAL_FATAL(cat.n_families, 3);
    const pp_eff_family *u = &cat.families[2];
    CU_ASSERT(u->bound[PP_EFF_GEMM].lo == 0.5 && u->bound[PP_EFF_GEMM].hi == 0.9);
    CU_ASSERT(u->bound[PP_EFF_HBM].lo == 0.8 && u->bound[PP_EFF_HBM].hi == 0.95);
    CU_ASSERT_STRING_EQUAL(u->bound[PP_EFF_CROSS_RAIL].source, "the union");
    pp_catalog_free(&cat);
    /* the project's: every GPU has a family of bounds */
    pp_load_catalog(&cat);
    for (int g = 0; g < cat.n_gpus; g++)
        CU_ASSERT_PTR_NOT_NULL(pp_catalog_gpu_family(&cat, cat.gpus[g].id));
    CU_ASSERT_STRING_EQUAL(pp_catalog_gpu_family(&cat, "a100-sxm4-80gb")->name, "A100");
    CU_ASSERT_STRING_EQUAL(pp_catalog_gpu_family(&cat, "h200-sxm-141gb")->name, "H100/H200");
    pp_catalog_free(&cat);
}

#define BAD_BOUNDS(label, gpus, bounds, file, path, ...) \
    bad_catalog_at(label, gpus, NULL, NULL, NULL, bounds, file, path, WORDS(__VA_ARGS__), __LINE__)

#define GPU_OF_FAMILY(fam)                                                                                         \
    "{'gpus': [{'id': 'g1', 'name': 'G1', 'peak_tflops': {'bf16': 100}, 'memory_gib': 80, 'hbm_GBps': 1000,"      \
    " 'nvlink_GBps': 100, 'network_Gbps': 100, 'gpus_per_node': 8" fam ", 'source': 'x'}]}"

/* data/frameworks.json read strictly: one entry of the small catalog's
 * framework table, with `edit` replacing its decisions or compression. */
static void bad_frameworks_at(const char *label, const char *entry_tail, const char *path, const char *const *words,
                              int line)
{
    char dir[512], origin[600], file[1024], text[12288], rest[4096] = "", tail[8192];
    write_catalog(dir, sizeof dir, NULL, NULL, NULL, NULL);
    /* @REST@: every framework row but zero and those the tail states, at all values */
    const char *at = strstr(entry_tail, "@REST@");
    for (int i = 0; at && i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", d->key);
        if (!d->framework || d->id == PP_DEC_ZERO || strstr(entry_tail, quoted))
            continue;
        size_t n = strlen(rest);
        snprintf(rest + n, sizeof rest - n, "%s'%s': {'values': 'all', 'source': 'x'}", n ? ", " : "", d->key);
    }
    if (at)
        snprintf(tail, sizeof tail, "%.*s%s%s", (int)(at - entry_tail), entry_tail, rest, at + strlen("@REST@"));
    else
        snprintf(tail, sizeof tail, "%s", entry_tail);
    snprintf(text, sizeof text,
             "{'source': 'x', 'frameworks': [{'id': 'megatron-core', 'name': 'M', 'version': '1', 'source': 'x', %s}]}",
             tail);
    snprintf(file, sizeof file, "%s/frameworks.json", dir);
    pp_write_json(file, text);
    snprintf(origin, sizeof origin, "%s/frameworks.json", dir);
    pp_catalog cat;
    pp_error err;
    int rc = pp_catalog_load(dir, &cat, &err);
    check_error_at(label, rc, &err, origin, path, words, line);
    CU_ASSERT_EQUAL(cat.n_gpus, 0); /* left empty */
}
#define BAD_FRAMEWORKS(label, tail, path, ...) bad_frameworks_at(label, tail, path, WORDS(__VA_ARGS__), __LINE__)

/* Every decision data/frameworks.json lists (the table's FRAMEWORK_DATA rows)
 * but zero and those x states: bad_frameworks_at fills in @REST@. */
#define FW_DECISIONS_BUT(x) "'decisions': {" x "@REST@}"
#define FW_ZERO "'zero': {'values': [0, 1], 'with_pipeline': [0], 'source': 'x'}, "
#define FW_COMPRESSION                                                                                                \
    "'compression': {'dp': [{'codec': 'none', 'source': 'x'}], 'tp': [{'codec': 'none', 'source': 'x'}],"           \
    " 'pp': [{'codec': 'none', 'source': 'x'}], 'params': [{'codec': 'none', 'source': 'x'}]}"

static void test_bad_frameworks(void)
{
    BAD_FRAMEWORKS("missing decision", FW_DECISIONS_BUT("") ", " FW_COMPRESSION, "$.frameworks[0].decisions",
                   "missing", "zero");
    BAD_FRAMEWORKS("unknown value", FW_DECISIONS_BUT("'zero': {'values': [0, 1], 'with_pipeline': [0], 'source': 'x'},"
                                                     " 'bogus': 1, ") ", " FW_COMPRESSION,
                   "$.frameworks[0].decisions.bogus", "bogus", "tp_comm_overlap");
    /* the recipes it runs: training precisions' names, a 16-bit one among them */
    BAD_FRAMEWORKS("precision fp32", FW_DECISIONS_BUT(FW_ZERO) ", " FW_COMPRESSION
                   ", 'precisions': {'values': ['bf16', 'fp32'], 'source': 'x'}",
                   "$.frameworks[0].precisions.values[1]", "expected a training precision, found 'fp32'");
    BAD_FRAMEWORKS("precision name", FW_DECISIONS_BUT(FW_ZERO) ", " FW_COMPRESSION
                   ", 'precisions': {'values': ['bf16', 'fp6'], 'source': 'x'}",
                   "$.frameworks[0].precisions.values[1]", "fp6");
    BAD_FRAMEWORKS("precision no 16-bit", FW_DECISIONS_BUT(FW_ZERO) ", " FW_COMPRESSION
                   ", 'precisions': {'values': ['fp8'], 'source': 'x'}",
                   "$.frameworks[0].precisions.values", "expected bf16 or fp16 among them");
    /* the training settings it runs beyond the defaults: their names */
    BAD_FRAMEWORKS("setting name", FW_DECISIONS_BUT(FW_ZERO) ", " FW_COMPRESSION
                   ", 'settings': {'values': ['mtp_layers', 'warp_drive'], 'source': 'x'}",
                   "$.frameworks[0].settings.values[1]", "warp_drive", "moe_force_balance");
    BAD_FRAMEWORKS("settings without source", FW_DECISIONS_BUT(FW_ZERO) ", " FW_COMPRESSION
                   ", 'settings': {'values': ['mtp_layers']}",
                   "$.frameworks[0].settings", "source");
    /* a valid entry, but the other frameworks have none */
    BAD_FRAMEWORKS("a framework missing", FW_DECISIONS_BUT(FW_ZERO) ", " FW_COMPRESSION, "$.frameworks",
                   "megatron-lm-2021");
    BAD_FRAMEWORKS("tp_mode name",
                   "'decisions': {'cp': {'values': 'all', 'source': 'x'}, 'virtual_stages': {'values': [1], 'source': 'x'},"
                   " 'zero': {'values': [0], 'with_pipeline': [0], 'source': 'x'},"
                   " 'recompute': {'values': ['none'], 'source': 'x'}, 'sequence_parallel': {'values': [false], 'source': 'x'},"
                   " 'tp_mode': {'values': ['1d', '4d'], 'source': 'x'}}, " FW_COMPRESSION,
                   "$.frameworks[0].decisions.tp_mode.values[1]", "4d", "2.5d");
    BAD_FRAMEWORKS("default missing", FW_DECISIONS_BUT("'zero': {'values': [1], 'with_pipeline': [1], 'source': 'x'}, ")
                   ", " FW_COMPRESSION, "$.frameworks[0].decisions.zero.values", "default 0");
    BAD_FRAMEWORKS("with_pipeline beyond values",
                   FW_DECISIONS_BUT("'zero': {'values': [0], 'with_pipeline': [0, 2], 'source': 'x'}, ") ", " FW_COMPRESSION,
                   "$.frameworks[0].decisions.zero.with_pipeline", "values");
    BAD_FRAMEWORKS("no source", FW_DECISIONS_BUT("'zero': {'values': [0], 'with_pipeline': [0]}, ") ", " FW_COMPRESSION,
                   "$.frameworks[0].decisions.zero", "source");
    BAD_FRAMEWORKS("unknown codec",
                   FW_DECISIONS_BUT(FW_ZERO) ", 'compression': {'dp': [{'codec': 'none', 'source': 'x'},"
                   " {'codec': 'int9', 'source': 'x'}], 'tp': [], 'pp': [], 'params': []}",
                   "$.frameworks[0].compression.dp[1].codec", "int9", "none");
    BAD_FRAMEWORKS("none missing",
                   FW_DECISIONS_BUT(FW_ZERO) ", 'compression': {'dp': [], 'tp': [], 'pp': [], 'params': []}",
                   "$.frameworks[0].compression.dp", "none");
    BAD_FRAMEWORKS("missing compression", FW_DECISIONS_BUT(FW_ZERO), "$.frameworks[0]", "missing", "compression");
}

/* The project's data/frameworks.json: Megatron-Core runs the bf16 cast on
 * DP gradients but no int8ef, DeepSpeed ZeRO-2/3 only without a pipeline
 * and the MPI codecs only through MVAPICH2-GDR, FSDP no ZeRO-1. */
static void test_frameworks_data(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    int bf16 = pp_catalog_codec_index(&cat, "bf16"), int8ef = pp_catalog_codec_index(&cat, "int8ef");
    int zfp8 = pp_catalog_codec_index(&cat, "zfp8");
    CU_ASSERT_FATAL(bf16 > 0 && int8ef > 0 && zfp8 > 0);
    for (int fw = 0; fw < PP_FW_COUNT; fw++) {
        const pp_framework_caps *c = &cat.frameworks[fw];
        CU_ASSERT(c->known && c->name[0] && c->version[0]);
        for (int d = 0; d < PP_DIM_COUNT; d++)
            CU_ASSERT(!(c->runs[PP_DEC_CODEC(d)] & (1ULL << int8ef))); /* no framework runs int8ef */
        CU_ASSERT(c->runs[PP_DEC_TP_MODE] == 1ULL); /* 1d only */
    }
    const pp_framework_caps *mc = &cat.frameworks[PP_FW_MEGATRON_CORE], *ds = &cat.frameworks[PP_FW_DEEPSPEED];
    CU_ASSERT(mc->runs[PP_DEC_CODEC_DP] == (1ULL | 1ULL << bf16));
    CU_ASSERT(mc->zero_with_pp == 0xFu);
    CU_ASSERT(ds->zero_with_pp == 0x3u && ds->runs[PP_DEC_ZERO] == 0xFULL);
    CU_ASSERT((ds->runs[PP_DEC_CODEC_DP] & (1ULL << zfp8)) && (ds->codec_mpi[PP_DIM_DP] & (1u << zfp8)));
    CU_ASSERT(!(ds->codec_mpi[PP_DIM_DP] & (1u << bf16)));
    CU_ASSERT(!(cat.frameworks[PP_FW_FSDP].runs[PP_DEC_ZERO] & 2ULL));
    pp_catalog_free(&cat);
}

static void test_bad_calibration_families(void)
{
    BAD_BOUNDS("unknown family", GPU_OF_FAMILY(", 'calibration_family': 'f9'"), NULL, "gpus.json",
               "$.gpus[0].calibration_family", "calibration-bounds.json", "'f1', 'f2', 'u'", "found 'f9'");
    BAD_BOUNDS("no family", GPU_OF_FAMILY(""), NULL, "gpus.json", "$.gpus[0]",
               "missing required key 'calibration_family'");
    BAD_BOUNDS("lo above hi", NULL,
               "{'source': 'x', 'families': [{'id': 'f1', 'name': 'F1', 'bounds': {'gemm': {'lo': 0.9, 'hi': 0.5,"
               " 'source': 'x'}}}]}",
               "calibration-bounds.json", "$.families[0].bounds.gemm.hi", "expected at least lo = 0.9", "found 0.5");
    BAD_BOUNDS("a parameter unbounded", NULL,
               "{'source': 'x', 'families': [{'id': 'f1', 'name': 'F1', 'bounds': {'gemm': {'lo': 0.5, 'hi': 0.9,"
               " 'source': 'x'}}}]}",
               "calibration-bounds.json", "$.families[0].bounds", "expected a bound of 'attention'");
    BAD_BOUNDS("bound without source", NULL,
               "{'source': 'x', 'families': [{'id': 'f1', 'name': 'F1', 'bounds': {'gemm': {'lo': 0.5, 'hi': 0.9}}}]}",
               "calibration-bounds.json", "$.families[0].bounds.gemm", "missing required key 'source'");
    BAD_BOUNDS("fraction above 1", NULL,
               "{'source': 'x', 'every_family': {'hbm': {'lo': 0.5, 'hi': 1.5, 'source': 'x'}}, 'families': []}",
               "calibration-bounds.json", "$.every_family.hbm.hi", "1.5");
    BAD_BOUNDS("only unions", NULL,
               "{'source': 'x', 'families': [{'id': 'u', 'name': 'U', 'union_of_families': true, 'source': 'x'}]}",
               "calibration-bounds.json", "$.families", "expected a family with bounds of its own");
}

static void test_bad_catalogs(void)
{
    BAD_CATALOG("gpu key", "{'gpus': [{'id': 'g1', 'memory_gb': 1}]}", NULL, NULL, NULL, "gpus.json",
                "$.gpus[0].memory_gb", "did you mean 'memory_gib'?");
    BAD_CATALOG("gpu source", "{'gpus': [{'id': 'g1'}]}", NULL, NULL, NULL, "gpus.json", "$.gpus[0]",
                "missing required key 'source'");
    BAD_CATALOG("gpu scalar peak", "{'gpus': [{'id': 'g1', 'name': 'G', 'peak_tflops': 5, 'source': 'x'}]}", NULL,
                NULL, NULL, "gpus.json", "$.gpus[0].peak_tflops", "expected an object");
    BAD_CATALOG("efficiency_from", "{'gpus': [{'id': 'g1', 'name': 'G1', 'peak_tflops': {'bf16': 100},"
                                   " 'memory_gib': 80, 'hbm_GBps': 1000, 'nvlink_GBps': 100, 'network_Gbps': 100,"
                                   " 'gpus_per_node': 8, 'efficiency_from': 'g2', 'calibration_family': 'f1',"
                                   " 'source': 'x'}]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_from", "found 'g2'");
#define GPU_ENTRY(id, tail)                                                                                   \
    "{'id': '" id "', 'name': '" id "', 'peak_tflops': {'bf16': 100}, 'memory_gib': 80, 'hbm_GBps': 1000,"       \
    " 'nvlink_GBps': 100, 'network_Gbps': 100, 'gpus_per_node': 8, 'calibration_family': 'f1', " tail             \
    " 'source': 'x'}"
    /* borrowing: every donor another GPU of the catalog, one of them borrowing from no other (no chains) */
    BAD_CATALOG("borrow loop",
                "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': [{'gpu': 'g2', 'factor': 1, 'source': 'x'}],")
                ", " GPU_ENTRY("g2", "'efficiency_borrow': {'gpu': 'g1', 'factor': 1, 'source': 'x'},") "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_borrow",
                "expected at least one donor that borrows from no other GPU");
    BAD_CATALOG("borrow itself",
                "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': [{'gpu': 'g2', 'factor': 1, 'source': 'x'},"
                                             " {'gpu': 'g1', 'factor': 1, 'source': 'x'}],")
                ", " GPU_ENTRY("g2", "") "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_borrow[1].gpu", "(itself)");
    /* NCCL's tree cap per channel: two positive rates in GB/s */
    BAD_CATALOG("tree channels one", "{'gpus': [" GPU_ENTRY("g1", "'nccl_tree_channel_GBps': [41.4],") "]}", NULL,
                NULL, NULL, "gpus.json", "$.gpus[0].nccl_tree_channel_GBps",
                "expected an array of two bandwidths in GB/s (two nodes, more nodes)");
    BAD_CATALOG("tree channels negative", "{'gpus': [" GPU_ENTRY("g1", "'nccl_tree_channel_GBps': [41.4, -1],") "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].nccl_tree_channel_GBps[1]", "expected a positive number");
    BAD_CATALOG("borrow list empty", "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': [],") "]}", NULL, NULL, NULL,
                "gpus.json", "$.gpus[0].efficiency_borrow", "expected 1 to 4 donors, found 0");
    BAD_CATALOG("borrow factor source",
                "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': [{'gpu': 'g2', 'factor': 1}],") ", " GPU_ENTRY("g2", "")
                "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_borrow[0].source", "non-empty string");
    /* an NVLink factor cites its own measurement, and names none without one */
    BAD_CATALOG("borrow nvlink factor source",
                "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': [{'gpu': 'g2', 'factor': 1, 'source': 'x',"
                                             " 'nvlink_factor': 0.9}],") ", " GPU_ENTRY("g2", "") "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_borrow[0].nvlink_source", "nvlink_factor");
    BAD_CATALOG("borrow nvlink source alone",
                "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': {'gpu': 'g2', 'factor': 1, 'source': 'x',"
                                             " 'nvlink_source': 'y'},") ", " GPU_ENTRY("g2", "") "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_borrow.nvlink_source", "found no nvlink_factor");
    BAD_CATALOG("borrow nvlink factor range",
                "{'gpus': [" GPU_ENTRY("g1", "'efficiency_borrow': {'gpu': 'g2', 'factor': 1, 'source': 'x',"
                                             " 'nvlink_factor': 0, 'nvlink_source': 'y'},") ", " GPU_ENTRY("g2", "") "]}",
                NULL, NULL, NULL, "gpus.json", "$.gpus[0].efficiency_borrow.nvlink_factor", "0.01");
#undef GPU_ENTRY
    BAD_CATALOG("model heads", NULL, "{'models': [{'id': 'm1', 'layers': 2, 'hidden': 64, 'heads': 5, 'vocab': 10,"
                                     " 'seq_len': 16, 'source': 'x'}]}",
                NULL, NULL, "models.json", "$.models[0].heads", "divide hidden");
    BAD_CATALOG("model id twice", NULL, "{'models': [{'id': 'm1', 'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 10,"
                                        " 'seq_len': 16, 'source': 'x'}, {'id': 'm1', 'layers': 2, 'hidden': 64,"
                                        " 'heads': 4, 'vocab': 10, 'seq_len': 16, 'source': 'x'}]}",
                NULL, NULL, "models.json", "$.models[1].id", "expected a unique id");
    BAD_CATALOG("model alias of another", NULL,
                "{'models': [{'id': 'm1', 'name': 'Model One', 'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 10,"
                " 'seq_len': 16, 'source': 'x'}, {'id': 'm2', 'aliases': ['model-one'], 'layers': 2, 'hidden': 64,"
                " 'heads': 4, 'vocab': 10, 'seq_len': 16, 'source': 'x'}]}",
                NULL, NULL, "models.json", "$.models[1].aliases[0]", "no other model goes by", "'m1'");
    BAD_CATALOG("no models", NULL, "{'models': []}", NULL, NULL, "models.json", "$.models", "1..10000 entries");
    BAD_CATALOG("cluster gpu", NULL, NULL, "{'clusters': [{'id': 'c1', 'gpu': 'g2', 'nodes': 2, 'source': 'x'}]}",
                NULL, "clusters.json", "$.clusters[0].gpu", "GPU id of gpus.json", "found 'g2'");
    BAD_CATALOG("none first", NULL, NULL, NULL, "{'codecs': [{'id': 'mpc', 'kind': 'lossless', 'ratio': 1.1,"
                                                " 'source': 'x'}]}",
                "codecs.json", "$.codecs[0].id", "expected the codec 'none' of kind 'none' first");
    BAD_CATALOG("lossless with bits", NULL, NULL, NULL, "{'codecs': [{'id': 'none', 'kind': 'none', 'source': 'x'},"
                                                        " {'id': 'mpc', 'kind': 'lossless', 'ratio': 1.1,"
                                                        " 'bits_per_value': 8, 'source': 'x'}]}",
                "codecs.json", "$.codecs[1].bits_per_value", "no 'bits_per_value' in a codec of kind 'lossless'");
    BAD_CATALOG("lossy without error", NULL, NULL, NULL, "{'codecs': [{'id': 'none', 'kind': 'none', 'source': 'x'},"
                                                         " {'id': 'z', 'kind': 'lossy', 'bits_per_value': 8,"
                                                         " 'source': 'x'}]}",
                "codecs.json", "$.codecs[1]", "missing required key 'rel_error'");
    BAD_CATALOG("codec kind", NULL, NULL, NULL, "{'codecs': [{'id': 'none', 'kind': 'nothing', 'source': 'x'}]}",
                "codecs.json", "$.codecs[0].kind", "'none', 'lossy', 'lossless'");
}

/* A long file name keeps its tail in the error location. */
static void test_long_origin(void)
{
    char origin[400];
    memset(origin, 'd', 300);
    strcpy(origin + 300, "/problem.json");
    pp_problem p;
    pp_error err;
    CU_ASSERT_EQUAL(pp_problem_parse("{\"modle\": 1}", origin, NULL, NULL, &p, &err), PP_EINPUT);
    CU_ASSERT_EQUAL(strncmp(err.path, "...", 3), 0);
    PP_ASSERT_CONTAINS(err.path, "/problem.json: $.modle");
}

/* ---- json_util ----------------------------------------------------------------- */

static void test_edit_distance_and_suggestions(void)
{
    static const char *const keys[] = {"layers", "hidden", "heads", "kv_heads", NULL};
    CU_ASSERT_EQUAL(pp_edit_distance("heads", "heads"), 0);
    CU_ASSERT_EQUAL(pp_edit_distance("hedas", "heads"), 1); /* a swap is one edit */
    CU_ASSERT_EQUAL(pp_edit_distance("tpo", "top"), 1);
    CU_ASSERT_EQUAL(pp_edit_distance("ab", "ba"), 1);
    CU_ASSERT_EQUAL(pp_edit_distance("ca", "abc"), 3);
    CU_ASSERT_EQUAL(pp_edit_distance("", "abc"), 3);
    CU_ASSERT_EQUAL(pp_edit_distance("kitten", "sitting"), 3);
    CU_ASSERT_STRING_EQUAL(pp_nearest_name("hedas", pp_string_array_at, keys, 4), "heads");
    CU_ASSERT_STRING_EQUAL(pp_nearest_name("layer", pp_string_array_at, keys, 4), "layers");
    CU_ASSERT_PTR_NULL(pp_nearest_name("optimizer", pp_string_array_at, keys, 4));
}

/* Brackets inside strings do not count towards the nesting limit. */
static void test_brackets_in_strings(void)
{
    pp_problem p;
    pp_error err;
    char *text = problem_with(NULL, NULL, NULL, "'description': '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{{{{'");
    CU_ASSERT_EQUAL(parse_problem(text, &p, &err), PP_OK);
    free(text);
}

/* ---- bad documents: syntax ------------------------------------------------------ */

static void test_bad_syntax(void)
{
    BAD("malformed", "{'model': 'gpt3-175b',, 'x': 1}", "problem.json:1:24", "malformed JSON", "byte offset 23",
        "line 1, column 24", "175b\",,')");
    BAD("malformed on line 3", "{\n'model':\n  'gpt3-175b' 'cluster': 1}", "problem.json:3:", "line 3",
        "malformed JSON");
    BAD("truncated", "{'model': {'layers': 3", "problem.json:1:", "found the end", "truncated");
    BAD("empty text", "", "$", "empty document");
    BAD("only blanks", " \n\t ", "$", "empty document");
    BAD("top-level array", "[1, 2]", "$", "expected a JSON object at the top level", "found an array");
    BAD("top-level number", "42", "$", "expected a JSON object", "found the number 42");
    BAD("NaN is not JSON", "{'model': NaN}", "problem.json:1:", "malformed JSON", "'NaN}'");
    BAD("trailing garbage", "{'model': 'gpt3-175b'} x", "problem.json:1:", "malformed JSON", "found 'x'");
    BAD("duplicate top-level key", "{'model': 'gpt3-175b', 'model': 'llama3-8b'}", "$.model", "found key 'model' twice");
}

static void test_bad_nesting(void)
{
    size_t n = 10000;
    char *deep = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    memset(deep, '[', n);
    deep[n] = '\0';
    BAD("10000 brackets", deep, "problem.json:1:33", "nested at most 32 levels");
    free(deep);
    char nested[512] = "{'model': {'name': ";
    for (int i = 0; i < 40; i++)
        strcat(nested, "{'a': ");
    strcat(nested, "1");
    for (int i = 0; i < 40; i++)
        strcat(nested, "}");
    strcat(nested, "}}");
    BAD("40 nested objects", nested, "problem.json:1:", "nested at most 32 levels");
}

static void test_bad_numbers(void)
{
    BAD_BUILT("1.5 layers", problem_with("{'layers': 1.5, 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 8}",
                                         NULL, NULL, NULL),
              "$.model.layers", "expected an integer in 1..100000", "found the number 1.5");
    BAD_BUILT("layers as a string", problem_with("{'layers': '32', 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 8}",
                                                 NULL, NULL, NULL),
              "$.model.layers", "expected an integer", "found the string '32'");
    BAD_BUILT("zero layers", problem_with("{'layers': 0, 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 8}",
                                          NULL, NULL, NULL),
              "$.model.layers", "1..100000", "found the number 0");
    BAD_BUILT("negative hidden", problem_with("{'layers': 2, 'hidden': -64, 'heads': 4, 'vocab': 9, 'seq_len': 8}",
                                              NULL, NULL, NULL),
              "$.model.hidden", "found the number -64");
    BAD_BUILT("absurd hidden", problem_with("{'layers': 2, 'hidden': 1e9, 'heads': 4, 'vocab': 9, 'seq_len': 8}",
                                            NULL, NULL, NULL),
              "$.model.hidden", "1..1048576", "1000000000");
    BAD_BUILT("absurd seq_len", problem_with("{'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 1e8}",
                                             NULL, NULL, NULL),
              "$.model.seq_len", "1..16777216");
    BAD_BUILT("1e400", problem_with("{'layers': 1e400, 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 8}", NULL,
                                    NULL, NULL),
              "$.model.layers", "expected an integer", "too large");
    BAD_BUILT("zero global batch", problem_with(NULL, NULL, "{'global_batch': 0}", NULL), "$.training.global_batch",
              "expected an integer in 1..1099511627776", "found the number 0");
    BAD_BUILT("absurd global batch", problem_with(NULL, NULL, "{'global_batch': 3e12}", NULL),
              "$.training.global_batch", "1..1099511627776");
    BAD_BUILT("negative tokens", problem_with(NULL, NULL, "{'global_batch': 8, 'tokens': -1}", NULL),
              "$.training.tokens", "expected a positive number");
    BAD_BUILT("zero nodes", problem_with(NULL, "{'gpu': 'a100-sxm4-80gb', 'nodes': 0}", NULL, NULL),
              "$.cluster.nodes", "1..10000000");
    BAD_BUILT("absurd nodes", problem_with(NULL, "{'gpu': 'a100-sxm4-80gb', 'nodes': 1e8}", NULL, NULL),
              "$.cluster.nodes", "1..10000000");
    BAD_BUILT("577 GPUs per node", problem_with(NULL, "{'gpu': 'a100-sxm4-80gb', 'nodes': 1, 'gpus_per_node': 577}",
                                                NULL, NULL),
              "$.cluster.gpus_per_node", "1..576");
    BAD_BUILT("zero bandwidth", problem_with(NULL, "{'gpu': 'a100-sxm4-80gb', 'nodes': 1, 'inter_node_Gbps': 0}",
                                             NULL, NULL),
              "$.cluster.inter_node_Gbps", "expected a positive number", "found the number 0");
    BAD_BUILT("headroom 0.95", problem_with(NULL, NULL, NULL, "'constraints': {'memory_headroom': 0.95}"),
              "$.constraints.memory_headroom", "0..0.9", "0.95");
    BAD_BUILT("negative tolerance", problem_with(NULL, NULL, NULL, "'constraints': {'error_tolerance': {'dp': -0.1}}"),
              "$.constraints.error_tolerance.dp", "expected a number in 0..1");
}

static void test_bad_strings_and_types(void)
{
    char name[400] = "{'name': '";
    memset(name + strlen(name), 'x', 200);
    strcat(name, "', 'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 8}");
    BAD_BUILT("name too long", problem_with(name, NULL, NULL, NULL), "$.model.name", "at most 127 characters",
              "found one of 200");
    BAD_BUILT("model as a number", problem_with("42", NULL, NULL, NULL), "$.model", "expected a model id",
              "found the number 42");
    BAD_BUILT("cluster as a list", problem_with(NULL, "[1]", NULL, NULL), "$.cluster", "expected a cluster id",
              "found an array");
    BAD_BUILT("training as a string", problem_with(NULL, NULL, "'big'", NULL), "$.training", "expected an object",
              "found the string 'big'");
    BAD_BUILT("flash_attention 'yes'", problem_with(NULL, NULL, "{'global_batch': 8, 'flash_attention': 'yes'}", NULL),
              "$.training.flash_attention", "expected true or false", "found the string 'yes'");
    BAD_BUILT("gated_mlp null", problem_with("{'layers': 2, 'hidden': 64, 'heads': 4, 'vocab': 9, 'seq_len': 8,"
                                             " 'gated_mlp': null}", NULL, NULL, NULL),
              "$.model.gated_mlp", "found null");
    BAD_BUILT("precision bf17", problem_with(NULL, NULL, "{'global_batch': 8, 'precision': 'bf17'}", NULL),
              "$.training.precision", "expected one of 'bf16', 'fp16', 'fp8'", "did you mean 'bf16'?");
    BAD_BUILT("attention_kernel flash4",
              problem_with(NULL, NULL, "{'global_batch': 8, 'attention_kernel': 'flash4'}", NULL),
              "$.training.attention_kernel", "expected one of 'auto', 'flash2', 'flash3'", "found 'flash4'");
    BAD_BUILT("fused_norm as a string",
              problem_with(NULL, NULL, "{'global_batch': 8, 'fused_norm': 'yes'}", NULL),
              "$.training.fused_norm", "expected true or false", "found the string 'yes'");
    BAD_BUILT("grad_accum_dtype fp8",
              problem_with(NULL, NULL, "{'global_batch': 8, 'grad_accum_dtype': 'fp8'}", NULL),
              "$.training.grad_accum_dtype", "expected \"bf16\", \"fp16\" or \"fp32\"", "found \"fp8\"");
    BAD_BUILT("grad_accum_dtype int8",
              problem_with(NULL, NULL, "{'global_batch': 8, 'grad_accum_dtype': 'int8'}", NULL),
              "$.training.grad_accum_dtype", "expected one of 'bf16'", "found 'int8'");
    BAD_BUILT("lora_rank negative", problem_with(NULL, NULL, "{'global_batch': 8, 'lora_rank': -4}", NULL),
              "$.training.lora_rank", "expected an integer in 0..65536", "found the number -4");
    BAD_BUILT("lora_rank as wide as the model",
              problem_with(NULL, NULL, "{'global_batch': 8, 'lora_rank': 12288}", NULL), "$.training.lora_rank",
              "below the model's hidden size 12288", "found 12288");
    BAD_BUILT("lora_targets mlp", problem_with(NULL, NULL, "{'global_batch': 8, 'lora_targets': 'mlp'}", NULL),
              "$.training.lora_targets", "expected one of 'attention', 'all-linear'", "found 'mlp'");
    BAD_BUILT("fp8_params in bf16", problem_with(NULL, NULL, "{'global_batch': 8, 'fp8_params': true}", NULL),
              "$.training.fp8_params", "expected false with precision \"bf16\"", "fp8-class recipe");
    BAD_BUILT("fp8_activation_input_store in bf16",
              problem_with(NULL, NULL, "{'global_batch': 8, 'fp8_activation_input_store': true}", NULL),
              "$.training.fp8_activation_input_store", "expected false with precision \"bf16\"",
              "activations are stored");
    BAD_BUILT("packed samples longer than the sequence",
              problem_with(NULL, NULL, "{'global_batch': 8, 'packed_sample_tokens': 4096}", NULL),
              "$.training.packed_sample_tokens", "at most the sequence length 2048", "found 4096");
    BAD_BUILT("packed samples of no tokens",
              problem_with(NULL, NULL, "{'global_batch': 8, 'packed_sample_tokens': 0}", NULL),
              "$.training.packed_sample_tokens", "expected a positive number");
    BAD_BUILT("loss_parallel as a number",
              problem_with(NULL, NULL, "{'global_batch': 8, 'loss_parallel': 0}", NULL),
              "$.training.loss_parallel", "expected true or false", "found");
    BAD_BUILT("optimizer sgd", problem_with(NULL, NULL, "{'global_batch': 8, 'optimizer': 'sgd'}", NULL),
              "$.training.optimizer", "expected one of 'adam'", "found 'sgd'");
    BAD_BUILT("objective fastest", problem_with(NULL, NULL, NULL, "'objective': 'fastest'"), "$.objective",
              "'min_step_time'", "found 'fastest'");
    BAD_BUILT("peak as a string", problem_with(NULL, "{'gpu': {'peak_tflops': 'lots', 'memory_gib': 80}, 'nodes': 1}",
                                               NULL, NULL),
              "$.cluster.gpu.peak_tflops", "expected a positive number", "found the string 'lots'");
}

/* ---- bad documents: keys ------------------------------------------------------------ */

static void test_bad_unknown_keys(void)
{
    BAD("top level", "{'modle': 'gpt3-175b'}", "$.modle", "unknown key 'modle'", "did you mean 'model'?");
    BAD_BUILT("model", problem_with("{'layers': 2, 'hidden': 64, 'hedas': 4, 'vocab': 9, 'seq_len': 8}", NULL, NULL,
                                    NULL),
              "$.model.hedas", "unknown key 'hedas'; did you mean 'heads'?");
    BAD_BUILT("cluster", problem_with(NULL, "{'gpu': 'a100-sxm4-80gb', 'node': 4}", NULL, NULL), "$.cluster.node",
              "did you mean 'nodes'?");
    BAD_BUILT("custom gpu", problem_with(NULL, "{'gpu': {'peak_tflops': 1, 'memory_gib': 1, 'hbm_GBs': 1}, 'nodes': 1}",
                                         NULL, NULL),
              "$.cluster.gpu.hbm_GBs", "did you mean 'hbm_GBps'?");
    BAD_BUILT("peak_tflops", problem_with(NULL, "{'gpu': {'peak_tflops': {'bf61': 1}, 'memory_gib': 1}, 'nodes': 1}",
                                          NULL, NULL),
              "$.cluster.gpu.peak_tflops.bf61", "unknown key 'bf61'");
    BAD_BUILT("training", problem_with(NULL, NULL, "{'global_bach': 8}", NULL), "$.training.global_bach",
              "did you mean 'global_batch'?");
    BAD_BUILT("search", problem_with(NULL, NULL, NULL, "'search': {'micro_batches': [1]}"),
              "$.search.micro_batches", "did you mean 'micro_batch'?");
    BAD_BUILT("search.compression", problem_with(NULL, NULL, NULL, "'search': {'compression': {'ddp': ['none']}}"),
              "$.search.compression.ddp", "did you mean 'dp'?");
    BAD_BUILT("constraints", problem_with(NULL, NULL, NULL, "'constraints': {'headroom': 0.1}"),
              "$.constraints.headroom", "unknown key 'headroom'", "expected one of 'memory_headroom'");
    BAD_BUILT("far from anything", problem_with(NULL, NULL, NULL, "'zzzzzz': 1"), "$.zzzzzz",
              "unknown key 'zzzzzz'", "expected one of 'name', 'description', 'model'");
    BAD_BUILT("odd characters", problem_with(NULL, NULL, NULL, "'a b\\n': 1"), "$['a b\\x0a']", "unknown key");
    BAD_BUILT("duplicate in model", problem_with("{'layers': 2, 'layers': 3, 'hidden': 64, 'heads': 4, 'vocab': 9,"
                                                 " 'seq_len': 8}", NULL, NULL, NULL),
              "$.model.layers", "expected each key once", "twice");
}

static void test_bad_missing_keys(void)
{
    BAD("no training", "{'model': 'gpt3-175b', 'cluster': 'selene'}", "$", "missing required key 'training'");
    BAD("no cluster", "{'model': 'gpt3-175b', 'training': {'global_batch': 8}}", "$",
        "missing required key 'cluster'");
    BAD("no model", "{'cluster': 'selene', 'training': {'global_batch': 8}}", "$", "missing required key 'model'");
    BAD_BUILT("no vocab", problem_with("{'layers': 2, 'hidden': 64, 'heads': 4, 'seq_len': 8}", NULL, NULL, NULL),
              "$.model", "missing required key 'vocab'");
    BAD_BUILT("no nodes", problem_with(NULL, "{'gpu': 'a100-sxm4-80gb'}", NULL, NULL), "$.cluster",
              "missing required key 'nodes'");
    BAD_BUILT("no global batch", problem_with(NULL, NULL, "{'precision': 'bf16'}", NULL), "$.training",
              "missing required key 'global_batch'");
    BAD_BUILT("custom gpu without memory", problem_with(NULL, "{'gpu': {'peak_tflops': 100}, 'nodes': 1}", NULL, NULL),
              "$.cluster.gpu", "missing required key 'memory_gib'");
}

/* ---- bad documents: meaning ------------------------------------------------------------- */

static void test_bad_model_consistency(void)
{
    BAD_BUILT("hidden % heads", problem_with("{'layers': 2, 'hidden': 4096, 'heads': 48, 'vocab': 9, 'seq_len': 8}",
                                             NULL, NULL, NULL),
              "$.model.heads", "expected heads to divide hidden (4096)", "found heads 48");
    BAD_BUILT("heads % kv_heads", problem_with("{'layers': 2, 'hidden': 4096, 'heads': 32, 'kv_heads': 5, 'vocab': 9,"
                                               " 'seq_len': 8}", NULL, NULL, NULL),
              "$.model.kv_heads", "expected kv_heads to divide heads (32)", "found kv_heads 5");
}

static void test_bad_catalog_ids(void)
{
    BAD_BUILT("model id", problem_with("'gpt3-175'", NULL, NULL, NULL), "$.model", "model id of models.json",
              "found 'gpt3-175'", "did you mean 'gpt3-175b'?");
    BAD_BUILT("gpu id", problem_with(NULL, "{'gpu': 'a100-sxm4-08gb', 'nodes': 1}", NULL, NULL), "$.cluster.gpu",
              "GPU id of gpus.json", "did you mean 'a100-sxm4-80gb'?");
    BAD_BUILT("cluster id", problem_with(NULL, "'selen'", NULL, NULL), "$.cluster", "cluster id of clusters.json",
              "did you mean 'selene'?");
    BAD_BUILT("codec id", problem_with(NULL, NULL, NULL, "'search': {'compression': {'dp': ['none', 'zfp9']}}"),
              "$.search.compression.dp[1]", "codec id of codecs.json", "found 'zfp9'");
    BAD_BUILT("efficiency_from", problem_with(NULL, "{'gpu': {'peak_tflops': 1, 'memory_gib': 1, 'efficiency_from':"
                                                    " 'h100'}, 'nodes': 1}", NULL, NULL),
              "$.cluster.gpu.efficiency_from", "GPU id of gpus.json", "found 'h100'");
}

static void test_bad_precision_for_gpu(void)
{
    BAD_BUILT("fp8 on A100", problem_with(NULL, NULL, "{'global_batch': 8, 'precision': 'fp8'}", NULL),
              "$.training.precision", "a100-sxm4-80gb supports ('bf16', 'fp16')", "found 'fp8'");
    BAD_BUILT("bf16 on V100", problem_with(NULL, "{'gpu': 'v100-sxm2-32gb', 'nodes': 1}", NULL, NULL),
              "$.training.precision", "v100-sxm2-32gb supports ('fp16')", "found 'bf16'");
}

static void test_bad_search_lists(void)
{
    BAD_BUILT("empty list", problem_with(NULL, NULL, NULL, "'search': {'tp': []}"), "$.search.tp",
              "expected a list of 1..64 values", "found 0");
    BAD_BUILT("duplicate", problem_with(NULL, NULL, NULL, "'search': {'tp': [1, 2, 2]}"), "$.search.tp[2]",
              "expected distinct values", "found the number 2 again (also at [1])");
    BAD_BUILT("zero degree", problem_with(NULL, NULL, NULL, "'search': {'pp': [1, 0]}"), "$.search.pp[1]",
              "expected an integer", "found the number 0");
    BAD_BUILT("not a list", problem_with(NULL, NULL, NULL, "'search': {'tp': 8}"), "$.search.tp", "expected a list",
              "write [x]");
    BAD_BUILT("zero stage 4", problem_with(NULL, NULL, NULL, "'search': {'zero': [0, 4]}"), "$.search.zero[1]",
              "0..3");
    BAD_BUILT("recompute partial", problem_with(NULL, NULL, NULL, "'search': {'recompute': ['partial']}"),
              "$.search.recompute[0]", "'none', 'selective', 'full'", "found 'partial'");
    BAD_BUILT("tp_mode 4d", problem_with(NULL, NULL, NULL, "'search': {'tp_mode': ['1d', '4d']}"),
              "$.search.tp_mode[1]", "'2.5d'", "found '4d'");
    BAD_BUILT("repeated bool", problem_with(NULL, NULL, NULL, "'search': {'sequence_parallel': [true, true]}"),
              "$.search.sequence_parallel[1]", "found true again");
    char search[600] = "'search': {'micro_batch': [1";
    for (int i = 2; i <= 65; i++)
        snprintf(search + strlen(search), sizeof search - strlen(search), ", %d", i);
    strcat(search, "]}");
    BAD_BUILT("65 values", problem_with(NULL, NULL, NULL, search), "$.search.micro_batch", "1..64 values",
              "found 65");
}

static void test_bad_capacity(void)
{
    BAD("no tokens", "{'model': 'llama3-8b', 'training': {'global_batch': 8},"
                     " 'capacity': {'gpus': [{'gpu': 'h100-sxm5-80gb'}], 'nodes': {'max': 4}}}",
        "$.training", "missing required key 'tokens'");
    BAD("no gpus", "{'model': 'llama3-8b', 'training': {'global_batch': 8, 'tokens': 1e12},"
                   " 'capacity': {'gpus': [], 'nodes': {'max': 4}}}",
        "$.capacity.gpus", "1..16 GPU offers", "found 0");
    BAD("max below min", "{'model': 'llama3-8b', 'training': {'global_batch': 8, 'tokens': 1e12},"
                         " 'capacity': {'gpus': [{'gpu': 'h100-sxm5-80gb'}], 'nodes': {'min': 8, 'max': 4}}}",
        "$.capacity.nodes.max", "expected max >= min (8)", "found 4");
    BAD("same gpu twice", "{'model': 'llama3-8b', 'training': {'global_batch': 8, 'tokens': 1e12},"
                          " 'capacity': {'gpus': [{'gpu': 'h100-sxm5-80gb'}, {'gpu': 'h100-sxm5-80gb'}],"
                          " 'nodes': [1, 2]}}",
        "$.capacity.gpus[1].gpu", "expected each GPU once");
    BAD("unknown key in an offer", "{'model': 'llama3-8b', 'training': {'global_batch': 8, 'tokens': 1e12},"
                                   " 'capacity': {'gpus': [{'gpu': 'h100-sxm5-80gb', 'usd_per_hour': 2}],"
                                   " 'nodes': [1]}}",
        "$.capacity.gpus[0].usd_per_hour", "did you mean 'usd_per_gpu_hour'?");
    BAD("repeated node count", "{'model': 'llama3-8b', 'training': {'global_batch': 8, 'tokens': 1e12},"
                               " 'capacity': {'gpus': [{'gpu': 'h100-sxm5-80gb'}], 'nodes': [1, 2, 1]}}",
        "$.capacity.nodes[2]", "expected distinct values");
}

static void test_bad_hf_config(void)
{
    BAD_BUILT("missing config", problem_with("{'hf_config': 'no-such-config.json'}", NULL, NULL, NULL),
              "$.model.hf_config", "readable Hugging Face config.json", "no-such-config.json", "No such file");
    BAD_BUILT("GPT-2 config", problem_with("{'hf_config': 'gpt2-config.json', 'seq_len': 1024}", NULL, NULL, NULL),
              "gpt2-config.json: $", "missing required key 'num_hidden_layers'", "GPT-2");
    BAD_BUILT("seq_len beyond the config", problem_with("{'hf_config': 'llama-3-8b-config.json', 'seq_len': 16384}",
                                                        NULL, NULL, NULL),
              "$.model.seq_len", "max_position_embeddings (8192)", "found 16384");
    /* a config says the longest context, not the trained one: seq_len is asked for */
    BAD_BUILT("no seq_len", problem_with("{'hf_config': 'llama-3-8b-config.json'}", NULL, NULL, NULL), "$.model",
              "missing required key 'seq_len'", "llama-3-8b-config.json", "at most its max_position_embeddings, 8192");
    BAD_BUILT("Mixture of Experts, decoder_sparse_step 2",
              problem_with("{'layers': 4, 'hidden': 1024, 'heads': 8, 'vocab': 32000, 'seq_len': 1024, 'experts': 8, "
                           "'experts_per_token': 2, 'first_dense_layers': 4}",
                           NULL, NULL, NULL),
              "$.model.first_dense_layers", "at least one MoE layer", "first 4 dense");
    BAD_BUILT("extra key beside hf_config", problem_with("{'hf_config': 'llama-3-8b-config.json', 'layers': 2}",
                                                         NULL, NULL, NULL),
              "$.model.layers", "unknown key 'layers'");
}

static void test_bad_plans(void)
{
    BAD_PLAN("plan as an array", "[8]", "$", "expected a JSON object", "found an array");
    BAD_PLAN("no tp", "{'pp': 2}", "$", "missing required key 'tp'");
    BAD_PLAN("tp 1.5", "{'tp': 1.5, 'pp': 1}", "$.tp", "expected an integer", "found the number 1.5");
    BAD_PLAN("zero 5", "{'tp': 1, 'pp': 1, 'zero': 5}", "$.zero", "0..3");
    BAD_PLAN("recompute some", "{'tp': 1, 'pp': 1, 'recompute': 'some'}", "$.recompute", "'selective'",
             "found 'some'");
    BAD_PLAN("unknown key", "{'tp': 1, 'pp': 1, 'zer0': 1}", "$.zer0", "did you mean 'zero'?");
    BAD_PLAN("codec", "{'tp': 1, 'pp': 1, 'compression': {'dp': 'zfp'}}", "$.compression.dp",
             "codec id of codecs.json", "found 'zfp'");
    BAD_PLAN("dp does not divide", "{'tp': 3, 'pp': 1}", "$", "tp*pp*cp (3*1*1 = 3)", "1024 GPUs");
    BAD_PLAN("sequence_parallel 1", "{'tp': 1, 'pp': 1, 'sequence_parallel': 1}", "$.sequence_parallel",
             "expected true or false");
}

static void test_bad_files(void)
{
    pp_catalog cat;
    pp_problem p;
    pp_error err;
    pp_load_catalog(&cat);
    CU_ASSERT_EQUAL(pp_problem_load("/nonexistent/problem.json", &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "/nonexistent/problem.json");
    PP_ASSERT_CONTAINS(err.msg, "No such file or directory");
    CU_ASSERT_EQUAL(pp_problem_load(TEST_DATA_DIR, &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, "Is a directory");
    char path[512];
    pp_write_temp("nul.json", "", path, sizeof path);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite("{\"a\":\0 1}", 1, 9, f);
    fclose(f);
    CU_ASSERT_EQUAL(pp_problem_load(path, &cat, &p, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, "NUL byte");
    CU_ASSERT_EQUAL(pp_problem_load("/dev/zero", &cat, &p, &err), PP_EINPUT); /* endless */
    PP_ASSERT_CONTAINS(err.msg, "at most 64 MiB");
    pp_plan plan;
    CU_ASSERT_EQUAL(pp_plan_load("/nonexistent/plan.json", &p, &plan, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.path, "/nonexistent/plan.json");
    pp_catalog_free(&cat);
}

/* A problem file finds its hf_config beside itself, wherever it is run from. */
static void test_load_resolves_hf_beside_problem(void)
{
    char src[1024], text[4096], path[512], cfg[512];
    pp_source_path("tests/data/llama-3-8b-config.json", src, sizeof src);
    FILE *in = fopen(src, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    pp_write_temp("config.json", text, cfg, sizeof cfg);
    char *prob = problem_with("{'hf_config': 'config.json', 'seq_len': 8192}", NULL, NULL, NULL);
    char *json = pp_json_of(prob);
    pp_write_temp("hf-problem.json", json, path, sizeof path);
    free(prob);
    free(json);
    pp_catalog cat;
    pp_problem p;
    pp_error err;
    pp_load_catalog(&cat);
    CU_ASSERT_EQUAL(pp_problem_load(path, &cat, &p, &err), PP_OK);
    CU_ASSERT_EQUAL(p.model.kv_heads, 8);
    pp_catalog_free(&cat);
}

int main(void)
{
    static const pp_test tests[] = {
        {"the interface.md example loads with its values", test_interface_example_loads},
        {"defaults of a minimal problem", test_defaults},
        {"gradients held in the type they are reduced in, unless told", test_grad_accum_defaults},
        {"init functions", test_init_functions},
        {"every section is parsed", test_every_section_parsed},
        {"custom GPU takes A100 figures for what it omits", test_custom_gpu},
        {"hf_config: Meta-Llama-3-8B", test_hf_config},
        {"hf_config: Mistral-NeMo 12B reads head_dim", test_hf_config_head_dim},
        {"sliding-window models: GPT-OSS's config and catalog entry, the configs' ways, the limits",
         test_sliding_window_models},
        {"hf_config: layers that are not attention (Mamba-2, Gated DeltaNet) are refused", test_hybrid_configs_refused},
        {"catalog model with its own seq_len", test_catalog_model_seq_len},
        {"capacity section", test_capacity},
        {"data/examples load", test_examples_load},
        {"plan defaults and derived dp", test_plan_defaults_and_dp},
        {"enumeration names", test_names},
        {"catalog contents and lookups", test_catalog_contents},
        {"efficiency: own, efficiency_from, default", test_efficiency_layers},
        {"catalog files: missing gpus.json", test_catalog_files},
        {"a minimal catalog", test_minimal_catalog},
        {"bad catalogs", test_bad_catalogs},
        {"the efficiency table: each parameter once, with its default", test_efficiency_table},
        {"a GPU goes by the names people write, a name of no catalog GPU by none", test_gpu_names_as_written},
        {"a problem may name its model and GPU as people write them", test_problem_names_as_written},
        {"calibration families: every GPU names one, bounds resolved", test_calibration_families},
        {"bad calibration families and bounds name their JSON path", test_bad_calibration_families},
        {"bad frameworks.json names its JSON path", test_bad_frameworks},
        {"frameworks.json: what each framework runs", test_frameworks_data},
        {"long file names keep their tail", test_long_origin},
        {"edit distance and suggestions", test_edit_distance_and_suggestions},
        {"brackets inside strings are not nesting", test_brackets_in_strings},
        {"bad: syntax", test_bad_syntax},
        {"bad: nesting", test_bad_nesting},
        {"bad: numbers", test_bad_numbers},
        {"bad: strings and types", test_bad_strings_and_types},
        {"bad: unknown and duplicate keys", test_bad_unknown_keys},
        {"bad: missing keys", test_bad_missing_keys},
        {"bad: model consistency", test_bad_model_consistency},
        {"bad: catalog ids", test_bad_catalog_ids},
        {"bad: precision the GPU lacks", test_bad_precision_for_gpu},
        {"bad: search lists", test_bad_search_lists},
        {"bad: capacity", test_bad_capacity},
        {"bad: hf_config", test_bad_hf_config},
        {"bad: plans", test_bad_plans},
        {"bad: files", test_bad_files},
        {"hf_config beside the problem file", test_load_resolves_hf_beside_problem},
        {NULL, NULL},
    };
    return pp_test_main("problem", tests);
}
