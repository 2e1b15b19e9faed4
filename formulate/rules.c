/*
 * rules.c: the hard rules of a valid plan (see rules.h).
 *
 * Each rule is one small function; the table at the bottom fixes the order in
 * which they are tried, so the first broken rule is the one reported.
 */
#include "rules.h"

#include "error.h"
#include "problem.h"

typedef int (*rule_fn)(const pp_problem *prob, const pp_plan *plan, pp_error *err);

long pp_cluster_gpus(const pp_problem *prob)
{
    return (long)prob->cluster.gpus_per_node * prob->cluster.nodes;
}

static int rule_positive(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    (void)prob;
    const struct { const char *name; int v; } f[] = {
        {"tp", pl->tp}, {"pp", pl->pp}, {"dp", pl->dp}, {"cp", pl->cp},
        {"micro_batch", pl->micro_batch}, {"virtual_stages", pl->virtual_stages},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v < 1)
            return pp_error_set(err, PP_EINPUT, "plan", "%s must be at least 1, found %d", f[i].name, f[i].v);
    if (pl->zero < 0 || pl->zero > 3)
        return pp_error_set(err, PP_EINPUT, "plan", "zero must be 0, 1, 2 or 3, found %d", pl->zero);
    return PP_OK;
}

static int rule_gpu_count(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    long used = (long)pl->tp * pl->pp * pl->dp * pl->cp, have = pp_cluster_gpus(prob);
    if (used != have)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "gpu count: tp*pp*dp*cp = %d*%d*%d*%d = %ld, but the cluster has %ld GPUs",
                            pl->tp, pl->pp, pl->dp, pl->cp, used, have);
    return PP_OK;
}

static int rule_tp_divides_heads(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    const pp_model *m = &prob->model;
    if (m->heads % pl->tp || m->kv_heads % pl->tp)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: tp=%d must divide heads=%d and kv_heads=%d", pl->tp, m->heads,
                            m->kv_heads);
    if (m->ffn_hidden % pl->tp)
        return pp_error_set(err, PP_EINPUT, "plan", "divisibility: tp=%d must divide ffn_hidden=%d", pl->tp,
                            m->ffn_hidden);
    return PP_OK;
}

static int rule_tp_in_node(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    int gpn = prob->cluster.gpus_per_node;
    if (!prob->allow_tp_across_nodes && (pl->tp > gpn || gpn % pl->tp))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "placement: tp=%d must divide the %d GPUs of a node (tensor parallelism stays "
                            "inside a node unless constraints.allow_tp_across_nodes is true)",
                            pl->tp, gpn);
    return PP_OK;
}

static int rule_layers_split(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    long chunks = (long)pl->pp * pl->virtual_stages;
    if (prob->model.layers % chunks)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: pp*virtual_stages = %d*%d = %ld must divide layers=%d", pl->pp,
                            pl->virtual_stages, chunks, prob->model.layers);
    if (pl->virtual_stages > 1 && pl->pp < 2)
        return pp_error_set(err, PP_EINPUT, "plan", "interleaving: virtual_stages=%d needs pp >= 2",
                            pl->virtual_stages);
    return PP_OK;
}

static int rule_sequence_split(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    if (pl->cp > 1 && prob->model.seq_len % (2 * pl->cp))
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: 2*cp = %d must divide seq_len=%d (load-balanced causal ring)",
                            2 * pl->cp, prob->model.seq_len);
    if (pl->sequence_parallel && pl->tp < 2)
        return pp_error_set(err, PP_EINPUT, "plan", "sequence_parallel needs tp >= 2");
    return PP_OK;
}

static int rule_batch_split(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    long per = (long)pl->dp * pl->micro_batch;
    long m = per > 0 ? prob->training.global_batch / per : 0;
    if (per <= 0 || prob->training.global_batch % per)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "divisibility: dp*micro_batch = %d*%d = %ld must divide global_batch=%ld", pl->dp,
                            pl->micro_batch, per, prob->training.global_batch);
    if (pl->virtual_stages > 1 && m % pl->pp)
        return pp_error_set(err, PP_EINPUT, "plan",
                            "interleaving: the %ld micro-batches per pipeline must be a multiple of pp=%d",
                            m, pl->pp);
    return PP_OK;
}

static int rule_tp_mode(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    (void)prob;
    if (pl->tp_mode != PP_TP_1D)
        return pp_error_set(err, PP_EINPUT, "plan.tp_mode",
                            "tp_mode '%s' is not modelled by this version; use \"1d\"", pp_tp_mode_name(pl->tp_mode));
    return PP_OK;
}

static int rule_codecs(const pp_problem *prob, const pp_plan *pl, pp_error *err)
{
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        int i = pl->codec[d];
        if (i < 0 || i >= prob->n_codecs)
            return pp_error_set(err, PP_EINPUT, "plan.compression", "codec index %d of %s is out of range", i,
                                pp_dim_name((pp_dim)d));
        const pp_codec *c = &prob->codecs[i];
        if (c->lossy && c->rel_error > prob->error_tolerance[d])
            return pp_error_set(err, PP_EINPUT, "plan.compression",
                                "accuracy: codec '%s' adds relative error %g to %s traffic, above its "
                                "tolerance %g (constraints.error_tolerance.%s)",
                                c->id, c->rel_error, pp_dim_name((pp_dim)d), prob->error_tolerance[d],
                                pp_dim_name((pp_dim)d));
    }
    return PP_OK;
}

static const rule_fn RULES[] = {
    rule_positive,  rule_gpu_count,    rule_tp_divides_heads, rule_tp_in_node, rule_layers_split,
    rule_sequence_split, rule_batch_split, rule_tp_mode,       rule_codecs,
};

int pp_plan_check(const pp_problem *prob, const pp_plan *plan, pp_error *err)
{
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++) {
        int rc = RULES[i](prob, plan, err);
        if (rc)
            return rc;
    }
    return PP_OK;
}
