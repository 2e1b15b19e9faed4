/*
 * mip_cache.c: terms of the step's form kept across MIP builds (mip_cache.h).
 *
 * Two open-addressing tables of indices into arrays of entries, each entry
 * a family, a candidate plan (its bytes are the key: equal bytes are equal
 * plans; a plan whose padding differs is only priced again) and what it
 * keeps: the whole term, or a stage's kernels by their key
 * (pp_form_stage_kernels_key: the stage terms of every pipeline,
 * recomputation and expert layout of one GEMM shape price their layer's
 * kernels once).  What screening reads of a candidate's memory alone is
 * not kept: computing it again costs less than the pages it would fill.
 * The price key is a copy of the problem with the fields no term reads
 * zeroed; a problem is priced by this cache when its copy is byte-equal.
 */
#include "mip_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct key {
    int fam;
    pp_plan plan;
} key;

/* A slot: the entry's index + 1 (0 empty) and its hash's high bits, which
 * tell most other keys apart without reading the entry. */
typedef struct slot_t {
    int at;
    uint32_t tag;
} slot_t;

typedef struct table {
    unsigned char *entries; /* n entries of esize bytes: a key, then what it keeps */
    size_t esize;
    int n, cap;
    slot_t *slot; /* n_slots, a power of two */
    int n_slots;
} table;

typedef struct term_entry {
    key k;
    pp_form_term term;
} term_entry;

typedef struct kernels_entry {
    key k; /* fam 0, the plan's pp_form_stage_kernels_key */
    pp_stage_kernels kernels;
} kernels_entry;

struct pp_price_cache {
    pp_problem *key; /* the price key of the problem bound; NULL while empty */
    pp_problem *scratch;
    table terms, kernels;
    long hits, misses;
    pp_problem *space_key; /* the space problem of the space kept; NULL while none */
    pp_space space;
    double *stage_lb;      /* the screen's stage bounds of the kept space's shapes under the cache's prices */
    pp_problem *kernel_key; /* the kernel problem of the kernels table (kernel_key_of); NULL while unbound */
    pp_price_cache *kernels_from; /* a cache whose kernels table this one reads and writes instead */
    pp_price_cache *spare; /* pp_price_cache_spare's */
    bool transient;        /* keeps no terms, only kernels (pp_price_cache_new_transient) */
    void *scratch_mem[PP_PRICE_SCRATCH_SLOTS]; /* pp_price_cache_scratch's, and their sizes */
    size_t scratch_bytes[PP_PRICE_SCRATCH_SLOTS];
};

pp_price_cache *pp_price_cache_new(void)
{
    pp_price_cache *c = calloc(1, sizeof *c);
    if (c && !(c->scratch = malloc(sizeof *c->scratch))) {
        free(c);
        return NULL;
    }
    if (c) {
        c->terms.esize = sizeof(term_entry);
        c->kernels.esize = sizeof(kernels_entry);
    }
    return c;
}

pp_price_cache *pp_price_cache_new_transient(void)
{
    pp_price_cache *c = pp_price_cache_new();
    if (c)
        c->transient = true;
    return c;
}

