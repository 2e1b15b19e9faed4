/*
 * names.c: the names of parplan's enumerations (see names.h).
 */
#include "names.h"

const char *const pp_precision_names[PP_PREC_COUNT] = {"bf16", "fp16", "fp8", "fp32"};
const char *const pp_recompute_names[PP_RECOMPUTE_COUNT] = {"none", "selective", "full"};
const char *const pp_tp_mode_names[PP_TP_MODE_COUNT] = {"1d", "2d", "2.5d", "3d"};
const char *const pp_dim_names[PP_DIM_COUNT] = {"dp", "tp", "pp", "params"};
const char *const pp_objective_names[PP_OBJECTIVE_COUNT] = {"min_step_time", "min_cost", "min_time", "min_gpus"};

static const char *name_or(const char *const *names, int n, int i)
{
    return (i >= 0 && i < n) ? names[i] : "?";
}

const char *pp_precision_name(pp_precision p) { return name_or(pp_precision_names, PP_PREC_COUNT, (int)p); }
const char *pp_recompute_name(pp_recompute r) { return name_or(pp_recompute_names, PP_RECOMPUTE_COUNT, (int)r); }
const char *pp_tp_mode_name(pp_tp_mode m) { return name_or(pp_tp_mode_names, PP_TP_MODE_COUNT, (int)m); }
const char *pp_dim_name(pp_dim d) { return name_or(pp_dim_names, PP_DIM_COUNT, (int)d); }
const char *pp_objective_name(pp_objective o) { return name_or(pp_objective_names, PP_OBJECTIVE_COUNT, (int)o); }
