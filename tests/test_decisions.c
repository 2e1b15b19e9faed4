/*
 * test_decisions.c: the table of a plan's decisions (formulate/space/
 * decisions.c).  Every consumer walks it, so its shape is the
 * specification: one row per id in id order, each reading and writing its
 * own pp_plan field, the defaults of pp_plan_init, the order the space
 * nests the shape's degrees and options in (the planner's tie-break), and
 * the codec rows following the compressed dimensions.
 */
#include "decisions.h"
#include "space.h"
#include "testutil.h"

#include <string.h>

static void test_rows_in_id_order(void)
{
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        CU_ASSERT_EQUAL(pp_decisions[i].id, (pp_decision_id)i);
        CU_ASSERT_PTR_NOT_NULL(pp_decisions[i].key);
        CU_ASSERT(pp_decisions[i].offset + (pp_decisions[i].field == PP_FIELD_BOOL ? sizeof(bool) : sizeof(int)) <=
                  sizeof(pp_plan));
    }
}

/* Setting one decision changes its value and no other's. */
static void test_get_and_set_touch_one_field(void)
{
    for (int i = 0; i < PP_DEC_COUNT; i++) {
        const pp_decision *d = &pp_decisions[i];
        pp_plan plan;
        pp_plan_init(&plan);
        int v = d->kind == PP_DK_CODEC ? 3 : d->max > d->def ? d->def + 1 : d->def - 1;
        pp_decision_set(&plan, d->id, v);
        CU_ASSERT_EQUAL(pp_decision_get(&plan, d->id), v);
        for (int j = 0; j < PP_DEC_COUNT; j++)
            if (j != i)
                CU_ASSERT_EQUAL(pp_decision_get(&plan, (pp_decision_id)j), pp_decisions[j].def);
    }
}

static void test_init_sets_the_defaults(void)
{
    pp_plan plan;
    memset(&plan, 0x5a, sizeof plan);
    pp_plan_init(&plan);
    for (int i = 0; i < PP_DEC_COUNT; i++)
        CU_ASSERT_EQUAL(pp_decision_get(&plan, (pp_decision_id)i), pp_decisions[i].def);
    CU_ASSERT_EQUAL(plan.tp_mode, PP_TP_1D);
    CU_ASSERT_EQUAL(plan.recompute, PP_RECOMPUTE_NONE);
    CU_ASSERT_FALSE(plan.tp_comm_overlap);
}

/* The shape's degrees nest (and sort) in this order, and the options in
 * pp_option_kind's: the order of the space, which breaks the planner's
 * ties, so it may not move (a new decision takes the next place). */
static void test_the_order_of_the_space(void)
{
    static const pp_decision_id shape[] = {PP_DEC_TP,          PP_DEC_PP,       PP_DEC_CP,       PP_DEC_DP,
                                           PP_DEC_MICRO_BATCH, PP_DEC_VIRTUAL_STAGES, PP_DEC_TP_MODE, PP_DEC_TP_DEPTH,
                                           PP_DEC_EP,          PP_DEC_ETP};
    static const struct {
        pp_option_kind kind;
        pp_decision_id id;
    } options[] = {
        {PP_OPT_RECOMPUTE, PP_DEC_RECOMPUTE}, {PP_OPT_SEQUENCE_PARALLEL, PP_DEC_SEQUENCE_PARALLEL},
        {PP_OPT_CODEC_TP, PP_DEC_CODEC_TP},   {PP_OPT_CODEC_PP, PP_DEC_CODEC_PP},
        {PP_OPT_ZERO, PP_DEC_ZERO},           {PP_OPT_CODEC_DP, PP_DEC_CODEC_DP},
        {PP_OPT_CODEC_PARAMS, PP_DEC_CODEC_PARAMS}, {PP_OPT_TP_OVERLAP, PP_DEC_TP_OVERLAP},
    };
    int n_shape = (int)(sizeof shape / sizeof shape[0]), n_options = (int)(sizeof options / sizeof options[0]);
    for (int k = 0; k < n_shape; k++) {
        const pp_decision *d = pp_decision_at(PP_ROLE_SHAPE, k);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        CU_ASSERT_EQUAL(d->id, shape[k]);
    }
    for (int k = 0; k < n_options; k++) {
        const pp_decision *d = pp_decision_at(PP_ROLE_OPTION, (int)options[k].kind);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        CU_ASSERT_EQUAL(d->id, options[k].id);
    }
    /* each row has one place, and the places of a role leave no gap */
    for (int i = 0; i < PP_DEC_COUNT; i++)
        CU_ASSERT_PTR_EQUAL(pp_decision_at(pp_decisions[i].role, pp_decisions[i].order), &pp_decisions[i]);
    int places[2] = {0, 0};
    for (int i = 0; i < PP_DEC_COUNT; i++)
        places[pp_decisions[i].role]++;
    CU_ASSERT_PTR_NULL(pp_decision_at(PP_ROLE_SHAPE, places[PP_ROLE_SHAPE]));
    CU_ASSERT_PTR_NULL(pp_decision_at(PP_ROLE_OPTION, places[PP_ROLE_OPTION]));
}

/* The MIP's candidates nest the options by their rows' `nest` (the
 * columns' order, which breaks GLPK's ties): one depth per option, and
 * these, as the hand-written loops nested them before the table did. */
