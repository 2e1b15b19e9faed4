/*
 * train_log.c: step times from training logs, and the measurement row they
 * make (see train_log.h).
 */
#include "train_log.h"

#include "costmodel.h"
#include "decisions.h"
#include "error.h"
#include "json_util.h"
#include "names.h"
#include "nccl_log.h"
#include "shapes_json.h"
#include "text_number.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const FORMAT_NAMES[PP_TRAIN_LOG_FORMAT_COUNT] = {"unknown", "Megatron-LM", "NeMo", "torchtitan",
                                                                    "DeepSpeed"};

const char *pp_train_log_format_name(pp_train_log_format f)
{
    return f >= 0 && f < PP_TRAIN_LOG_FORMAT_COUNT ? FORMAT_NAMES[f] : "?";
}

/* The number after `label` (past spaces, one ':' or '=', spaces), with
 * thousands separators ("6,123"); *at (if not NULL) is where it starts. */
static bool number_after(const char *line, const char *label, double *out, const char **at)
{
    const char *p = strstr(line, label);
    if (!p)
        return false;
    p += strlen(label);
    while (*p == ' ')
        p++;
    if (*p == ':' || *p == '=')
        p++;
    while (*p == ' ')
        p++;
    if (at)
        *at = p;
    char num[64];
    size_t n = 0;
    for (; *p && n + 1 < sizeof num && (isdigit((unsigned char)*p) || strchr(".,eE+-", *p)); p++)
        if (*p != ',')
            num[n++] = *p;
    num[n] = '\0';
    char *end;
    double v = strtod(num, &end);
    if (end == num || !isfinite(v) || v < 0.0)
        return false;
    *out = v;
    return true;
}

/* A time or a rate: the number after `label`, when it is positive. */
static bool positive_after(const char *line, const char *label, double *out, const char **at)
{
    return number_after(line, label, out, at) && *out > 0.0;
}

typedef struct reader {
    const pp_problem *prob;
    pp_train_log *log;
    double last_global_step; /* NeMo's progress bar repeats a step: -1 if none */
    bool oom;
    const char *name;       /* the log, for a refusal's "FILE:LINE:COLUMN" */
    const char *line_start; /* the current line */
    int line;
    int rc;                 /* PP_EINPUT once a number is out of range */
    pp_error *err;
} reader;

/* One step report: its time, the number it was read from, and the rate it
 * was derived from (0 when the log prints the time itself). */
typedef struct step_report {
    double step_s, rate;
    const char *at;
} step_report;

static bool megatron_step(const char *s, step_report *r)
{
    double ms;
    if (!positive_after(s, "elapsed time per iteration (ms)", &ms, &r->at))
        return false;
    r->step_s = ms / 1e3;
    return true;
}

static bool nemo_step(const char *s, step_report *r)
{
    return positive_after(s, "train_step_timing in s", &r->step_s, &r->at) ||
           positive_after(s, "train_step_timing", &r->step_s, &r->at);
}

static bool titan_step(const reader *R, const char *s, step_report *r)
{
    double step;
    if (!number_after(s, "step:", &step, NULL) || !positive_after(s, "tps:", &r->rate, &r->at))
        return false;
    const pp_problem *p = R->prob;
    double gpus = (double)p->cluster.nodes * p->cluster.gpus_per_node;
    r->step_s = (double)p->training.global_batch * p->model.seq_len / gpus / r->rate;
    return true;
}

static bool deepspeed_step(const reader *R, const char *s, step_report *r)
{
    if (positive_after(s, "iter time (s)", &r->step_s, &r->at))
        return true;
    if (!positive_after(s, "samples/sec", &r->rate, &r->at) && !positive_after(s, "CurrSamplesPerSec", &r->rate, &r->at))
        return false;
    r->step_s = (double)R->prob->training.global_batch / r->rate;
    return true;
}

static bool step_of(const reader *R, pp_train_log_format f, const char *s, step_report *r)
{
    r->rate = 0.0;
    switch (f) {
    case PP_TRAIN_LOG_MEGATRON: return megatron_step(s, r);
    case PP_TRAIN_LOG_NEMO: return nemo_step(s, r);
    case PP_TRAIN_LOG_TORCHTITAN: return titan_step(R, s, r);
    case PP_TRAIN_LOG_DEEPSPEED: return deepspeed_step(R, s, r);
    default: return false;
    }
}

