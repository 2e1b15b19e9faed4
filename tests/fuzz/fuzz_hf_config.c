/*
 * fuzz_hf_config.c: libFuzzer harness of the Hugging Face config.json reader.
 *
 * The input is the text of a config.json, as a model hub serves it (dense,
 * MoE, MLA, nested text_config).  It is written to a scratch file and read
 * through a problem's "hf_config" (pp_model_from_hf, with seq_len given):
 * every failure keeps the error contract, and a model that is accepted must
 * validate (pp_model_validate) and price its parameters to a finite,
 * positive count.
 */
#include "fuzz_common.h"

#include "costmodel.h"
#include "shapes_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <unistd.h>

static char hf_path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pp_fuzz_scratch_path("config.json", hf_path, sizeof hf_path);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_fuzz_write_scratch(hf_path, data, size);
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
    if (rc == PP_OK) {
        if (pp_model_validate(&m, &at, &err) != PP_OK)
            pp_fuzz_fail("pp_model_from_hf", "an accepted config whose model does not validate");
        double params = pp_model_params(&m);
        pp_fuzz_check_positive("pp_model_params of an accepted config", &params, 1);
    }
    cJSON_Delete(obj);
    return 0;
}
