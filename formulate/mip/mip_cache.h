/*
 * mip_cache.h: the terms of the step's form priced once per problem and
 * reused by every MIP built for a problem of the same prices.
 *
 * The explanation of a plan solves changed problems again (solve/explain.c):
 * no memory limit, more memory per GPU, any codec's error allowed.  Those
 * change a row's limit, a pruning or the options of the space, never a
 * price: a joint candidate's term (pp_form_term_of) reads the model, the
 * cluster's links and compute, the training and the codecs, and not the
 * GPU's memory capacity, the memory headroom, the error tolerances or the
 * search lists.  A cache is bound to the first problem it sees with those
 * four left out (its price key); a build for a problem with the same key
 * reads and writes it, any other build (faster links, another node count)
 * prices as if there were no cache.  A term is found by its family and the
 * whole candidate plan (the shape's degrees and the family's choices), which
 * fix the shape's part of the form too.
 *
 * The MIP built from cached terms is the one built without them, column for
 * column and bit for bit: the same function priced each term once.  The
 * cache also keeps a solve's decision space for the re-solves whose space
 * problem is the same (pp_price_cache_space).
 * Not thread-safe: one cache per thread of solves.
 */
#ifndef PARPLAN_MIP_CACHE_H
#define PARPLAN_MIP_CACHE_H

#include "costmodel.h"
#include "space.h"
#include "types.h"

typedef struct pp_price_cache pp_price_cache;

/* A new empty cache (NULL when out of memory); a transient one keeps only
 * the stage kernels, for a build of prices no other build shares: such a
 * build reads a term again about once in a hundred (a capacity sweep:
 * 20 thousand of 1.8 million), less than finding and keeping them costs. */
pp_price_cache *pp_price_cache_new_transient(void);
pp_price_cache *pp_price_cache_new(void);
void pp_price_cache_free(pp_price_cache *cache);

/* Whether the cache holds prices of prob (binding an empty cache to prob):
 * only then may a build read and write it. */
bool pp_price_cache_bind(pp_price_cache *cache, const pp_problem *prob);

/* Let cache read and write the stage kernels of `from` when prob's kernel
 * problem is from's (the price key without the cluster but its GPU): a
 * build for another node count or faster links prices its terms anew
 * but its kernels once.  `from` must outlive cache's use. */
void pp_price_cache_share_kernels(pp_price_cache *cache, pp_price_cache *from, const pp_problem *prob);

/* A transient cache for one build of prob that no later build shares
 * (another node count, faster links): cache's spare, bound to prob and
 * reading cache's kernels where their kernel problems agree (else keeping
 * its own, emptied when it is bound to other prices, its memory kept).
 * NULL when out of memory; owned by cache, and valid until the next call. */
pp_price_cache *pp_price_cache_spare(pp_price_cache *cache, const pp_problem *prob);

/* Scratch memory of at least `bytes` for slot k (0 <= k <
 * PP_PRICE_SCRATCH_SLOTS) that the builds of one thread of solves lend each
 * other: a MIP build's candidate and pair buffers, megabytes that every
 * build writes anew, keep their pages (a capacity sweep's thousand builds
 * fault them in once).  Owned by the cache, valid until the next call for
 * the same slot; NULL when out of memory. */
#define PP_PRICE_SCRATCH_SLOTS 2
void *pp_price_cache_scratch(pp_price_cache *cache, int k, size_t bytes);

/* Family fam's term at plan (pp_form_term_of, same arguments), from the
 * cache or priced and kept.  The cache must be bound to prob. */
void pp_price_cache_term(pp_price_cache *cache, const pp_problem *prob, const pp_plan *plan,
                         const pp_form_shape *shape, pp_form_family fam, pp_form_term *out);

/* The same, from the cache or priced (its kernels from the cache) but not
 * kept: a term no later build reads and this one likely not again (the
 * screen's bounds, under a cache of the build's own). */
void pp_price_cache_term_once(pp_price_cache *cache, const pp_problem *prob, const pp_plan *plan,
                              const pp_form_shape *shape, pp_form_family fam, pp_form_term *out);

/* The decision space kept for prob's space problem (pp_space_problem: the
 * re-solves with more memory, none, or faster links have the solve's
 * space), or NULL.  A cache keeps the first space it is given and frees
 * it: pp_price_cache_keep_space takes over a space built for prob (true),
 * or leaves it to the caller (false: the cache keeps another, or no
 * memory). */
const pp_space *pp_price_cache_space(const pp_price_cache *cache, const pp_problem *prob);
bool pp_price_cache_keep_space(pp_price_cache *cache, const pp_problem *prob, pp_space *space);

/* The screen's stage bound of every shape of the kept space (mip.c): a
 * function of the shape and the prices alone, so a build of the cache's
 * prices over that space (the explanation's re-solves without a memory
 * limit, with more memory, with any codec's error) reads them instead of
 * listing and pricing least plans again; NULL until a build keeps them. */
const double *pp_price_cache_stage_bounds(const pp_price_cache *cache, const pp_space *space);
void pp_price_cache_keep_stage_bounds(pp_price_cache *cache, const pp_space *space, const double *lb);

/* Terms found and terms priced so far (for tests and benchmarks). */
void pp_price_cache_stats(const pp_price_cache *cache, long *hits, long *misses);

#endif
