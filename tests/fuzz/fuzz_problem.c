/*
 * fuzz_problem.c: libFuzzer harness of the problem loader and validator.
 *
 * The input is the text of a PROBLEM.json.  It is parsed against the real
 * catalogs (pp_problem_parse); a problem that is accepted must be one the
 * rest of parplan can trust (positive sizes, a consistent model, a GPU that
 * supports the precision), and its decision space is built (pp_space_build,
 * the first step of `parplan plan`), which must end quickly and stay small
 * however large the cluster, the model or the batch.
 *
 * The same bytes are then read as the two other files a problem brings in:
 * a Hugging Face config.json (pp_model_from_hf, through "hf_config") and a
 * calibration file (pp_catalog_apply_efficiency, through --efficiency),
 * each written to a scratch file first, since both loaders read files.
 */
#include "fuzz_common.h"

#include "rules.h"
#include "shapes_json.h"
#include "space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char hf_path[64], eff_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pp_fuzz_catalog();
    /* tmpfs when there is one: a scratch file on disk costs more than the parse. */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(hf_path, sizeof hf_path, "%s/parplan-fuzz-%ld-config.json", dir, (long)getpid());
    snprintf(eff_path, sizeof eff_path, "%s/parplan-fuzz-%ld-efficiency.json", dir, (long)getpid());
    return 0;
}

static void write_scratch(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        pp_fuzz_fail("scratch file", path);
}

/* The input as a Hugging Face config.json.  Scratch files are removed at
 * once: libFuzzer ends with _Exit, which runs no atexit handler. */
static void parse_as_hf_config(const uint8_t *data, size_t size)
{
    write_scratch(hf_path, data, size);
    cJSON *obj = cJSON_CreateObject();
    if (!obj || !cJSON_AddStringToObject(obj, "hf_config", hf_path) || !cJSON_AddNumberToObject(obj, "seq_len", 2048))
        pp_fuzz_fail("hf_config", "out of memory");
    pp_jpath root = pp_jpath_root("problem.json");
    pp_jpath at = pp_jpath_key(&root, "model");
    pp_model m;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_model_from_hf(obj, &at, NULL, &m, &err);
    unlink(hf_path);
    pp_fuzz_check_outcome("pp_model_from_hf", rc, &err);
    if (rc == PP_OK && pp_model_validate(&m, &at, &err) != PP_OK)
        pp_fuzz_fail("pp_model_from_hf", "an accepted config whose model does not validate");
    cJSON_Delete(obj);
}

static bool efficiency_sane(const pp_efficiency *e)
{
    const double fractions[] = {e->gemm, e->attention, e->hbm, e->nvlink, e->network};
    const double times[] = {e->kernel_us, e->nvlink_latency_us, e->network_latency_us};
    for (size_t i = 0; i < sizeof fractions / sizeof fractions[0]; i++)
        if (!(fractions[i] > 0 && fractions[i] <= 1))
            return false;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (!(times[i] >= 0 && isfinite(times[i])))
            return false;
    return memchr(e->source, '\0', sizeof e->source) != NULL;
}

/* The input as a calibration file, applied to a copy of the catalog. */
static void parse_as_efficiency(const uint8_t *data, size_t size)
{
    write_scratch(eff_path, data, size);
    const pp_catalog *cat = pp_fuzz_catalog();
    pp_catalog copy = *cat;
    copy.gpus = malloc((size_t)cat->n_gpus * sizeof *copy.gpus);
    if (!copy.gpus)
        pp_fuzz_fail("efficiency", "out of memory");
    memcpy(copy.gpus, cat->gpus, (size_t)cat->n_gpus * sizeof *copy.gpus);
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_catalog_apply_efficiency(&copy, eff_path, &err);
    unlink(eff_path);
    pp_fuzz_check_outcome("pp_catalog_apply_efficiency", rc, &err);
    if (rc == PP_OK) {
        for (int i = 0; i < copy.n_gpus; i++)
            if (!efficiency_sane(&copy.gpus[i].eff))
                pp_fuzz_fail("pp_catalog_apply_efficiency", "an accepted efficiency out of range");
        if (!efficiency_sane(&copy.efficiency_default))
            pp_fuzz_fail("pp_catalog_apply_efficiency", "an accepted default efficiency out of range");
    }
    free(copy.gpus);
}

static void check_problem(const pp_problem *p)
{
    const pp_model *m = &p->model;
    if (m->layers < 1 || m->hidden < 1 || m->heads < 1 || m->kv_heads < 1 || m->ffn_hidden < 1 || m->vocab < 1 ||
        m->seq_len < 1 || m->head_dim < 0)
        pp_fuzz_fail("problem", "an accepted model with a size below 1");
    if ((!m->head_dim && m->hidden % m->heads) || m->heads % m->kv_heads)
        pp_fuzz_fail("problem", "an accepted model whose heads do not divide");
    if (p->training.global_batch < 1)
        pp_fuzz_fail("problem", "an accepted global batch below 1");
    if (p->has_cluster) {
        if (pp_problem_gpus(p) < 1)
            pp_fuzz_fail("problem", "an accepted cluster without GPUs");
        if (!(p->cluster.gpu.peak_tflops[p->training.precision] > 0) || !(p->cluster.gpu.memory_gib > 0))
            pp_fuzz_fail("problem", "an accepted GPU without a peak or memory for the precision");
    } else if (!p->capacity.present) {
        pp_fuzz_fail("problem", "an accepted problem with neither a cluster nor a capacity section");
    }
    if (p->n_codecs < 1 || p->n_codecs > PP_MAX_CODECS)
        pp_fuzz_fail("problem", "a codec table of the wrong size");
}

static void build_space(const pp_problem *p)
{
    pp_space space;
    pp_error err;
    pp_error_clear(&err);
    int rc = pp_space_build(p, &space, &err);
    pp_fuzz_check_outcome("pp_space_build", rc, &err);
    if (rc == PP_OK) {
        for (int i = 0; i < space.n_shapes; i++)
            if (pp_plan_check(p, &space.shapes[i].base, NULL) != PP_OK)
                pp_fuzz_fail("pp_space_build", "a shape of the space breaks a rule");
        if (space.n_shapes == 0 && !space.empty_reason[0])
            pp_fuzz_fail("pp_space_build", "an empty space without a reason");
    }
    pp_space_free(&space);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pp_fuzz_text(data, size);
    if (pp_fuzz_hf_paths_safe(text)) {
        pp_problem p;
        pp_error err;
        pp_error_clear(&err);
        int rc = pp_problem_parse(text, "problem.json", pp_fuzz_hf_dir(), pp_fuzz_catalog(), &p, &err);
        pp_fuzz_check_outcome("pp_problem_parse", rc, &err);
        if (rc == PP_OK) {
            check_problem(&p);
            if (p.has_cluster)
                build_space(&p);
        }
    }
    parse_as_hf_config(data, size);
    parse_as_efficiency(data, size);
    free(text);
    return 0;
}
