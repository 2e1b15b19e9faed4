/*
 * catalog_source.h: where a catalog figure comes from.
 *
 * Every entry of the data/ catalogs carries a `source` (a string for the whole
 * entry, or an object with one string per field).  The loader (catalog.c)
 * keeps the figures and checks that the sources exist; the report, which
 * cites a handful of them, reads them back here on demand rather than
 * carrying every source string of every entry in pp_catalog.
 */
#ifndef PARPLAN_CATALOG_SOURCE_H
#define PARPLAN_CATALOG_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "types.h"

/* The source of `field` of entry `id` of one catalog (an object source's
 * member `field`, or a string source whatever the field); with id NULL, the
 * file's own top-level source (its member `field`, or the string).  Writes
 * "" and returns false when the catalog has no such entry or source (also
 * when the file cannot be read: a missing citation is not worth failing a
 * report for). */
bool pp_catalog_source(const pp_catalog *cat, pp_catalog_kind kind, const char *id, const char *field, char *buf,
                       size_t cap);

/* The id of the catalog model with exactly this shape and name, or NULL
 * (the problem then defined its own model). */
const char *pp_catalog_model_id_of(const pp_catalog *cat, const pp_model *model);

/* The catalog Mixture-of-Experts model whose router and experts `model`
 * has (layers, hidden, experts, top-k, expert and shared widths, dense
 * layers first), whatever its name or the rest of its shape, or NULL: a
 * model object or Hugging Face config of a catalog model routes as it does. */
const pp_catalog_model *pp_catalog_model_router_of(const pp_catalog *cat, const pp_model *model);

#endif
