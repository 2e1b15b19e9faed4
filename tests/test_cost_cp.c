/*
 * test_cost_cp.c: context parallelism as ring attention runs
 * (formulate/cost/cp.c): c steps each overlapped only with its own
 * transfer, a launch and a merge per step, attention slower on short
 * blocks, so that a larger cp costs more on the same work and the planner
 * takes the smaller one; and as the all-gather exchange runs (the plan's
 * cp_comm), which the frameworks that lack it do not run.
 */
#include "cost_terms.h"
#include "costmodel.h"
#include "planner.h"
#include "rules.h"
#include "space.h"
#include "decisions.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static void kernels_of(const pp_problem *p, const pp_plan *pl, layer_kernels *k)
{
    stage_layer sl;
    stage_layer_eval(p, pl, &sl);
    *k = sl.k;
}

/* cp 8 on a 4096-token sequence (512-token chunks) costs time even on
 * NVLink, where every transfer hides behind its step: the c - 1 extra
 * launches, the merges and attention on short blocks show. */
static void test_short_sequence_costs(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 64);
    pp_plan pl = pp_test_plan(1, 1, 1, 8, 1);
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &pl, NULL), 0);
    layer_kernels k;
    kernels_of(&p, &pl, &k);
    cp_ring r;
    cp_ring_eval(&p, &pl, &k, &r);
    CU_ASSERT(r.p2p_s < r.step_fwd_s); /* the transfer hides behind its step */
    CU_ASSERT(r.slowdown > 1.0);       /* 256 keys a step against 2048 */
    double launch = p.cluster.gpu.eff.kernel_us * 1e-6;
    CU_ASSERT(r.fwd_s > 7.0 * launch); /* at least the seven extra launches */
    CU_ASSERT(r.bwd_s > r.fwd_s);
    pp_eval ev;
    pp_evaluate(&p, &pl, &ev);
    CU_ASSERT(ev.time.cp_comm_s > 0.0);
    PP_REL_EQ(ev.time.cp_comm_s, pp_microbatches(&p, &pl) * 32 * (r.fwd_s + r.bwd_s), 1e-9);
    /* cp 1 has no ring */
    pl = pp_test_plan(1, 1, 8, 1, 1);
    pp_evaluate(&p, &pl, &ev);
    CU_ASSERT_DOUBLE_EQUAL(ev.time.cp_comm_s, 0.0, 0.0);
}

/* A slow link: each step's transfer is exposed by what it exceeds its own
 * step, at every step (not hidden behind the whole core), and the
 * backward's middle steps carry K/V and dK/dV. */
static void test_per_step_overlap(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(32768), 1, 8);
    p.cluster.intra_node_GBps = 0.5;
    pp_plan pl = pp_test_plan(1, 1, 2, 4, 1);
    layer_kernels k;
    kernels_of(&p, &pl, &k);
    cp_ring r;
    cp_ring_eval(&p, &pl, &k, &r);
    CU_ASSERT_FATAL(r.p2p_s > 2.0 * r.step_bwd_s);
    double kv = 2.0 * 2 * (32768 / 4) * (8.0 * 128);
    PP_REL_EQ(r.kv_bytes, kv, 1e-12);
    PP_REL_EQ(r.fwd_s, 3.0 * r.p2p_s + r.step_fwd_s - k.attn_fwd_s, 1e-12);
    double p2p2 = pp_p2p_time_s(&p.cluster, 2.0 * kv, false);
    PP_REL_EQ(r.bwd_s, 2.0 * r.p2p_s + 2.0 * p2p2 - k.attn_bwd_s, 1e-12);
    /* more than the whole exchange against the whole core would expose */
    CU_ASSERT(r.fwd_s > 3.0 * r.p2p_s - k.attn_fwd_s);
}

/* (cp, micro_batch) = (8, 4) and (2, 1) give each GPU the same 2048 tokens
 * per micro-batch and the same micro-batches: they used to price the same
 * to the microsecond; the ring of 8 now costs more. */
static void test_no_tie(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 8, 256);
    pp_plan a = pp_test_plan(1, 1, 8, 8, 4), b = pp_test_plan(1, 1, 32, 2, 1);
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &a, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &b, NULL), 0);
    CU_ASSERT_EQUAL(pp_microbatches(&p, &a), pp_microbatches(&p, &b));
    pp_eval ea, eb;
    pp_evaluate(&p, &a, &ea);
    pp_evaluate(&p, &b, &eb);
    CU_ASSERT(ea.time.cp_comm_s > 2.0 * eb.time.cp_comm_s);
    CU_ASSERT(ea.time.step_s > 1.005 * eb.time.step_s);
}

