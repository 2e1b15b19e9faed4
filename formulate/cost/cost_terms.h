/*
 * cost_terms.h: floor 3 of the cost model, the terms: stage.c (a layer's
 * compute), cp.c, moe.c (ep), tp.c, pipeline.c (pp), dp.c (dp, ZeRO and the
 * optimizer) and memory.c.  They use floors 0-2 only, never each other;
 * step.c, alone on floor 4, composes them.
 */
#ifndef PARPLAN_COST_TERMS_H
#define PARPLAN_COST_TERMS_H

#include "cost_kernels.h"

/* --- stage.c ------------------------------------------------------------------ */

/* One layer's compute of one micro-batch on one GPU, and the logits'. */
typedef struct stage_layer {
    layer_kernels k;          /* its kernels (cp.c reads the attention's, a MoE layer the MLP's) */
    double layer_fwd_s;       /* a layer's forward */
    double layer_bwd_s;       /* its backward, without recomputation */
    double recompute_s;       /* what recomputation repeats of its forward */
    bool recompute_attention; /* the recomputation repeats the attention core (and its cp exchange) */
    double logits_fwd_s, logits_bwd_s; /* the output layer and the loss, on the last stage */
} stage_layer;
void stage_layer_eval(const pp_problem *prob, const pp_plan *plan, stage_layer *out);
/* A layer's and the logits' kernels (pp_stage_kernels) and the key of the
 * plans that share them (pp_form_stage_kernels_key); stage_layer_eval from
 * them. */
void stage_kernels_of(const pp_problem *prob, const pp_plan *plan, pp_stage_kernels *out);
void stage_kernels_key(const pp_plan *plan, pp_plan *key);
void stage_layer_of(const pp_problem *prob, const pp_plan *plan, const pp_stage_kernels *kernels, stage_layer *out);

/* --- cp.c --------------------------------------------------------------------- */

/* Ring attention of one layer (Transformer Engine's p2p context
 * parallelism): what its c steps cost beyond the one attention kernel. */
typedef struct cp_ring {
    double kv_bytes;   /* one step's K/V block (the backward sends dK/dV beside it) */
    double p2p_s;      /* one step's transfer of it, latency included */
    double slowdown;   /* a step's attention on its short block against the whole kernel's rate */
    double step_fwd_s; /* one step's forward: its share of the core, launch and merge */
    double step_bwd_s; /* and backward */
    double fwd_s;      /* the ring's forward beyond the attention forward: exposed seconds */
    double bwd_s;      /* and backward */
} cp_ring;
void cp_ring_eval(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k, cp_ring *out);
/* Its forward (*f) and backward (*b) exposed seconds. */
void cp_exchange_exposed(const pp_problem *prob, const pp_plan *plan, const layer_kernels *k, double *f,
                         double *b);

/* --- moe.c (ep) --------------------------------------------------------------- */

/* One MoE block on one GPU: its forward's compute and one pass's all-to-alls. */
typedef struct moe_block {
    double fwd_s;       /* compute of the MoE block's forward */
    double comm_s;      /* all-to-alls and expert-TP collectives of one pass */
    double fwd_extra_s; /* added to its forward once (to each forward under full recomputation): the fp8 store's cast */
    double bwd_extra_s; /* added to its backward once: the activation recomputed (moe_act), the fp8 store's cast back */
    double bytes_nvlink, bytes_network; /* of one pass */
} moe_block;
void moe_block_eval(const pp_problem *prob, const pp_plan *plan, moe_block *b);
/* Its forward's compute alone (fwd_s: the GEMMs and the permutation, which
 * read tp, cp, the micro-batch, ep and etp), and the block from it. */
double moe_block_compute_s(const pp_problem *prob, const pp_plan *plan);
void moe_block_of(const pp_problem *prob, const pp_plan *plan, double compute_s, moe_block *b);

/* tp.c, pipeline.c, dp.c, memory.c: their terms are public (costmodel.h). */

#endif
