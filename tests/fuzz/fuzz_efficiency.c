/*
 * fuzz_efficiency.c: libFuzzer harness of the efficiency-file reader.
 *
 * The input is the text of an efficiency.json (what `parplan calibrate`
 * writes and `--efficiency` reads).  It is written to a scratch file and
 * applied to a copy of the catalog (pp_catalog_apply_efficiency): every
 * failure keeps the error contract, and whatever is accepted leaves every
 * GPU's efficiency inside its meaning (fractions in (0, 1], times finite and
 * not negative, the source a C string).
 */
#include "fuzz_common.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char eff_path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pp_fuzz_catalog();
    pp_fuzz_scratch_path("efficiency.json", eff_path, sizeof eff_path);
    return 0;
}

static bool efficiency_sane(const pp_efficiency *e)
{
    const double fractions[] = {e->gemm, e->attention, e->hbm, e->nvlink, e->network, e->gemm_misaligned,
                                e->cross_rail};
    const double amounts[] = {e->kernel_us, e->nvlink_latency_us, e->network_latency_us, e->gemm_k_overhead};
    for (size_t i = 0; i < sizeof fractions / sizeof fractions[0]; i++)
        if (!(fractions[i] > 0 && fractions[i] <= 1))
            return false;
    for (size_t i = 0; i < sizeof amounts / sizeof amounts[0]; i++)
        if (!(amounts[i] >= 0 && isfinite(amounts[i])))
            return false;
    return memchr(e->source, '\0', sizeof e->source) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_fuzz_write_scratch(eff_path, data, size);
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
    return 0;
}