/* Whether a report's numbers are in range; else the log is refused. */
static bool report_in_range(reader *R, const step_report *r)
{
    pp_text_range_id bad = r->rate > 0.0 && !pp_text_in_range(PP_TEXT_RATE, r->rate) ? PP_TEXT_RATE
                           : !pp_text_in_range(PP_TEXT_STEP_S, r->step_s)          ? PP_TEXT_STEP_S
                                                                                     : PP_TEXT_RANGE_COUNT;
    if (bad == PP_TEXT_RANGE_COUNT)
        return true;
    R->rc = pp_text_refuse(R->err, R->name, R->line, (int)(r->at - R->line_start) + 1, bad, r->at);
    return false;
}

static void add_report(reader *R, double step_s, const char *s)
{
    pp_train_log *L = R->log;
    double gs;
    if (L->format == PP_TRAIN_LOG_NEMO && number_after(s, "global_step", &gs, NULL)) {
        if (gs == R->last_global_step && L->n > 0) { /* a refresh of the same step */
            L->step_s[L->n - 1] = step_s;
            return;
        }
        R->last_global_step = gs;
    }
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 64;
        double *p = realloc(L->step_s, (size_t)cap * sizeof *p);
        if (!p) {
            R->oom = true;
            return;
        }
        L->step_s = p;
        L->cap = cap;
    }
    L->step_s[L->n++] = step_s;
}

