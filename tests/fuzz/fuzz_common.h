/*
 * fuzz_common.h: what the libFuzzer harnesses of parplan share.
 *
 * Each harness (fuzz_NAME.c: one per reader of a file a user hands us, and
 * the eval path; tests/fuzz/README.md lists them) defines
 * LLVMFuzzerTestOneInput and is linked two ways: with libFuzzer
 * (-fsanitize=fuzzer, PARPLAN_FUZZ=ON under clang) to search for crashes,
 * and with regress_main.c, a plain C driver that replays the seed corpus and
 * every saved crash (tests/fuzz/regressions/) in every build, so CI covers
 * them without clang.
 *
 * A harness checks more than "no crash": every failure must come with a
 * code of the contract and a message, and whatever is accepted must price to
 * finite numbers, render the same bytes twice and read back as it was
 * written.  A broken promise calls pp_fuzz_fail(), which aborts so that
 * libFuzzer keeps the input.
 */
#ifndef PARPLAN_FUZZ_COMMON_H
#define PARPLAN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "problem.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The catalogs of the source tree's data/, loaded once. */
const pp_catalog *pp_fuzz_catalog(void);

/* Where hf_config paths of fuzzed problems resolve: tests/data. */
const char *pp_fuzz_hf_dir(void);

/* A NUL-terminated heap copy of data (free() it). */
char *pp_fuzz_text(const uint8_t *data, size_t size);

/* True if every "hf_config" string of the JSON text names a plain file name
 * (no '/', not "." or ".."), so a fuzzed problem reads only the configs of
 * tests/data and never a device, a FIFO or a huge file.  Text cJSON cannot
 * parse is safe (the loader rejects it before any hf_config is read). */
int pp_fuzz_hf_paths_safe(const char *text);

/* A scratch file's path for this process (tmpfs when there is one: a file on
 * disk costs more than the parse), named by kind ("config.json", ...). */
void pp_fuzz_scratch_path(const char *kind, char *path, size_t len);

/* Write data to path, or abort.  Readers that take only a path (HF configs,
 * efficiency and measurement files) read the input from there; remove it at
 * once after: libFuzzer ends with _Exit, which runs no atexit handler. */
void pp_fuzz_write_scratch(const char *path, const uint8_t *data, size_t size);

/* Render twice through render(ctx, out) and abort unless the two texts are
 * the same bytes ("what" names the renderer). */
struct pp_strbuf;
void pp_fuzz_render_twice(const char *what, void (*render)(const void *ctx, struct pp_strbuf *out), const void *ctx);

/* Abort unless every number is finite and positive ("what" names the caller). */
void pp_fuzz_check_positive(const char *what, const double *v, int n);

/* Abort unless a loader's outcome keeps the error contract: PP_OK, or a
 * PP_E* code with a non-empty message. */
void pp_fuzz_check_outcome(const char *what, int rc, const pp_error *err);

/* Print "parplan fuzz: WHAT: DETAIL" and abort. */
void pp_fuzz_fail(const char *what, const char *detail) __attribute__((noreturn));

#endif