void pp_price_cache_free(pp_price_cache *c)
{
    if (!c)
        return;
    pp_price_cache_free(c->spare);
    for (int k = 0; k < PP_PRICE_SCRATCH_SLOTS; k++)
        free(c->scratch_mem[k]);
    free(c->key);
    free(c->scratch);
    free(c->terms.entries);
    free(c->terms.slot);
    free(c->kernels.entries);
    free(c->kernels.slot);
    if (c->space_key)
        pp_space_free(&c->space);
    free(c->space_key);
    free(c->stage_lb);
    free(c->kernel_key);
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

/* The problem a stage's kernels are priced from: the price key without the
 * cluster but its GPU (the kernels read the GPU, the model and the
 * training; not the GPU count, the nodes or the links).  Kernels priced
 * from it are, by construction, those of every problem of the same kernel
 * problem: another node count (capacity's sweep) or faster links (the
 * explanation's re-solves). */
static void kernel_key_of(const pp_problem *prob, pp_problem *out)
{
    price_key(prob, out);
    pp_gpu gpu;
    memcpy(&gpu, &out->cluster.gpu, sizeof gpu); /* bytes, padding too: keys compare bytes */
    memset(&out->cluster, 0, sizeof out->cluster);
    memcpy(&out->cluster.gpu, &gpu, sizeof gpu);
}

bool pp_price_cache_bind(pp_price_cache *c, const pp_problem *prob)
{
    if (!c)
        return false;
    price_key(prob, c->scratch);
    if (c->key)
        return memcmp(c->key, c->scratch, sizeof *c->key) == 0;
    if (!(c->kernel_key = malloc(sizeof *c->kernel_key)))
        return false;
    kernel_key_of(prob, c->kernel_key);
    c->key = c->scratch;
    c->scratch = malloc(sizeof *c->scratch);
    if (!c->scratch) { /* keep the key, give up the cache */
        c->scratch = c->key;
        c->key = NULL;
        free(c->kernel_key);
        c->kernel_key = NULL;
        return false;
    }
    return true;
}

void pp_price_cache_share_kernels(pp_price_cache *c, pp_price_cache *from, const pp_problem *prob)
{
    if (!c || !from || from == c || !from->kernel_key || from->kernels_from)
        return;
    kernel_key_of(prob, c->scratch);
    if (memcmp(c->scratch, from->kernel_key, sizeof *c->scratch) == 0)
        c->kernels_from = from;
}

static void table_empty(table *t)
{
    t->n = 0;
    if (t->slot)
        memset(t->slot, 0, (size_t)t->n_slots * sizeof *t->slot);
}

/* c unbound and empty, its tables' memory kept. */
static void cache_empty(pp_price_cache *c)
{
    table_empty(&c->terms);
    table_empty(&c->kernels);
    if (c->key) { /* a problem's worth of memory either way */
        free(c->scratch);
        c->scratch = c->key;
        c->key = NULL;
    }
    free(c->kernel_key);
    c->kernel_key = NULL;
    if (c->space_key)
        pp_space_free(&c->space);
    free(c->space_key);
    c->space_key = NULL;
    free(c->stage_lb);
    c->stage_lb = NULL;
    c->kernels_from = NULL;
}

pp_price_cache *pp_price_cache_spare(pp_price_cache *c, const pp_problem *prob)
{
    if (!c || (!c->spare && !(c->spare = pp_price_cache_new_transient())))
        return NULL;
    pp_price_cache *s = c->spare;
    if (s->key && !pp_price_cache_bind(s, prob))
        cache_empty(s);
    if (!s->key) {
        if (!pp_price_cache_bind(s, prob))
            return NULL;
        pp_price_cache_share_kernels(s, c, prob);
    }
    return s;
}

void *pp_price_cache_scratch(pp_price_cache *c, int k, size_t bytes)
{
    if (!c || k < 0 || k >= PP_PRICE_SCRATCH_SLOTS)
        return NULL;
    if (c->scratch_bytes[k] < bytes) {
        free(c->scratch_mem[k]);
        c->scratch_bytes[k] = 0;
        if (!(c->scratch_mem[k] = malloc(bytes)))
            return NULL;
        c->scratch_bytes[k] = bytes;
    }
    return c->scratch_mem[k];
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

static key *entry_at(const table *t, int i)
{
    return (key *)(t->entries + (size_t)i * t->esize);
}

static uint32_t tag_of(uint64_t h)
{
    return (uint32_t)(h >> 32);
}

/* The entry of (fam, plan) in t, or NULL. */
static key *lookup(const table *t, int fam, const pp_plan *plan, uint64_t h)
{
    if (!t->n_slots)
        return NULL;
    size_t mask = (size_t)t->n_slots - 1;
    uint32_t tag = tag_of(h);
    for (size_t s = (size_t)h & mask; t->slot[s].at; s = (s + 1) & mask) {
        if (t->slot[s].tag != tag)
            continue;
        key *k = entry_at(t, t->slot[s].at - 1);
        if (k->fam == fam && memcmp(&k->plan, plan, sizeof *plan) == 0)
            return k;
    }
    return NULL;
}

/* A new entry of (fam, plan) in t, or NULL when out of memory. */
static key *add(table *t, int fam, const pp_plan *plan, uint64_t h)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 4096;
        unsigned char *e = realloc(t->entries, (size_t)cap * t->esize);
        if (!e)
            return NULL;
        t->entries = e;
        t->cap = cap;
    }
    if (2 * (t->n + 1) > t->n_slots) {
        int n_slots = t->n_slots ? 2 * t->n_slots : 8192;
        slot_t *slot = calloc((size_t)n_slots, sizeof *slot);
        if (!slot)
            return NULL;
        for (int i = 0; i < t->n; i++) {
            const key *k = entry_at(t, i);
            uint64_t hk = hash_of(k->fam, &k->plan);
            size_t s = (size_t)hk & (size_t)(n_slots - 1);
            while (slot[s].at)
                s = (s + 1) & (size_t)(n_slots - 1);
            slot[s] = (slot_t){i + 1, tag_of(hk)};
        }
        free(t->slot);
        t->slot = slot;
        t->n_slots = n_slots;
    }
    size_t mask = (size_t)t->n_slots - 1, s;
    for (s = (size_t)h & mask; t->slot[s].at; s = (s + 1) & mask)
        ;
    key *k = entry_at(t, t->n);
    memset(k, 0, sizeof *k);
    k->fam = fam;
    memcpy(&k->plan, plan, sizeof *plan);
    t->slot[s] = (slot_t){++t->n, tag_of(h)};
    return k;
}

