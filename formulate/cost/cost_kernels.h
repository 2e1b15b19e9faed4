/*
 * cost_kernels.h: floor 2 of the cost model, the prices of the units every
 * term is made of: kernels.c (a GEMM, a layer's kernels), collectives.c (a
 * collective, a transfer, a codec) and states.c (the model states a GPU
 * holds).  They use the layout and the ground only, never each other.
 */
#ifndef PARPLAN_COST_KERNELS_H
#define PARPLAN_COST_KERNELS_H

#include "cost_layout.h"

/* --- kernels.c ---------------------------------------------------------------- */

/* Roofline time of one (M x K) @ (K x N) matrix multiply. */
double gemm_time_s(const pp_problem *prob, double M, double K, double N);
/* batch (m x k) @ (k x n) products of a transformer block: the recipe's
 * format, blended with bf16 over the blocks the recipe keeps in bf16 */
double layer_gemm_s(const pp_problem *prob, double m, double n, double k, double batch);
/* The backward of a linear layer of input M x K and weight K x N: the data
 * gradient's (M x N) @ (N x K) product, plus the weight gradient's
 * (K x M) @ (M x N) unless the weight is frozen. */
double linear_bwd_s(const pp_problem *prob, double M, double K, double N, bool frozen);
/* The output layer's (LM head's) forward and backward: in 16 bits under
 * every fp8 and fp4 recipe, as the frameworks run it. */
double head_gemm_s(const pp_problem *prob, double M, double K, double N);
double head_bwd_s(const pp_problem *prob, double M, double K, double N, bool frozen);
/* That multiply as one GPU of grid g runs it (1D: N split by t). */
double grid_gemm_s(const pp_problem *prob, const tp_grid *g, double M, double K, double N);
/* Multi-head latent attention: the query and key/value projections of one
 * layer's forward on one GPU of a 1D tensor group of t (down-projections
 * replicated, up-projections split by t). */
double mla_qkv_gemm_s(const pp_problem *prob, double tokens, double t);
/* A low-precision recipe's cast of `elements` 16-bit GEMM inputs in
 * `tensors` tensors to the recipe's format, row- and column-wise (0 in a
 * 16-bit recipe). */
double lowp_cast_s(const pp_problem *prob, double elements, double tensors);

/* The share of its long-sequence rate the problem's fused attention kernel
 * reaches when its queries attend `keys` keys on average (a tile's fixed
 * cost, worth attention_tile_keys keys: the implementation's). */
double attention_tile_keys(const pp_problem *prob);
double attention_tile_share(const pp_problem *prob, double keys);
double attention_causal_share(const pp_model *m, double span); /* of the full square a fused kernel runs */
/* The share of its rate at head dimension 128 a fused kernel k
 * (FlashAttention-2 or -3 class) reaches on heads padded to `padded`, in
 * the forward or the backward (the softmax's work per score element). */
double attention_head_dim_share(const pp_gpu *gpu, pp_attention_kernel k, double padded, bool backward);

/* The forward kernels of one layer's micro-batch on one GPU (pp_layer_kernels, costmodel.h). */
typedef pp_layer_kernels layer_kernels;
void layer_kernels_fwd(const pp_problem *prob, const pp_plan *plan, layer_kernels *k);

/* --- collectives.c ------------------------------------------------------------ */

/* Fraction of the buffer one rank sends in a ring collective of n ranks. */
double ring_factor(pp_collective kind, long n);
/* The codec dimension `dim` of the plan uses on a message of `bytes`, or
 * NULL (no codec, or the message is under the threshold). */
const pp_codec *codec_for(const pp_problem *prob, const pp_plan *plan, pp_dim dim, double bytes);
/* Compression plus decompression seconds of raw_bytes on the problem's GPU
 * (0 without codec). */
double codec_time_s(const pp_problem *prob, const pp_codec *codec, double raw_bytes, double value_bits);
/* Bytes of a collective's buffer the codec processes (ring chunks, or the
 * buffer once for a cast). */
double codec_bytes(const pp_codec *codec, pp_collective kind, double bytes, long n);
/* Codec seconds a transfer of wire_s adds when MVAPICH pipelines codec_s
 * over chunks of raw_bytes (casts: all of codec_s). */
double codec_exposed_s(const pp_problem *prob, const pp_codec *codec, double wire_s, double codec_s,
                       double raw_bytes);
/* Add `count` collectives of `bytes`, each issued as `pieces` pieces, with
 * the plan's codec of `dim`, to acc: wire and codec time, bytes per link. */
void compressed_collective(const pp_problem *prob, const pp_plan *plan, pp_dim dim,
                           pp_collective kind, double bytes, double value_bits, long n, long k,
                           pp_comm_term *acc, double count, double pieces);
/* The same; one_collective false for an all-reduce that stands for a
 * reduce-scatter and an all-gather of the buffer (sequence-parallel TP,
 * ZeRO-1/2's halves): those run as rings, neither NVLink SHARP nor the tree
 * runs them (collectives.c). */
void compressed_collective_as(const pp_problem *prob, const pp_plan *plan, pp_dim dim, pp_collective kind,
                              double bytes, double value_bits, long n, long k, pp_comm_term *acc, double count,
                              double pieces, bool one_collective);

/* states.c: pp_model_state_bytes, pp_state_bytes_per_param, pp_mem_states_gib (costmodel.h). */

#endif
