/*
 * test_cost_pipeline.c: pipeline parallelism (formulate/cost/pipeline.c):
 * micro-batches, the 1F1B bubble and the sends between stages, by hand.
 */
#include "cost_layout.h"
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

#include <stdlib.h>

/* Pipeline: 2 v sends per micro-batch of b (s/c) h 16-bit values split by
 * tp, each alpha + bytes / bandwidth on the link between stages; under
 * Megatron-Core's interleaved schedule (overlap_p2p_comm) they move behind
 * the chunks' compute: the same bytes, none of the time exposed. */
static void test_pipeline_sends(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 4, 64);
    pp_plan pl = pp_test_plan(8, 4, 1, 1, 2); /* one stage per node: sends cross the network */
    pl.sequence_parallel = true;              /* each TP rank holds and sends s/t tokens */
    pp_comm_term t;
    pp_term_pp_comm(&p, &pl, &t);
    double bytes = 2.0 * 2 * 4096 * 4096 / 8;
    double one = 10e-6 + bytes / (400e9 / 8 * 0.8);
    PP_REL_EQ(t.wire_s, 2 * one, 1e-12);
    CU_ASSERT(t.inter_node);
    PP_REL_EQ(t.bytes_network, 2 * bytes, 1e-12);
    pl.virtual_stages = 2;
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training); /* the paper's interleaving: on the critical path */
    pp_term_pp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 4 * one, 1e-12);
    pp_framework_features(PP_FW_MEGATRON_CORE, &p.training);
    pp_term_pp_comm(&p, &pl, &t);
    CU_ASSERT_DOUBLE_EQUAL(t.wire_s, 0.0, 0.0);
    PP_REL_EQ(t.bytes_network, 4 * bytes, 1e-12);
    /* without sequence parallelism Megatron-Core's TP ranks each send the
     * whole activation; Megatron-LM 2021 scattered it (1/t a rank) and
     * all-gathered it over NVLink at the receiver (Narayanan et al. 2021 §4.1) */
    pl.virtual_stages = 1;
    pl.sequence_parallel = false;
    pp_term_pp_comm(&p, &pl, &t);
    double whole = 10e-6 + 8 * bytes / (400e9 / 8 * 0.8);
    PP_REL_EQ(t.wire_s, 2 * whole, 1e-12);
    PP_REL_EQ(t.bytes_network, 2 * 8 * bytes, 1e-12);
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training);
    pp_term_pp_comm(&p, &pl, &t);
    double gather = 7 * bytes / (450e9 * 0.9) + 7 * 5e-6; /* a ring of 8 over NVLink */
    PP_REL_EQ(t.wire_s, 2 * (one + gather), 1e-12);
    PP_REL_EQ(t.bytes_network, 2 * bytes, 1e-12);
    PP_REL_EQ(t.bytes_nvlink, 2 * 7 * bytes, 1e-12);
    p.training.p2p_scatter_gather = false; /* --no-scatter-gather-tensors-in-pipeline */
    pp_term_pp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 2 * whole, 1e-12);
    pp_framework_features(PP_FW_DEEPSPEED, &p.training); /* DeepSpeed partitions its pipeline tensors */
    pp_term_pp_comm(&p, &pl, &t);
    PP_REL_EQ(t.wire_s, 2 * (one + gather), 1e-12);
    /* the whole pipeline in one node: NVLink */
    pp_problem q = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 64);
    pp_plan in = pp_test_plan(2, 4, 1, 1, 2);
    in.sequence_parallel = true;
    pp_term_pp_comm(&q, &in, &t);
    PP_REL_EQ(t.wire_s, 2 * (5e-6 + 2.0 * 2 * 4096 * 4096 / 2 / (450e9 * 0.9)), 1e-12);
    CU_ASSERT(!t.inter_node);
}