static void price_term(pp_price_cache *c, const pp_problem *prob, const pp_plan *plan, const pp_form_shape *shape,
                       pp_form_family fam, bool keep, pp_form_term *out)
{
    keep = keep && !c->transient;
    uint64_t h = c->transient ? 0 : hash_of((int)fam, plan);
    term_entry *e = c->transient ? NULL : (term_entry *)lookup(&c->terms, (int)fam, plan, h);
    if (e) {
        c->hits++;
        *out = e->term;
        return;
    }
    c->misses++;
    if (fam == PP_FORM_STAGE) { /* its kernels: once per plan key, from the kernel problem */
        pp_price_cache *kc = c->kernels_from ? c->kernels_from : c;
        pp_plan kplan;
        pp_form_stage_kernels_key(plan, &kplan);
        uint64_t kh = hash_of(0, &kplan);
        kernels_entry *k = (kernels_entry *)lookup(&kc->kernels, 0, &kplan, kh);
        pp_stage_kernels fresh;
        if (!k) {
            pp_form_stage_kernels_of(kc->kernel_key ? kc->kernel_key : prob, plan, &fresh);
            if ((k = (kernels_entry *)add(&kc->kernels, 0, &kplan, kh)) != NULL)
                k->kernels = fresh;
        }
        pp_form_stage_term_of(prob, plan, shape, k ? &k->kernels : &fresh, out);
    } else {
        pp_form_term_of(prob, plan, shape, fam, out);
    }
    if (keep && (e = (term_entry *)add(&c->terms, (int)fam, plan, h)) != NULL)
        e->term = *out;
}

void pp_price_cache_term(pp_price_cache *c, const pp_problem *prob, const pp_plan *plan,
                         const pp_form_shape *shape, pp_form_family fam, pp_form_term *out)
{
    price_term(c, prob, plan, shape, fam, true, out);
}

void pp_price_cache_term_once(pp_price_cache *c, const pp_problem *prob, const pp_plan *plan,
                              const pp_form_shape *shape, pp_form_family fam, pp_form_term *out)
{
    price_term(c, prob, plan, shape, fam, false, out);
}

const pp_space *pp_price_cache_space(const pp_price_cache *c, const pp_problem *prob)
{
    if (!c || !c->space_key)
        return NULL;
    if (c->space_key->cluster.nodes != prob->cluster.nodes) /* pp_space_problem keeps it: another space */
        return NULL;
    pp_problem *probe = malloc(sizeof *probe);
    if (!probe)
        return NULL;
    pp_space_problem(prob, probe);
    bool same = memcmp(probe, c->space_key, sizeof *probe) == 0;
    free(probe);
    return same ? &c->space : NULL;
}

bool pp_price_cache_keep_space(pp_price_cache *c, const pp_problem *prob, pp_space *space)
{
    if (!c || c->space_key || !(c->space_key = malloc(sizeof *c->space_key)))
        return false;
    pp_space_problem(prob, c->space_key);
    c->space = *space;
    return true;
}

const double *pp_price_cache_stage_bounds(const pp_price_cache *c, const pp_space *space)
{
    return c && c->space_key && space == &c->space ? c->stage_lb : NULL;
}

void pp_price_cache_keep_stage_bounds(pp_price_cache *c, const pp_space *space, const double *lb)
{
    if (!c || !c->space_key || space != &c->space || c->stage_lb || space->n_shapes <= 0)
        return;
    if ((c->stage_lb = malloc((size_t)space->n_shapes * sizeof *c->stage_lb)) != NULL)
        memcpy(c->stage_lb, lb, (size_t)space->n_shapes * sizeof *c->stage_lb);
}

void pp_price_cache_stats(const pp_price_cache *c, long *hits, long *misses)
{
    *hits = c ? c->hits : 0;
    *misses = c ? c->misses : 0;
}