/* The planner (MIP and enumerator alike) takes the smaller cp where the
 * larger bought nothing: among cp 2, 4, 8 with micro-batches 1, 2, 4. */
static void test_planner_takes_smaller_cp(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 8, 256);
    p.search[PP_DEC_TP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_PP] = (pp_int_list){1, {1}};
    p.search[PP_DEC_CP] = (pp_int_list){3, {2, 4, 8}};
    p.search[PP_DEC_MICRO_BATCH] = (pp_int_list){3, {1, 2, 4}};
    for (int method = PP_METHOD_MILP; method <= PP_METHOD_ENUMERATE; method++) {
        pp_plan_options o;
        pp_plan_options_init(&o);
        o.method = (pp_method)method;
        pp_plan_result res;
        pp_error err;
        CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
        CU_ASSERT_EQUAL(res.best.plan.cp, 2);
        pp_plan_result_free(&res);
    }
}

/* The all-gather exchange: each direction exposes the gather of every
 * rank's K and V, their reordering and a second kernel's launch; the
 * backward adds the reduce-scatter of dK and dV. */
static double exposed_s(const pp_problem *p, const pp_plan *pl, double *f, double *b)
{
    layer_kernels k;
    kernels_of(p, pl, &k);
    cp_exchange_exposed(p, pl, &k, f, b);
    return *f + *b;
}

static void test_all_gather_exchange(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 64);
    pp_plan ring = pp_test_plan(1, 1, 1, 8, 1), ag = ring;
    ag.cp_comm = PP_CP_ALL_GATHER;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &ag, NULL), 0);
    double rf, rb, af, ab;
    double ring_s = exposed_s(&p, &ring, &rf, &rb), ag_s = exposed_s(&p, &ag, &af, &ab);
    /* the gathered K and V of the 4096 tokens: 8 KV heads of 128, 16 bits */
    double gathered = 2.0 * 2 * 4096 * (8.0 * 128);
    long kn = 8; /* the cp group inside one node */
    double gather = pp_collective_time_s(&p.cluster, PP_COLL_ALLGATHER, gathered, 8, kn);
    double scatter = pp_collective_time_s(&p.cluster, PP_COLL_REDUCESCATTER, gathered, 8, kn);
    double launch = p.cluster.gpu.eff.kernel_us * 1e-6;
    PP_REL_EQ(af, gather + 2.0 * gathered / (p.cluster.gpu.hbm_GBps * 1e9 * p.cluster.gpu.eff.hbm) + launch, 1e-9);
    PP_REL_EQ(ab - af, scatter, 1e-9);
    /* 512-token chunks over NVLink: the ring's seven extra launches, merges
     * and short blocks cost more than one exposed gather of 16 MiB */
    CU_ASSERT(ag_s < ring_s);
    /* a long sequence over a slow link: the ring hides each transfer behind
     * its block, the gather hides nothing */
    pp_problem q = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(32768), 1, 8);
    q.cluster.intra_node_GBps = 20.0;
    pp_plan ring4 = pp_test_plan(1, 1, 2, 4, 1), ag4 = ring4;
    ag4.cp_comm = PP_CP_ALL_GATHER;
    CU_ASSERT(exposed_s(&q, &ring4, &rf, &rb) < exposed_s(&q, &ag4, &af, &ab));
    /* without context parallelism there is nothing to exchange */
    pp_plan none = pp_test_plan(1, 1, 8, 1, 1);
    none.cp_comm = PP_CP_ALL_GATHER;
    CU_ASSERT_DOUBLE_EQUAL(exposed_s(&p, &none, &af, &ab), 0.0, 0.0);
}

/* What the frameworks run (data/frameworks.json): Megatron-Core both
 * exchanges, torchtitan the ring (its rotate method alltoall) only; the
 * planner offers and launches what the framework runs. */
