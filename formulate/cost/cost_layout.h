/*
 * cost_layout.h: floor 1 of the cost model, the layout (layout.c): where a
 * plan's layers and ranks sit and what one GPU of a stage holds.  It uses
 * the ground (cost_ground.h) only.
 */
#ifndef PARPLAN_COST_LAYOUT_H
#define PARPLAN_COST_LAYOUT_H

#include "cost_ground.h"

/* The grid of a checked plan's tensor parallelism (built by grid_of):
 * side q, depth d, and how it divides a layer's token rows and weights on
 * one GPU. */
typedef struct tp_grid {
    pp_tp_mode mode;
    double t, q, d;
    double rows;   /* token rows split: 1 (1D), q (2D), d q (2.5D), q^2 (3D) */
    double wshard; /* weights split: t (1D, 2D, 3D), q^2 (2.5D: replicated over the d layers) */
} tp_grid;

/* Transformer layers on one pipeline stage, L / p. */
int layers_per_stage(const pp_problem *prob, const pp_plan *plan); /* the most layers on any stage */
int layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage); /* stage 0, a middle one, pp-1 */
/* MoE layers among the layers a pipeline stage holds. */
int moe_layers_on_stage(const pp_problem *prob, const pp_plan *plan, int stage);
/* Both of stage `stage` from a split pp_stage_layers made (ok: it could),
 * for a caller that walks every stage of one split. */
void stage_counts_of_split(const pp_problem *prob, const pp_plan *plan, const pp_stage_split *sp, bool ok, int stage,
                           int *n, int *n_moe);
/* moe_stage_params of a stage of n layers, nm of them MoE, and (*expert)
 * its routed experts' share (stage_expert_params). */
double moe_stage_params_of(const pp_problem *prob, const pp_plan *plan, int stage, int n, int nm, double *expert);
/* The cost of a pipeline fill or drain slot from the total of every stage
 * and the slowest. */
double pipeline_bubble_slot_s(const pp_plan *plan, double all_stages_s, double slowest_s);
/* Whether a group of `size` ranks, `stride` apart, spans more than one node. */
bool group_inter_node(const pp_problem *prob, long stride, long size);
/* How many ranks of that group share a node (k of the collectives). */
long ranks_per_node(const pp_problem *prob, long stride, long size);
/* The expert-data-parallel group: n ranks, k of them per node. */
void moe_expert_dp_group(const pp_problem *prob, const pp_plan *plan, long *n, long *k);
/* The grid of a plan: 1D is q = t, d = 1, rows 1, weights split by t. */
tp_grid grid_of(const pp_plan *plan);
/* The share of the vocabulary whose logits one GPU turns into the loss: 1/t
 * (training.loss_parallel) or all of it. */
double pp_loss_vocab_share(const pp_training *t, const pp_plan *plan);
/* Embedding parameters of a stage (the input table on stage 0, the output
 * table or its tied copy on the last), before tensor parallelism. */
double stage_embedding_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Parameters one GPU of a stage holds before ZeRO partitions them. */
double stage_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Of them, those that train: all, or with LoRA only the adapters. */
double stage_trainable_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Routed-expert parameters one GPU of a stage holds (sharded by ep and
 * etp); 0 for a dense model. */
double stage_expert_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* Parameters one GPU of a MoE model's stage holds, experts included. */
double moe_stage_params(const pp_problem *prob, const pp_plan *plan, int stage);
/* The busiest expert's load over the mean under a plan (training.moe_load_imbalance, 1.2 unless
 * set). */
double moe_load_imbalance(const pp_problem *prob, const pp_plan *plan);

#endif
