/*
 * test_fileio.c: early write checks and atomic writes (formulate/util/fileio.c), and
 * the growable string (formulate/util/strbuf.c) the outputs are rendered into.
 */
#include "fileio.h"
#include "strbuf.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_check(void)
{
    pp_error err;
    char ok[1024], dir[1024];
    pp_temp_path("check.md", ok, sizeof ok);
    CU_ASSERT_EQUAL(pp_output_check(ok, &err), 0);
    CU_ASSERT_NOT_EQUAL(access(ok, F_OK), 0); /* nothing left behind */
    CU_ASSERT_EQUAL(pp_output_check("-", &err), 0);
    CU_ASSERT_EQUAL(pp_output_check("/nonexistent/dir/x.md", &err), PP_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.path, "/nonexistent/dir/x.md");
    snprintf(dir, sizeof dir, "%s", ok);
    *strrchr(dir, '/') = '\0';
    CU_ASSERT_EQUAL(pp_output_check(dir, &err), PP_EINPUT);
    PP_ASSERT_CONTAINS(err.msg, "directory");
    CU_ASSERT_EQUAL(pp_output_check("", &err), PP_EINPUT);
    CU_ASSERT_EQUAL(pp_output_check("/dev/null", &err), 0);
}

static void test_atomic_write(void)
{
    pp_error err;
    char path[1024], buf[64] = {0};
    pp_write_temp("atomic.md", "old", path, sizeof path);
    CU_ASSERT_EQUAL(pp_output_write(path, "new text\n", 9, &err), 0);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(buf, 1, sizeof buf - 1, f), 9);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "new text\n");
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_NOT_EQUAL(st.st_mode & 0444, 0); /* readable, not mkstemp's 0600 only */
    CU_ASSERT_EQUAL(pp_output_write("/nonexistent/dir/x.md", "x", 1, &err), PP_EINTERNAL);
    CU_ASSERT_EQUAL(pp_output_write("/dev/null", "x", 1, &err), 0);
}

static void test_same_file(void)
{
    char a[1024], b[1024];
    pp_write_temp("same-a", "a", a, sizeof a);
    pp_write_temp("same-b", "b", b, sizeof b);
    CU_ASSERT_TRUE(pp_same_file(a, a));
    CU_ASSERT_FALSE(pp_same_file(a, b));
    CU_ASSERT_FALSE(pp_same_file(a, "/nonexistent/file"));
    CU_ASSERT_FALSE(pp_same_file("-", "-"));
}

static void test_strbuf(void)
{
    pp_strbuf sb;
    pp_sb_init(&sb);
    CU_ASSERT_STRING_EQUAL(pp_sb_str(&sb), "");
    for (int i = 0; i < 1000; i++)
        pp_sb_appendf(&sb, "%d,", i);
    pp_sb_append(&sb, "end");
    CU_ASSERT_FALSE(sb.failed);
    CU_ASSERT_EQUAL(sb.len, strlen(sb.data));
    CU_ASSERT_EQUAL(strncmp(sb.data, "0,1,2,", 6), 0);
    CU_ASSERT_STRING_EQUAL(sb.data + sb.len - 7, "999,end");
    pp_sb_free(&sb);
    CU_ASSERT_PTR_NULL(sb.data);
}

int main(void)
{
    static const pp_test tests[] = {
        {"outputs are checked before work", test_check},
        {"writes are atomic and readable", test_atomic_write},
        {"same-file detection", test_same_file},
        {"strbuf grows and formats", test_strbuf},
        {NULL, NULL},
    };
    return pp_test_main("fileio", tests);
}