/* Narayanan et al. 2021 Fig. 18: the scatter/gather optimization raises the
 * throughput of GPT-3 175B on 96 A100s (t 8, p 12, interleaved) by up to
 * 11 %, most at large batches, where the interleaved schedule sends most. */
static void test_scatter_gather_fig18(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 12, 60);
    pp_framework_features(PP_FW_MEGATRON_2021, &p.training);
    pp_plan pl = pp_test_plan(8, 12, 1, 1, 1);
    pl.virtual_stages = 4;
    pl.recompute = PP_RECOMPUTE_FULL;
    pp_eval sg, nosg;
    pp_evaluate(&p, &pl, &sg);
    p.training.p2p_scatter_gather = false;
    pp_evaluate(&p, &pl, &nosg);
    double gain = nosg.time.step_s / sg.time.step_s - 1.0;
    CU_ASSERT(gain > 0.03 && gain < 0.15);
}

/* Pipeline: m slots of the slowest stage and (p-1)/v fill and drain slots
 * that cost the mean of the other stages (a pipeline's makespan is m x the
 * slowest stage + the sum of the others).  With an even split the others
 * are the last stage without its logits and loss. */
static void test_bubble(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_plan pl = pp_test_plan(8, 16, 8, 1, 1);
    CU_ASSERT_EQUAL(pp_microbatches(&p, &pl), 192);
    PP_REL_EQ(pp_pipeline_factor(&p, &pl), 192 + 15.0, 1e-15);
    pl.virtual_stages = 3;
    PP_REL_EQ(pp_pipeline_factor(&p, &pl), 192 + 5.0, 1e-15);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    pp_dp_term dp; /* the gradient accumulation is in the computation, outside the pipeline's slots */
    pp_term_dp_comm(&p, &pl, &dp);
    double slot = (ev.time.compute_s - dp.accum_s + ev.time.tp_comm_s + ev.time.pp_comm_s + ev.time.cp_comm_s) / 192;
    pp_stage_term st, none;
    pp_term_stage(&p, &pl, &st);
    double logits = st.total_s - st.bubble_s;
    CU_ASSERT(logits > 0.0);
    PP_REL_EQ(ev.time.bubble_s, 5.0 * (slot - logits), 1e-9);
    /* the gap is the logits and the loss: with a vocabulary of 128 the last
     * stage is nearly a middle one */
    pp_problem q = p;
    q.model.vocab = 128;
    pp_term_stage(&q, &pl, &none);
    CU_ASSERT(none.total_s - none.bubble_s < 0.1 * logits);
}

/* Megatron-Core's interleaved schedule runs m micro-batches in groups of N
 * in [pp, m], the last group whole or at least pp long (schedules.py at
 * core_v0.15.0); the default N = pp needs m a multiple of pp.  A larger
 * group adds (v - 1)(N - pp) warm-up forwards to what stage 0 holds. */
static void test_microbatch_groups(void)
{
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 2, 128), 16);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 2, 120), 20);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(4, 2, 10), 5);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(4, 2, 6), 6);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(4, 2, 7), 7);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 2, 8), 0);
    CU_ASSERT_EQUAL(pp_vp_microbatch_group(16, 1, 8), 16); /* no interleaving: no groups */
    /* GPT-3 on 8 stages of 2 chunks: 48 micro-batches (groups of 8) against
     * 44 (groups of 11): stage 0 holds 3 more micro-batches' chunks */
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
    pp_plan pl = pp_test_plan(8, 8, 16, 1, 2);
    pl.virtual_stages = 2;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &pl, &err), PP_OK);
    double a = pp_mem_activations_gib(&p, &pl, 0);
    p.training.global_batch = 16 * 2 * 44;
    CU_ASSERT_EQUAL(pp_microbatches(&p, &pl), 44);
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    double b = pp_mem_activations_gib(&p, &pl, 0);
    /* held chunk-micro-batches: 2 (8-1) + (2-1) N + 1, over v = 2; the
     * layers' activations grow by at most that ratio (the stage's other
     * buffers do not) */
    CU_ASSERT(b > a);
    CU_ASSERT(b / a < (14.0 + 11.0 + 1.0) / (14.0 + 8.0 + 1.0) + 1e-9);
}