static void test_all_gather_by_framework(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'framework': 'fsdp'}}", &cat, &p);
    pp_plan ag = pp_test_plan(1, 1, 4, 2, 1);
    ag.cp_comm = PP_CP_ALL_GATHER;
    char why[512];
    CU_ASSERT_FALSE(pp_plan_runnable(&p, &ag, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "cp_comm=all_gather"));
    ag.cp_comm = PP_CP_P2P;
    CU_ASSERT(pp_plan_runnable(&p, &ag, why, sizeof why));
    pp_test_load("{'model': 'llama3-8b', 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64}}", &cat, &p);
    ag.cp_comm = PP_CP_ALL_GATHER;
    CU_ASSERT(pp_plan_runnable(&p, &ag, why, sizeof why));
    CU_ASSERT_EQUAL(pp_plan_check(&p, &ag, NULL), PP_OK);
    /* packed sequences: Transformer Engine's all-gather takes no THD format */
    p.training.packed_sample_tokens = 1024;
    pp_error err;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &ag, &err), PP_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "packed"));
    pp_space s;
    CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
    const pp_int_list *l = NULL;
    for (int i = 0; i < s.n_shapes && !l; i++)
        if (s.shapes[i].base.cp > 1)
            l = pp_space_options(&s, &s.shapes[i], (pp_option_kind)pp_decisions[PP_DEC_CP_COMM].order);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    /* the ring and the all-to-alls (each rank attends whole packed samples of its heads) */
    CU_ASSERT(l->n == 2 && l->v[0] == PP_CP_P2P && l->v[1] == PP_CP_A2A);
    pp_space_free(&s);
    pp_catalog_free(&cat);
}

/* A sliding window (GPT-OSS): Transformer Engine's ring refuses it
 * ("not sliding_window_attn or cp_comm_type in ['a2a', 'all_gather']"), so
 * the rules refuse the ring for a windowed model and the space offers its
 * context parallelism the all-gather and the all-to-alls; torchtitan, whose
 * framework runs only the ring, gets no plan with cp > 1, and its plans
 * with cp 1 stay. */
static void test_window_gathers(void)
{
    pp_catalog cat;
    pp_load_catalog(&cat);
    pp_problem p;
    pp_test_load("{'model': {'id': 'gpt-oss-20b', 'seq_len': 16384}, 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64}, 'search': {'cp': [1, 2, 4]}}", &cat, &p);
    pp_plan pl = pp_test_plan(1, 1, 4, 2, 1);
    pl.ep = 4;
    pp_error err;
    pl.cp_comm = PP_CP_P2P;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    CU_ASSERT_STRING_EQUAL(err.path, "plan.cp_comm");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sliding window"));
    pl.cp_comm = PP_CP_ALL_GATHER;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    pp_space s;
    CU_ASSERT_EQUAL_FATAL(pp_space_build(&p, &s, &err), PP_OK);
    int cp_shapes = 0;
    for (int i = 0; i < s.n_shapes; i++)
        if (s.shapes[i].base.cp > 1) {
            const pp_int_list *l = pp_space_options(&s, &s.shapes[i], (pp_option_kind)pp_decisions[PP_DEC_CP_COMM].order);
            CU_ASSERT(l->n == 2 && l->v[0] == PP_CP_ALL_GATHER && l->v[1] == PP_CP_A2A);
            cp_shapes++;
        }
    CU_ASSERT(cp_shapes > 0);
    pp_space_free(&s);
    /* the same model without its window: both exchanges */
    p.model.sliding_window = p.model.window_attn_skip_freq = 0;
    pl.cp_comm = PP_CP_P2P;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);
    /* torchtitan: the ring only, so no context parallelism for a window */
    pp_test_load("{'model': {'id': 'gpt-oss-20b', 'seq_len': 16384}, 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'framework': 'torchtitan'}, 'search': {'cp': [1, 2, 4]}}", &cat,
                 &p);
    pp_plan_options o;
    pp_plan_options_init(&o);
    pp_plan_result res;
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
    CU_ASSERT_EQUAL(res.best.plan.cp, 1);
    pp_plan_result_free(&res);
    /* torchtitan held to cp 2: no exchange its framework runs takes the
     * window, and the reason says which choice is left without a value */
    pp_test_load("{'model': {'id': 'gpt-oss-20b', 'seq_len': 16384}, 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'framework': 'torchtitan'}, 'search': {'cp': [2]}}", &cat, &p);
    CU_ASSERT_EQUAL(pp_plan_solve(&p, &o, &res, &err), PP_EINFEASIBLE);
    PP_ASSERT_CONTAINS(res.infeasible_reason, "cp_comm: no value left");
    PP_ASSERT_CONTAINS(res.infeasible_reason, "no sliding window");
    pp_plan_result_free(&res);
    /* Megatron-Core with packed samples too: the all-gather takes no packed
     * samples, the ring no window, the all-to-alls both */
    pp_test_load("{'model': {'id': 'gpt-oss-20b', 'seq_len': 16384}, 'cluster': {'gpu': 'h100-sxm5-80gb', 'nodes': 1},"
                 " 'training': {'global_batch': 64, 'packed_sample_tokens': 4096}, 'search': {'cp': [2]}}", &cat, &p);
    CU_ASSERT_EQUAL_FATAL(pp_plan_solve(&p, &o, &res, &err), PP_OK);
    CU_ASSERT_EQUAL(res.best.plan.cp, 2);
    CU_ASSERT_EQUAL(res.best.plan.cp_comm, PP_CP_A2A);
    pp_plan_result_free(&res);
    pp_catalog_free(&cat);
}