static void read_line(reader *R, char *line)
{
    R->line_start = line;
    const char *s = pp_log_line_text(line);
    step_report r;
    pp_train_log *L = R->log;
    if (L->format == PP_TRAIN_LOG_UNKNOWN) {
        for (int f = PP_TRAIN_LOG_MEGATRON; f < PP_TRAIN_LOG_FORMAT_COUNT; f++)
            if (step_of(R, (pp_train_log_format)f, s, &r)) {
                L->format = (pp_train_log_format)f;
                break;
            }
        if (L->format == PP_TRAIN_LOG_UNKNOWN)
            return;
    } else if (!step_of(R, L->format, s, &r))
        return;
    if (report_in_range(R, &r))
        add_report(R, r.step_s, s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(pp_train_log *L)
{
    L->warmup_skipped = L->n >= 6 ? 3 : L->n >= 2 ? 1 : 0;
    int m = L->n - L->warmup_skipped;
    double *v = malloc((size_t)m * sizeof *v);
    if (!v)
        return;
    memcpy(v, L->step_s + L->warmup_skipped, (size_t)m * sizeof *v);
    qsort(v, (size_t)m, sizeof *v, cmp_double);
    L->median_s = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    free(v);
    static const char *const HOW[PP_TRAIN_LOG_FORMAT_COUNT] = {
        "", "'elapsed time per iteration (ms)'", "'train_step_timing'",
        "global_batch * seq_len / GPUs / tps", "'iter time (s)', else global_batch / samples/sec"};
    snprintf(L->how, sizeof L->how, "%s", HOW[L->format]);
}

int pp_train_log_parse(const char *text, const char *name, const pp_problem *prob, pp_train_log *log, pp_error *err)
{
    memset(log, 0, sizeof *log);
    reader R = {prob, log, -1.0, false, name, NULL, 0, PP_OK, err};
    char *buf = strdup(text);
    if (!buf)
        return pp_error_set(err, PP_EINTERNAL, name, "out of memory");
    for (char *line = buf, *next; line && !R.oom && !R.rc; line = next) {
        size_t len = strcspn(line, "\r\n");
        next = line[len] ? line + len + (line[len] == '\r' && line[len + 1] == '\n' ? 2 : 1) : NULL;
        line[len] = '\0';
        R.line++;
        read_line(&R, line);
    }
    free(buf);
    if (R.rc) {
        pp_train_log_free(log);
        return R.rc;
    }
    if (R.oom)
        return pp_error_set(err, PP_EINTERNAL, name, "out of memory");
    if (log->n == 0)
        return pp_error_set(err, PP_EINPUT, name,
                            "no step time found: expected Megatron-LM 'elapsed time per iteration (ms):', NeMo "
                            "'train_step_timing', torchtitan 'step: ... tps:' or DeepSpeed 'iter time (s):' / "
                            "'samples/sec' lines");
    summarize(log);
    return PP_OK;
}

int pp_train_log_load(const char *path, const pp_problem *prob, pp_train_log *log, pp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(log, 0, sizeof *log);
    int rc = pp_read_file(path, &text, &len, err);
    if (!rc)
        rc = pp_train_log_parse(text, path, prob, log, err);
    free(text);
    return rc;
}

void pp_train_log_free(pp_train_log *log)
{
    free(log->step_s);
    memset(log, 0, sizeof *log);
}

/* ---- the row ----------------------------------------------------------------- */

/* Numbers of one object of the row, added in order. */
typedef struct num_field {
    const char *key;
    double value;
} num_field;

static void add_numbers(cJSON *o, const num_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cJSON_AddNumberToObject(o, f[i].key, f[i].value);
}

#define ADD_NUMBERS(o, fields) add_numbers((o), (fields), sizeof(fields) / sizeof((fields)[0]))

/* The model whole, as a problem's model object says it (shapes_json.c
 * pp_model_write: the MoE, latent-attention, window and router keys
 * too), with the multi-token-prediction modules the run trained. */
static cJSON *model_json(const pp_problem *prob)
{
    pp_model m = prob->model;
    m.mtp_layers = prob->training.mtp_layers;
    return pp_model_write(&m);
}

static cJSON *cluster_json(const pp_cluster *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->gpu.name);
    cJSON_AddStringToObject(o, "gpu", c->gpu.id);
    const num_field f[] = {
        {"gpu_memory_GB", c->gpu.memory_gib},
        {"gpus", (double)c->nodes * c->gpus_per_node},
        {"gpus_per_node", c->gpus_per_node},
        {"nodes", (double)c->nodes},
        {"intra_node_GBps", 2.0 * c->intra_node_GBps}, /* rows give both directions */
        {"inter_node_Gbps_per_gpu", c->inter_node_Gbps},
        {"inter_node_Gbps_per_node", c->inter_node_Gbps * c->gpus_per_node},
    };
    ADD_NUMBERS(o, f);
    return o;
}

/* The whole plan, by walking the decision table: every decision a row
 * states under a key of its own (t, p, d, cp, micro_batch, virtual_stages,
 * ep, etp, and recompute_modules by its name), then those the row reader derives from its own fields
 * (zero_stage, recompute, seq_parallel, tp_comm_overlap); a decision rows
 * have no field for (the TP grid, compression) is named in the notes when
 * it is not at its default (train_log_plan_note). */
static cJSON *config_json(const pp_problem *prob, const pp_plan *pl)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        if (!d->row_key)
            continue;
        int v = pp_decision_get(pl, d->id);
        if (d->kind == PP_DK_ENUM && d->names) /* a set of modules, as a plan names it */
            cJSON_AddStringToObject(o, d->row_key, d->names[v]);
        else
            cJSON_AddNumberToObject(o, d->row_key, v);
    }
    cJSON_AddNumberToObject(o, "global_batch", (double)prob->training.global_batch);
    cJSON_AddNumberToObject(o, "zero_stage", pl->zero);
    cJSON_AddStringToObject(o, "recompute", pp_recompute_name(pl->recompute));
    cJSON_AddBoolToObject(o, "seq_parallel", pl->sequence_parallel);
    cJSON_AddBoolToObject(o, "tp_comm_overlap", pl->tp_comm_overlap);
    cJSON_AddStringToObject(o, "precision", pp_precision_name(prob->training.precision));
    cJSON_AddStringToObject(o, "framework", pp_framework_name(prob->training.framework));
    /* the training settings the run priced, as rows state them
     * (measurements.c build_training reads them back) */
    const pp_training *t = &prob->training;
    cJSON_AddBoolToObject(o, "dp_overlap", t->dp_overlap);
    cJSON_AddBoolToObject(o, "tp_bwd_overlap", t->tp_bwd_overlap);
    cJSON_AddBoolToObject(o, "flash_attention", t->flash_attention);
    cJSON_AddBoolToObject(o, "fused_elementwise", t->fused_elementwise);
    cJSON_AddBoolToObject(o, "fused_norm", t->fused_norm);
    cJSON_AddBoolToObject(o, "compiled_loss", t->fused_loss);
    cJSON_AddBoolToObject(o, "scatter_gather", t->p2p_scatter_gather);
    cJSON_AddBoolToObject(o, "loss_parallel", !t->loss_gathered);
    cJSON_AddStringToObject(o, "attention_kernel", pp_attention_kernel_names[t->attention_kernel]);
    /* the type the plan reduces in: a DP bf16 cast is that reduction
     * (pp_plan_grad_reduce); and the held type where the problem states one */
    cJSON_AddStringToObject(o, "grad_reduce_dtype", pp_precision_name(pp_plan_grad_reduce(prob, pl)));
    if (t->grad_accum_given)
        cJSON_AddStringToObject(o, "grad_accum_dtype", t->grad_accum_bytes == 4 ? "fp32"
                                                       : t->precision == PP_PREC_FP16 ? "fp16" : "bf16");
    cJSON_AddStringToObject(o, "cuda_graphs", pp_cuda_graphs_names[t->cuda_graphs]);
    if (t->lora_rank > 0) {
        cJSON_AddNumberToObject(o, "lora_rank", t->lora_rank);
        cJSON_AddStringToObject(o, "lora_targets", pp_lora_targets_names[t->lora_targets]);
    }
    if (t->packed_sample_tokens > 0.0)
        cJSON_AddNumberToObject(o, "packed_sample_tokens", t->packed_sample_tokens);
    if (pp_precision_props(t->precision)->low_gemm) {
        cJSON_AddBoolToObject(o, "fp8_params", t->fp8_params);
        cJSON_AddBoolToObject(o, "fp8_activation_input_store", pl->fp8_act_store || t->fp8_act_store);
    }
    if (pp_model_is_moe(&prob->model)) {
        cJSON_AddStringToObject(o, "token_dispatcher", pp_moe_deepep(prob, pl) ? "deepep" : "alltoall");
        cJSON_AddBoolToObject(o, "moe_a2a_overlap", pp_moe_a2a_overlapped(prob, pl));
        if (t->moe_force_balance)
            cJSON_AddBoolToObject(o, "moe_force_balance", true);
        else
            cJSON_AddNumberToObject(o, "moe_load_imbalance", t->moe_load_imbalance);
    }
    return o;
}

