/*
 * assumptions.h: the constants a prediction rests on, each with its source.
 *
 * The report's "Inputs and assumptions" table and the result JSON's
 * `assumptions` list: the model shape, the GPU's datasheet figures, the link
 * bandwidths, the fitted efficiencies, the memory headroom, the framework,
 * the cost model's error, and the codecs the plan uses.  Sources come from
 * the catalog entries (catalog_source.h) or name the problem's own field.
 */
#ifndef PARPLAN_ASSUMPTIONS_H
#define PARPLAN_ASSUMPTIONS_H

#include "problem.h"
#include "types.h"

typedef struct pp_constant {
    char name[192];
    char value[64];
    char source[2048];
} pp_constant;

#define PP_MAX_ASSUMPTIONS 40

typedef struct pp_assumptions {
    int n;
    pp_constant items[PP_MAX_ASSUMPTIONS];
} pp_assumptions;

/* The constants of a problem and the plan it chose (cat may be NULL). */
void pp_assumptions_collect(const pp_problem *prob, const pp_catalog *cat, const pp_plan *plan, pp_assumptions *out);

#endif
