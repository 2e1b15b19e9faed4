/*
 * test_rules.c: the hard rules of a plan (formulate/space/rules.c): each rule the
 * divisibility family tells apart is reported by its own id, the first
 * broken rule wins, and pp_plan_check agrees with pp_plan_broken_rule.
 */
#include "costmodel.h"
#include "rules.h"
#include "testutil.h"

#include <string.h>

/* GPT-3 175B (96 heads, 96 layers, sequence 2048) on 128 nodes of 8,
 * global batch 1536: tp 8 pp 8 dp 16 is valid. */
static pp_problem gpt3(void)
{
    return pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 128, 1536);
}

/* The plan breaks `rule` first, its message says `words`, and
 * pp_plan_check refuses it with the same message. */
static void expect(const pp_problem *p, const pp_plan *pl, pp_rule rule, const char *words)
{
    pp_error err, again;
    CU_ASSERT_EQUAL(pp_plan_broken_rule(p, pl, &err), rule);
    PP_ASSERT_CONTAINS(err.msg, words);
    CU_ASSERT_EQUAL(pp_plan_check(p, pl, &again), PP_EINPUT);
    CU_ASSERT_STRING_EQUAL(again.msg, err.msg);
}

static void test_each_rule_has_its_id(void)
{
    pp_problem p = gpt3();
    pp_plan pl = pp_test_plan(8, 8, 16, 1, 2);
    pp_error err;
    CU_ASSERT_EQUAL(pp_plan_broken_rule(&p, &pl, &err), PP_RULE_NONE);
    CU_ASSERT_EQUAL(pp_plan_check(&p, &pl, &err), PP_OK);

    p.model.ffn_hidden = 49156; /* not a multiple of 8 */
    expect(&p, &pl, PP_RULE_TP_SPLIT, "ffn_hidden");
    p = gpt3();

    p.allow_tp_across_nodes = false;
    pl = pp_test_plan(16, 4, 16, 1, 2); /* 96 heads / 16 = 6: only the node rule breaks */
    expect(&p, &pl, PP_RULE_TP_NODE, "placement");
    /* a fixed plan (eval, a training log) is priced wherever its TP sits,
     * and the problem says the plan leaves a node it does not allow */
    CU_ASSERT_EQUAL(pp_fixed_plan_check(&p, &pl, &err), PP_OK);
    CU_ASSERT_TRUE(pp_plan_tp_spans_nodes(&p, &pl) && pp_plan_tp_leaves_node(&p, &pl));
    p.allow_tp_across_nodes = true;
    CU_ASSERT_TRUE(pp_plan_tp_spans_nodes(&p, &pl) && !pp_plan_tp_leaves_node(&p, &pl));
    p.allow_tp_across_nodes = false;
    pl.dp = 3; /* every other rule still holds for a fixed plan */
    CU_ASSERT_NOT_EQUAL(pp_fixed_plan_check(&p, &pl, &err), PP_OK);
    PP_ASSERT_CONTAINS(err.msg, "gpu count");
    pl.dp = 16;

    pl = pp_test_plan(8, 8, 16, 1, 2);
    pl.virtual_stages = 5; /* 8 x 5 = 40 divides neither 96 nor 98 */
    expect(&p, &pl, PP_RULE_CHUNKS, "pp*virtual_stages");

    p.model.layers = 4; /* 8 stages cannot hold 4 layers */
    pl = pp_test_plan(8, 8, 16, 1, 2);
    expect(&p, &pl, PP_RULE_STAGES, "cannot hold");
    p = gpt3();

    pl = pp_test_plan(8, 1, 128, 1, 2);
    pl.virtual_stages = 2;
    expect(&p, &pl, PP_RULE_INTERLEAVE_PP, "needs pp >= 2");

    p.model.seq_len = 2044; /* 2 cp = 8 does not divide it */
    pl = pp_test_plan(8, 8, 4, 4, 2);
    expect(&p, &pl, PP_RULE_CP_SEQUENCE, "2*cp");
    p = gpt3();

    pl = pp_test_plan(8, 8, 16, 1, 5); /* 16 x 5 = 80 does not divide 1536 */
    expect(&p, &pl, PP_RULE_BATCH, "dp*micro_batch");

    pl = pp_test_plan(8, 8, 16, 1, 32); /* 1536 / (16 x 32) = 3 micro-batches, fewer than pp = 8 */
    pl.virtual_stages = 2;
    expect(&p, &pl, PP_RULE_INTERLEAVE_MICROBATCHES, "at least pp");

    pl = pp_test_plan(1, 8, 128, 1, 2);
    pl.sequence_parallel = true; /* a rule the family does not tell apart */
    expect(&p, &pl, PP_RULE_OTHER, "sequence_parallel");
}

/* The first broken rule is the one reported: a plan that breaks both the
 * tensor split and the batch split is named by the tensor split, which
 * comes first in the table. */
static void test_first_broken_rule_wins(void)
{
    pp_problem p = gpt3();
    p.model.ffn_hidden = 49156;
    pp_plan pl = pp_test_plan(8, 8, 16, 1, 5);
    expect(&p, &pl, PP_RULE_TP_SPLIT, "ffn_hidden");
    p.model.ffn_hidden = 49152;
    expect(&p, &pl, PP_RULE_BATCH, "dp*micro_batch");
}

int main(void)
{
    static const pp_test tests[] = {
        {"each rule the divisibility family names has its own id", test_each_rule_has_its_id},
        {"the first broken rule is the one reported", test_first_broken_rule_wins},
        {NULL, NULL},
    };
    return pp_test_main("rules", tests);
}