/* DeepSpeed's pipeline engine (and Aleph Alpha's Scaling, which runs a copy
 * of its schedule) sends and receives with blocking calls, so a stage's
 * send completes only when its neighbour reaches the matching receive.
 * Its TrainSchedule (deepspeed/runtime/pipe/schedule.py,
 * _step_to_micro_batch) runs 2 (m + p - 1) steps: at each, an even stage
 * runs a forward on even steps and a backward on odd ones, an odd stage
 * the reverse; before the forward it receives the activation and sends
 * the previous micro-batch's gradient back, before the backward it sends
 * the previous activation on and receives the gradient. */
#define DS_MAX_OPS 4096
typedef struct ds_op {
    char kind; /* F, B; a/A: receive/send an activation, g/G: receive/send a gradient */
    int mb;
} ds_op;

static int ds_schedule(int m, int p, int s, ds_op *ops)
{
    int n = 0, prev = -1;
    for (int t = 0; t < 2 * (m + p - 1); t++) {
        bool fwd = (t % 2) == (s % 2);
        int mb = fwd ? (t - s % 2) / 2 - s / 2 : (t % 2 == 0 ? t / 2 - p + (s + 1) / 2 : (t - 1) / 2 - p + 1 + s / 2);
        bool valid = mb >= 0 && mb < m, prev_valid = prev >= 0 && prev < m;
        if (fwd) {
            if (valid && s > 0)
                ops[n++] = (ds_op){'a', mb};
            if (prev_valid && s > 0)
                ops[n++] = (ds_op){'G', prev};
        } else {
            if (prev_valid && s < p - 1)
                ops[n++] = (ds_op){'A', prev};
            if (valid && s < p - 1)
                ops[n++] = (ds_op){'g', mb};
        }
        if (valid)
            ops[n++] = (ds_op){fwd ? 'F' : 'B', mb};
        prev = mb;
    }
    return n;
}

/* The makespan of that schedule with blocking transfers of no duration, -1
 * if it deadlocks (it must not). */
static double ds_makespan(int m, int p, const double *fwd, const double *bwd)
{
    if (p < 2 || p > 16 || m < 1 || 6 * (m + p) > DS_MAX_OPS)
        return -1.0;
    ds_op(*ops)[DS_MAX_OPS] = calloc((size_t)p, sizeof *ops);
    if (!ops)
        return -1.0;
    int n[16] = {0}, pc[16] = {0};
    double clock[16] = {0};
    for (int s = 0; s < p; s++)
        n[s] = ds_schedule(m, p, s, ops[s]);
    for (bool progressed = true; progressed;) {
        progressed = false;
        for (int s = 0; s < p; s++) {
            if (pc[s] >= n[s])
                continue;
            ds_op op = ops[s][pc[s]];
            if (op.kind == 'F' || op.kind == 'B') {
                clock[s] += op.kind == 'F' ? fwd[s] : bwd[s];
                pc[s]++;
                progressed = true;
                continue;
            }
            /* the partner stage and the operation it must be at */
            int q = (op.kind == 'A' || op.kind == 'g') ? s + 1 : s - 1;
            char want = op.kind == 'A' ? 'a' : op.kind == 'a' ? 'A' : op.kind == 'G' ? 'g' : 'G';
            if (pc[q] < n[q] && ops[q][pc[q]].kind == want && ops[q][pc[q]].mb == op.mb) {
                clock[s] = clock[q] = fmax(clock[s], clock[q]);
                pc[s]++;
                pc[q]++;
                progressed = true;
            }
        }
    }
    double end = 0.0;
    for (int s = 0; s < p; s++) {
        if (pc[s] < n[s])
            end = -1.0;
        else if (end >= 0.0)
            end = fmax(end, clock[s]);
    }
    free(ops);
    return end;
}