/* The all-to-all exchange (DeepSpeed-Ulysses, Transformer Engine's
 * AttnFuncWithCPAndQKVOA2A): each direction exposes four all-to-alls of the
 * rank's share of Q, K, V and the output (dO, dQ, dK, dV backward), each
 * with two copies and its launches; the heads of a TP rank must divide by
 * cp, the key/value heads too. */
static void test_a2a_exchange(void)
{
    pp_problem p = pp_test_problem(PP_TEST_H100, pp_test_llama3_8b(4096), 1, 64);
    pp_plan a2a = pp_test_plan(1, 1, 1, 8, 1);
    a2a.cp_comm = PP_CP_A2A;
    pp_error err;
    CU_ASSERT_EQUAL_FATAL(pp_plan_check(&p, &a2a, &err), PP_OK);
    double f, b;
    exposed_s(&p, &a2a, &f, &b);
    /* the rank's 512 tokens: 32 query heads of 128, 8 key/value heads, 16 bits */
    double hbm = p.cluster.gpu.hbm_GBps * 1e9 * p.cluster.gpu.eff.hbm, launch = p.cluster.gpu.eff.kernel_us * 1e-6;
    const double widths[] = {32 * 128.0, 8 * 128.0, 8 * 128.0, 32 * 128.0};
    double want = 0.0;
    for (int i = 0; i < 4; i++) {
        double elems = 512.0 * widths[i], nv, net;
        pp_alltoall_bytes(2.0 * elems, 8, 8, &nv, &net);
        CU_ASSERT_DOUBLE_EQUAL(net, 0.0, 0.0); /* the cp group inside one node */
        want += pp_alltoall_links_time_s(&p.cluster, nv, net, 8, 8) + 8.0 * elems / hbm + 3.0 * launch;
    }
    PP_REL_EQ(f, want, 1e-9);
    PP_REL_EQ(b, want, 1e-9);
    /* over NVLink the exchange of a few MiB is cheaper than the ring's
     * seven short blocks and merges */
    pp_plan ring = a2a;
    ring.cp_comm = PP_CP_P2P;
    double rf, rb;
    CU_ASSERT(f + b < exposed_s(&p, &ring, &rf, &rb));
    /* tp 2 leaves 4 key/value heads a rank: cp 8 cannot split them, cp 4 can */
    pp_plan tp2 = pp_test_plan(2, 1, 1, 8, 1);
    tp2.sequence_parallel = true;
    tp2.cp_comm = PP_CP_A2A;
    p.cluster.gpus_per_node = 16;
    p.cluster.nodes = 1;
    CU_ASSERT_NOT_EQUAL(pp_plan_check(&p, &tp2, &err), PP_OK);
    CU_ASSERT_STRING_EQUAL(err.path, "plan.cp_comm");
    PP_ASSERT_CONTAINS(err.msg, "divide by cp 8");
    tp2.cp = 4;
    tp2.dp = 2;
    CU_ASSERT_EQUAL(pp_plan_check(&p, &tp2, &err), PP_OK);
}

int main(void)
{
    const pp_test tests[] = {
        {"cp 8 on a short sequence costs", test_short_sequence_costs},
        {"each step overlaps only its own transfer", test_per_step_overlap},
        {"(8,4) and (2,1) no longer tie", test_no_tie},
        {"the planner takes the smaller cp", test_planner_takes_smaller_cp},
        {"the all-gather exchange exposes its gather and scatter", test_all_gather_exchange},
        {"which framework runs which exchange", test_all_gather_by_framework},
        {"a sliding window: context parallelism gathers", test_window_gathers},
        {"the all-to-all exchange exposes four all-to-alls a direction; heads divide by cp", test_a2a_exchange},
        {NULL, NULL},
    };
    return pp_test_main("cost_cp", tests);
}