/* The decisions a row has no field for, when not at their default. */
static void train_log_plan_note(const pp_problem *prob, const pp_plan *pl, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "model, cluster and config from the run's PROBLEM.json and PLAN.json");
    bool first = true;
    for (int i = 0; i < PP_DEC_COUNT && used < cap; i++) {
        const pp_decision *d = &pp_decisions[i];
        bool derived = d->id == PP_DEC_ZERO || d->id == PP_DEC_RECOMPUTE || d->id == PP_DEC_SEQUENCE_PARALLEL ||
                       d->id == PP_DEC_TP_OVERLAP;
        int v = pp_decision_get(pl, d->id);
        if (d->row_key || derived || v == d->def)
            continue;
        char val[64];
        used += (size_t)snprintf(buf + used, cap - used, "%s %s=%s", first ? "; the plan also ran (no row field for it):" : ",",
                                 d->key, pp_decision_value_text(prob, d, v, val, sizeof val));
        first = false;
    }
}

static cJSON *measured_json(const pp_train_log *L)
{
    cJSON *o = cJSON_CreateObject();
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", L->median_s);
    cJSON_AddNumberToObject(o, "iteration_s", strtod(buf, NULL));
    cJSON_AddNumberToObject(o, "step_reports", L->n);
    cJSON_AddNumberToObject(o, "warmup_reports_skipped", L->warmup_skipped);
    cJSON_AddStringToObject(o, "step_time_from", L->how);
    return o;
}

char *pp_train_log_rows_json(const pp_train_log *L, const char *path, const pp_problem *prob, const pp_plan *plan)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char text[512];
    cJSON *row = cJSON_CreateObject();
    snprintf(text, sizeof text, "log-%.200s", base);
    cJSON_AddStringToObject(row, "id", text);
    cJSON_AddStringToObject(row, "source_group", "training-log");
    cJSON_AddStringToObject(row, "fidelity", "high");
    cJSON *src = cJSON_AddObjectToObject(row, "source");
    snprintf(text, sizeof text, "%s training log", pp_train_log_format_name(L->format));
    cJSON_AddStringToObject(src, "name", text);
    cJSON_AddStringToObject(src, "ref", path);
    snprintf(text, sizeof text, "parplan calibrate --log: median of %d step-time reports after skipping %d of warm-up",
             L->n - L->warmup_skipped, L->warmup_skipped);
    cJSON_AddStringToObject(src, "via", text);
    cJSON_AddStringToObject(row, "kind", "measured");
    cJSON_AddItemToObject(row, "model", model_json(prob));
    cJSON_AddItemToObject(row, "cluster", cluster_json(&prob->cluster));
    cJSON_AddItemToObject(row, "config", config_json(prob, plan));
    cJSON_AddItemToObject(row, "measured", measured_json(L));
    char notes[512];
    train_log_plan_note(prob, plan, notes, sizeof notes);
    cJSON_AddStringToObject(row, "notes", notes);
    cJSON_AddItemToObject(row, "inferred", cJSON_CreateArray());
    cJSON *rows = cJSON_CreateArray();
    cJSON_AddItemToArray(rows, row);
    char *out = cJSON_Print(rows);
    cJSON_Delete(rows);
    return out;
}