static void test_the_nesting_of_the_candidates(void)
{
    static const pp_decision_id nest[] = {PP_DEC_RECOMPUTE, PP_DEC_CODEC_TP, PP_DEC_TP_OVERLAP, PP_DEC_CODEC_PP,
                                          PP_DEC_SEQUENCE_PARALLEL, PP_DEC_ZERO, PP_DEC_CODEC_DP, PP_DEC_CODEC_PARAMS};
    for (size_t k = 0; k < sizeof nest / sizeof nest[0]; k++)
        CU_ASSERT_EQUAL(pp_decisions[nest[k]].nest, (int)k);
    for (int i = 0; i < PP_DEC_COUNT; i++)
        for (int j = i + 1; j < PP_DEC_COUNT; j++)
            if (pp_decisions[i].role == PP_ROLE_OPTION && pp_decisions[j].role == PP_ROLE_OPTION)
                CU_ASSERT_NOT_EQUAL(pp_decisions[i].nest, pp_decisions[j].nest);
    /* a TP candidate carries its stage's recompute and sp; a PP candidate its sp */
    CU_ASSERT(pp_decisions[PP_DEC_RECOMPUTE].carried & (1u << PP_FORM_TP));
    CU_ASSERT(pp_decisions[PP_DEC_SEQUENCE_PARALLEL].carried & (1u << PP_FORM_PP));
    CU_ASSERT_EQUAL(pp_decisions[PP_DEC_ZERO].carried, 0u);
}

static void test_codec_rows_follow_the_dimensions(void)
{
    for (int d = 0; d < PP_DIM_COUNT; d++) {
        const pp_decision *row = &pp_decisions[PP_DEC_CODEC(d)];
        CU_ASSERT_EQUAL(row->kind, PP_DK_CODEC);
        CU_ASSERT_EQUAL(row->dim, (pp_dim)d);
        pp_plan plan;
        pp_plan_init(&plan);
        pp_decision_set(&plan, row->id, 2);
        CU_ASSERT_EQUAL(plan.codec[d], 2);
    }
}

/* A measurement row's short keys are the degrees' (data/SCHEMA.md). */
static void test_row_keys(void)
{
    CU_ASSERT_STRING_EQUAL(pp_decisions[PP_DEC_TP].row_key, "t");
    CU_ASSERT_STRING_EQUAL(pp_decisions[PP_DEC_PP].row_key, "p");
    CU_ASSERT_STRING_EQUAL(pp_decisions[PP_DEC_DP].row_key, "d");
    CU_ASSERT_PTR_NULL(pp_decisions[PP_DEC_ZERO].row_key); /* the row's zero_stage, derived */
}

/* What differs between two plans, as the report's runner-ups say it: the
 * modules a selective recomputation reruns mean nothing to a plan that does
 * not recompute selectively, so against one they are the other plan's alone,
 * and between two such plans they are not named. */
static void test_changes_name_the_modules_of_selective_plans(void)
{
    pp_problem p = pp_test_problem(PP_TEST_A100, pp_test_gpt3_175b(), 8, 64);
    pp_plan none = pp_test_plan(8, 1, 8, 1, 1), sel = none, sel2, full;
    none.recompute = PP_RECOMPUTE_NONE;
    none.recompute_modules = 1; /* core_attn, the default */
    sel.recompute = PP_RECOMPUTE_SELECTIVE;
    sel.recompute_modules = 4; /* layernorm */
    char buf[512];
    pp_plan_changes(&p, &sel, &none, buf, sizeof buf);
    PP_ASSERT_CONTAINS(buf, "recompute=selective instead of none");
    PP_ASSERT_CONTAINS(buf, "recompute_modules=layernorm");
    CU_ASSERT_PTR_NULL(strstr(buf, "core_attn"));
    pp_plan_changes(&p, &none, &sel, buf, sizeof buf);
    PP_ASSERT_CONTAINS(buf, "recompute_modules=layernorm");
    CU_ASSERT_PTR_NULL(strstr(buf, "core_attn"));
    sel2 = sel;
    sel2.recompute_modules = 1;
    pp_plan_changes(&p, &sel, &sel2, buf, sizeof buf);
    PP_ASSERT_CONTAINS(buf, "recompute_modules=layernorm instead of core_attn");
    full = none;
    full.recompute = PP_RECOMPUTE_FULL;
    full.recompute_modules = 4;
    pp_plan_changes(&p, &full, &none, buf, sizeof buf);
    PP_ASSERT_CONTAINS(buf, "recompute=full instead of none");
    CU_ASSERT_PTR_NULL(strstr(buf, "modules"));
}

int main(void)
{
    static const pp_test tests[] = {
        {"one row per decision, in id order, inside pp_plan", test_rows_in_id_order},
        {"get and set touch one field", test_get_and_set_touch_one_field},
        {"pp_plan_init sets the table's defaults", test_init_sets_the_defaults},
        {"the order of the space is the rows' order", test_the_order_of_the_space},
        {"the MIP's candidates nest by the rows", test_the_nesting_of_the_candidates},
        {"the codec rows follow the compressed dimensions", test_codec_rows_follow_the_dimensions},
        {"a measurement row's keys", test_row_keys},
        {"plan changes name the modules of selective plans only", test_changes_name_the_modules_of_selective_plans},
        {NULL, NULL},
    };
    return pp_test_main("decisions", tests);
}