/* The model prices that engine as 1F1B (docs/cost-model.md, known limits):
 * m slots of the slowest stage and one of each other stage (the bubble,
 * pipeline_bubble_slot_s).  Simulated instruction by instruction, the
 * blocking schedule never takes longer, whatever its stages' forward and
 * backward times, and takes exactly that with equal stages: the lockstep
 * costs nothing by itself (only the transfers, priced apart). */
static void test_blocking_schedule(void)
{
    pp_rng r = {0xDEEB5EEDULL};
    double worst = 0.0;
    for (int trial = 0; trial < 300; trial++) {
        int p = pp_rng_int(&r, 2, 12), m = pp_rng_int(&r, p, 64);
        bool equal = trial % 3 == 0;
        double fwd[16], bwd[16], all = 0.0, slowest = 0.0;
        for (int s = 0; s < p; s++) {
            fwd[s] = equal ? 1.0 : pp_rng_uniform(&r, 0.5, 2.0);
            bwd[s] = fwd[s] * (equal ? 3.0 : pp_rng_uniform(&r, 1.5, 3.5));
            all += fwd[s] + bwd[s];
            slowest = fmax(slowest, fwd[s] + bwd[s]);
        }
        pp_plan plan = {.pp = p, .virtual_stages = 1};
        double priced = m * slowest + (p - 1) * pipeline_bubble_slot_s(&plan, all, slowest);
        double run = ds_makespan(m, p, fwd, bwd);
        CU_ASSERT_FATAL(run > 0.0); /* no deadlock */
        CU_ASSERT(run <= priced * (1.0 + 1e-12));
        if (equal)
            PP_REL_EQ(run, (m + p - 1) * 4.0, 1e-12);
        worst = fmax(worst, 1.0 - run / priced);
    }
    printf("\n    the blocking schedule runs up to %.1f %% under the priced makespan with unequal stages ", 100.0 * worst);
}

/* The chunk forwards a pipeline rank runs before its first backward (and
 * the backwards it runs alone at the end): what memory holds at the peak
 * and what the combined 1F1B schedule cannot pair.  DeepSeek-V3 in MLPerf
 * v6.0 (pp 4, v 4, groups of 4): rank 0 runs 2 (4-1) + (4-1) 4 + 1 = 19
 * of its 16 x 4 chunks alone at 16 micro-batches a step, the last rank
 * 13; 1F1B p - i, at most m; m == p interleaved runs every forward first;
 * one rank without a pipeline runs the first forward alone. */
static void test_warmup_chunks(void)
{
    pp_plan pl = {.pp = 4, .virtual_stages = 4};
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 0, 16), 19);
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 3, 16), 13);
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 0, 240), 19);
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 0, 4), 16); /* m == p: all 4 x 4 */
    pl.virtual_stages = 1;
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 0, 16), 4);
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 3, 16), 1);
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 0, 2), 2);
    pl.pp = 1;
    CU_ASSERT_EQUAL(pp_warmup_chunks(&pl, 0, 8), 1);
}

int main(void)
{
    const pp_test tests[] = {
        {"pipeline sends per micro-batch and chunk", test_pipeline_sends},
        {"pipeline bubble", test_bubble},
        {"interleaved micro-batch groups of pp to m (Megatron-Core)", test_microbatch_groups},
        {"chunk forwards before a rank's first backward (warm-up)", test_warmup_chunks},
        {"scatter/gather of pipeline sends (Narayanan et al. 2021 Fig. 18)", test_scatter_gather_fig18},
        {"DeepSpeed's blocking schedule never outlasts the priced 1F1B makespan", test_blocking_schedule},
        {NULL, NULL},
    };
    return pp_test_main("cost-pipeline", tests);
}
