/* fuzz_common.c: shared helpers of the harnesses (see fuzz_common.h); the
 * fixtures they share with the CUnit suites come from tests/testutil.c. */
#include "fuzz_common.h"

#include "strbuf.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pp_catalog catalog;
static int catalog_loaded;

const pp_catalog *pp_fuzz_catalog(void)
{
    if (!catalog_loaded) {
        pp_error err;
        if (pp_source_catalog_load(&catalog, &err) != PP_OK) {
            fprintf(stderr, "parplan fuzz: cannot load the catalogs\n");
            exit(1);
        }
        catalog_loaded = 1;
    }
    return &catalog;
}

const char *pp_fuzz_hf_dir(void)
{
    return PARPLAN_SOURCE_DIR "/tests/data";
}

char *pp_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

static int hf_safe_item(const cJSON *item)
{
    for (const cJSON *c = item ? item->child : NULL; c; c = c->next) {
        if (c->string && strcmp(c->string, "hf_config") == 0 && cJSON_IsString(c) && c->valuestring) {
            const char *p = c->valuestring;
            if (strchr(p, '/') || strcmp(p, ".") == 0 || strcmp(p, "..") == 0)
                return 0;
        }
        if (!hf_safe_item(c))
            return 0;
    }
    return 1;
}

int pp_fuzz_hf_paths_safe(const char *text)
{
    if (!strstr(text, "hf_config") && !strstr(text, "\\u"))
        return 1;
    cJSON *doc = cJSON_Parse(text);
    int safe = hf_safe_item(doc);
    cJSON_Delete(doc);
    return safe;
}

void pp_fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "parplan fuzz: %s: %s\n", what, detail ? detail : "");
    fflush(stderr);
    abort();
}

void pp_fuzz_check_outcome(const char *what, int rc, const pp_error *err)
{
    if (rc == PP_OK)
        return;
    if (rc != PP_EINPUT && rc != PP_EINFEASIBLE && rc != PP_EINTERNAL)
        pp_fuzz_fail(what, "a return code outside the contract");
    if (!err->msg[0])
        pp_fuzz_fail(what, "an error without a message");
    if (!memchr(err->msg, '\0', sizeof err->msg) || !memchr(err->path, '\0', sizeof err->path))
        pp_fuzz_fail(what, "an error message that is not NUL-terminated");
}

void pp_fuzz_scratch_path(const char *kind, char *path, size_t len)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, len, "%s/parplan-fuzz-%ld-%s", dir, (long)getpid(), kind);
}

void pp_fuzz_write_scratch(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        pp_fuzz_fail("scratch file", path);
}

void pp_fuzz_check_positive(const char *what, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!(v[i] > 0.0) || !isfinite(v[i]))
            pp_fuzz_fail(what, "an accepted number that is not finite and positive");
}

void pp_fuzz_render_twice(const char *what, void (*render)(const void *ctx, pp_strbuf *out), const void *ctx)
{
    pp_strbuf a, b;
    pp_sb_init(&a);
    pp_sb_init(&b);
    render(ctx, &a);
    render(ctx, &b);
    if (strcmp(pp_sb_str(&a), pp_sb_str(&b)) != 0)
        pp_fuzz_fail(what, "two renderings differ");
    pp_sb_free(&a);
    pp_sb_free(&b);
}
