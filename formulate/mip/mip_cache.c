/*
 * mip_cache.c: terms of the step's form kept across MIP builds (mip_cache.h).
 *
 * An open-addressing table of indices into an array of entries, each a
 * family, a candidate plan (its bytes are the key: equal bytes are equal
 * plans; a plan whose padding differs is only priced again) and its term.
 * The price key is a copy of the problem with the fields no term reads
 * zeroed; a problem is priced by this cache when its copy is byte-equal.
 */
#include "mip_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    int fam;
    pp_plan plan;
    pp_form_term term;
} entry;

struct pp_price_cache {
    pp_problem *key; /* the price key of the problem bound; NULL while empty */
    pp_problem *scratch;
    entry *entries;
    int n, cap;
    int *slot; /* index + 1 into entries, 0 empty; n_slots a power of two */
    int n_slots;
    long hits, misses;
};

pp_price_cache *pp_price_cache_new(void)
{
    pp_price_cache *c = calloc(1, sizeof *c);
    if (c && !(c->scratch = malloc(sizeof *c->scratch))) {
        free(c);
        return NULL;
    }
    return c;
}

void pp_price_cache_free(pp_price_cache *c)
{
    if (!c)
        return;
    free(c->key);
    free(c->scratch);
    free(c->entries);
    free(c->slot);
    free(c);
}

/* prob without what no term reads (mip_cache.h): memory capacity and
 * headroom (the memory rows' limit), error tolerances (the rules' and the
 * accuracy rows'), the search lists (the space's options). */
static void price_key(const pp_problem *prob, pp_problem *out)
{
    memcpy(out, prob, sizeof *out);
    out->cluster.gpu.memory_gib = 0.0;
    out->memory_headroom = 0.0;
    for (int d = 0; d < PP_DIM_COUNT; d++)
        out->error_tolerance[d] = 0.0;
    memset(out->search, 0, sizeof out->search);
}

bool pp_price_cache_bind(pp_price_cache *c, const pp_problem *prob)
{
    if (!c)
        return false;
    price_key(prob, c->scratch);
    if (c->key)
        return memcmp(c->key, c->scratch, sizeof *c->key) == 0;
    c->key = c->scratch;
    c->scratch = malloc(sizeof *c->scratch);
    if (!c->scratch) { /* keep the key, give up the cache */
        c->scratch = c->key;
        c->key = NULL;
        return false;
    }
    return true;
}

static uint64_t hash_of(int fam, const pp_plan *plan)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)fam;
    const unsigned char *p = (const unsigned char *)plan;
    size_t n = sizeof *plan, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

static bool grow(pp_price_cache *c)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 4096;
        entry *e = realloc(c->entries, (size_t)cap * sizeof *e);
        if (!e)
            return false;
        c->entries = e;
        c->cap = cap;
    }
    if (2 * (c->n + 1) > c->n_slots) {
        int n_slots = c->n_slots ? 2 * c->n_slots : 8192;
        int *slot = calloc((size_t)n_slots, sizeof *slot);
        if (!slot)
            return false;
        for (int i = 0; i < c->n; i++) {
            size_t s = (size_t)hash_of(c->entries[i].fam, &c->entries[i].plan) & (size_t)(n_slots - 1);
            while (slot[s])
                s = (s + 1) & (size_t)(n_slots - 1);
            slot[s] = i + 1;
        }
        free(c->slot);
        c->slot = slot;
        c->n_slots = n_slots;
    }
    return true;
}

void pp_price_cache_term(pp_price_cache *c, const pp_problem *prob, const pp_plan *plan,
                         const pp_form_shape *shape, pp_form_family fam, pp_form_term *out)
{
    uint64_t h = hash_of((int)fam, plan);
    size_t mask = (size_t)c->n_slots - 1, s = c->n_slots ? (size_t)h & mask : 0;
    for (; c->n_slots && c->slot[s]; s = (s + 1) & mask) {
        const entry *e = &c->entries[c->slot[s] - 1];
        if (e->fam == (int)fam && memcmp(&e->plan, plan, sizeof *plan) == 0) {
            c->hits++;
            *out = e->term;
            return;
        }
    }
    c->misses++;
    pp_form_term_of(prob, plan, shape, fam, out);
    if (!grow(c))
        return; /* out of memory: priced, not kept */
    mask = (size_t)c->n_slots - 1;
    for (s = (size_t)h & mask; c->slot[s]; s = (s + 1) & mask)
        ;
    entry *e = &c->entries[c->n];
    e->fam = (int)fam;
    memcpy(&e->plan, plan, sizeof *plan);
    e->term = *out;
    c->slot[s] = ++c->n;
}

void pp_price_cache_stats(const pp_price_cache *c, long *hits, long *misses)
{
    *hits = c ? c->hits : 0;
    *misses = c ? c->misses : 0;
}
