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
 * The two other files a problem brings in have harnesses of their own:
 * fuzz_hf_config.c (a Hugging Face config.json, through "hf_config") and
 * fuzz_efficiency.c (a calibration file, through --efficiency).
 */
#include "fuzz_common.h"

#include "rules.h"
#include "shapes_json.h"
#include "space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pp_fuzz_catalog();
    return 0;
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
    free(text);
    return 0;
}
