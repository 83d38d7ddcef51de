/* test_export.c - the format registry, the atomic file writer, and the
 * folded exporter (golden file tests/unit/data/example.folded, a copy of
 * shared/formats/example.folded checked by flamegraph.pl). */
#include "fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Test data lives beside this file; tests run from the top of the tree. */
#define DATA_DIR "tests/unit/data"

static uint32_t fn(struct profile *p, const char *name)
{
    return fixture_frame(p, name, "prog", NULL, 0);
}

/* FORMATS.md's example: thread 100 "main" runs main;a;b x3 and main;a;c,
 * thread 101 "worker" runs main;d x2. */
static struct profile *example(void)
{
    return fixture_example(fn, false);
}

/* --- registry ------------------------------------------------------------ */

static void test_registry(void **state)
{
    struct export_opts o;

    (void)state;
    assert_true(export_count() >= 1);
    assert_ptr_equal(export_at(0), &export_folded);
    assert_null(export_at(export_count()));
    for (size_t i = 0; i < export_count(); i++) {
        assert_non_null(export_at(i)->name);
        assert_non_null(export_at(i)->desc);
        assert_ptr_equal(export_find(export_at(i)->name), export_at(i));
    }
    assert_ptr_equal(export_find("folded"), &export_folded);
    assert_null(export_find("nope"));
    assert_null(export_find(NULL));
    assert_ptr_equal(export_for_path("out.folded"), &export_folded);
    assert_ptr_equal(export_for_path("/tmp/a.b/OUT.FOLDED"), &export_folded);
    assert_ptr_equal(export_for_path("x.collapsed"), &export_folded);
    assert_ptr_equal(export_for_path("x.folded.txt"), &export_text); /* last suffix wins */
    assert_null(export_for_path("/tmp/x.folded/y"));
    assert_null(export_for_path(".folded"));   /* a name, not a suffix */
    assert_null(export_for_path("folded"));
    assert_null(export_for_path(NULL));
    export_opts_default(&o);
    assert_false(o.no_thread_root);
    assert_float_equal(o.hide_self, 1.0, 1e-9);
    assert_float_equal(o.hide_subs, 2.0, 1e-9);
}

/* --- folded -------------------------------------------------------------- */

static void test_folded_example(void **state)
{
    struct profile *p = example();
    struct export_opts o;
    char *got, *want;

    (void)state;
    export_opts_default(&o);
    got = fixture_write(&export_folded, p, &o, NULL);
    fixture_assert_same_lines(got, "main-100;main;a;b 3\n"
                           "main-100;main;a;c 1\n"
                           "worker-101;main;d 2\n");
    free(got);
    o.no_thread_root = true;
    got = fixture_write(&export_folded, p, &o, NULL);
    want = fixture_slurp(DATA_DIR "/example.folded", NULL);
    fixture_assert_same_lines(got, want);
    free(got);
    free(want);
    profile_free(p);
}

static void test_folded_sanitize(void **state)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 7, "T;x y");
    struct export_opts o;
    char *got;

    (void)state;
    FIXTURE_ADD_NAMES(p, t, fn, 1, "main",
                      "std::vector<int, std::allocator<int> >::operator[]");
    FIXTURE_ADD_NAMES(p, t, fn, 2, "main", "a;b");
    FIXTURE_ADD_NAMES(p, t, fn, 3, "main", "x\ny", "cr\rtab\tz");
    FIXTURE_ADD_NAMES(p, t, fn, 4, "main", "foo 12");
    FIXTURE_ADD_NAMES(p, t, fn, 5, "main", "foo 1.5");
    FIXTURE_ADD_NAMES(p, t, fn, 6, "main", "bar \t 7");
    FIXTURE_ADD_NAMES(p, t, fn, 7, "main", "v2", "12");
    FIXTURE_ADD_NAMES(p, t, fn, 8, "main", "", "1 ");
    FIXTURE_ADD_NAMES(p, t, fn, 9, "ends in a dot 3.", " 42");
    export_opts_default(&o);
    got = fixture_write(&export_folded, p, &o, NULL);
    fixture_assert_same_lines(
        got,
        "T:x y-7;main;std::vector<int, std::allocator<int> >::operator[] 1\n"
        "T:x y-7;main;a:b 2\n"
        "T:x y-7;main;x y;cr tab z 3\n"
        "T:x y-7;main;foo_12 4\n"
        "T:x y-7;main;foo_1.5 5\n"
        "T:x y-7;main;bar_7 6\n"
        "T:x y-7;main;v2;12 7\n"
        "T:x y-7;main;[unknown];1  8\n"
        "T:x y-7;ends in a dot_3.;_42 9\n");
    free(got);
    profile_free(p);
}

static void test_folded_empty_stack(void **state)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 5, "w");
    struct export_opts o;
    char *got;

    (void)state;
    assert_int_equal(profile_add_stack(p, t, NULL, 0, 4), 0);
    FIXTURE_ADD_NAMES(p, t, fn, 1, "f");
    export_opts_default(&o);
    got = fixture_write(&export_folded, p, &o, NULL);
    fixture_assert_same_lines(got, "w-5 4\nw-5;f 1\n");
    free(got);
    /* a renamed thread is written under its current name */
    assert_int_equal(profile_thread(p, 5, "renamed"), t);
    got = fixture_write(&export_folded, p, &o, NULL);
    fixture_assert_same_lines(got, "renamed-5 4\nrenamed-5;f 1\n");
    free(got);
    o.no_thread_root = true;    /* no frame left to write: left out */
    FIXTURE_ASSERT_TEXT(fixture_write(&export_folded, p, &o, NULL), "f 1\n");
    profile_free(p);
}

/* --- the atomic writer --------------------------------------------------- */

static char tmpdir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sproftop-test-export-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Whatever a failed test left behind goes too. */
static int remove_dir(void **state)
{
    (void)state;
    return nftw(tmpdir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* Names in dir, sorted, space-separated ("" when empty). */
static void list_dir(const char *dir, char *out, size_t cap)
{
    char *names[32];
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;

    assert_non_null(d);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            assert_true(n < 32);
            names[n++] = strdup(e->d_name);
        }
    closedir(d);
    qsort(names, n, sizeof(names[0]), fixture_cmp_str);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "",
                 names[i]);
        free(names[i]);
    }
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_write_new_and_replace(void **state)
{
    struct profile *p = example();
    char path[512], err[256] = "", names[512];
    struct stat before, after;
    char *got;

    (void)state;
    snprintf(path, sizeof(path), "%s/out.folded", tmpdir);
    assert_int_equal(export_to_file(&export_folded, p, NULL, path, err,
                                    sizeof(err)), 0);
    assert_string_equal(err, "");
    got = fixture_slurp(path, NULL);
    fixture_assert_same_lines(got, "main-100;main;a;b 3\nmain-100;main;a;c 1\n"
                           "worker-101;main;d 2\n");
    free(got);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "out.folded");

    /* an existing regular file is replaced by a new inode, atomically */
    assert_int_equal(stat(path, &before), 0);
    FIXTURE_ADD_NAMES(p, 0, fn, 5, "main", "e");
    assert_int_equal(export_to_file(&export_folded, p, NULL, path, err,
                                    sizeof(err)), 0);
    assert_int_equal(stat(path, &after), 0);
    assert_true(before.st_ino != after.st_ino);
    assert_true(S_ISREG(after.st_mode));
    got = fixture_slurp(path, NULL);
    assert_non_null(strstr(got, "main-100;main;e 5\n"));
    free(got);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "out.folded");
    unlink(path);
    profile_free(p);
}

static void test_write_missing_dir(void **state)
{
    struct profile *p = example();
    char path[512], want[600], err[256], names[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/nope/x.folded", tmpdir);
    assert_int_equal(export_to_file(&export_folded, p, NULL, path, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot write %s: directory does not exist",
             path);
    assert_string_equal(err, want);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "");
    assert_int_equal(export_to_file(&export_folded, p, NULL, "", err,
                                    sizeof(err)), -1);
    assert_string_equal(err, "no output file name");
    profile_free(p);
}

/* Export p to path and compare the error with `want`; 0 when equal. */
static int export_fails_with(const struct profile *p, const char *path,
                             const char *want)
{
    char err[512] = "";

    if (export_to_file(&export_folded, p, NULL, path, err, sizeof(err)) == 0 ||
        strcmp(err, want) != 0) {
        fprintf(stderr, "# got \"%s\", want \"%s\"\n", err, want);
        return -1;
    }
    return 0;
}

static void test_write_readonly_dir(void **state)
{
    struct profile *p = example();
    char dir[512], path[600], want[700], names[512];
    int status = 0;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/ro", tmpdir);
    assert_int_equal(mkdir(dir, 0555), 0);
    snprintf(path, sizeof(path), "%s/x.folded", dir);
    snprintf(want, sizeof(want), "cannot write %s: permission denied", path);
    if (geteuid() != 0) {
        assert_int_equal(export_fails_with(p, path, want), 0);
    } else {
        /* Root ignores directory permissions: check as nobody instead. */
        pid_t pid;

        assert_int_equal(chmod(tmpdir, 0755), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
                _exit(2);
            _exit(export_fails_with(p, path, want) ? 1 : 0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(chmod(tmpdir, 0700), 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    list_dir(dir, names, sizeof(names));
    assert_string_equal(names, "");
    rmdir(dir);
    profile_free(p);
}

static void test_write_refuses_foreign_symlink(void **state)
{
    struct profile *p = example();
    char target[512], link[512], want[700];
    struct stat st;

    (void)state;
    if (geteuid() != 0) {
        /* Only root can plant a link owned by someone else; /dev/stdout is
         * a link that root owns. */
        assert_int_equal(lstat("/dev/stdout", &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        snprintf(want, sizeof(want),
                 "refusing to replace /dev/stdout: it is a symlink owned by "
                 "uid %u",
                 (unsigned)st.st_uid);
        assert_int_equal(export_fails_with(p, "/dev/stdout", want), 0);
        profile_free(p);
        return;
    }
    snprintf(target, sizeof(target), "%s/victim", tmpdir);
    snprintf(link, sizeof(link), "%s/x.folded", tmpdir);
    put_file(target, "precious\n");
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(lchown(link, 12345, 12345), 0);
    snprintf(want, sizeof(want),
             "refusing to replace %s: it is a symlink owned by uid 12345",
             link);
    assert_int_equal(export_fails_with(p, link, want), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    FIXTURE_ASSERT_TEXT(fixture_slurp(target, NULL), "precious\n");
    unlink(link);
    unlink(target);
    profile_free(p);
}

static void test_write_own_symlink(void **state)
{
    struct profile *p = example();
    char target[512], link[512], want[700], err[256], names[512];
    struct stat st;

    (void)state;
    snprintf(target, sizeof(target), "%s/victim", tmpdir);
    snprintf(link, sizeof(link), "%s/x.folded", tmpdir);
    put_file(target, "precious\n");
    assert_int_equal(symlink(target, link), 0);
    /* our own link is replaced itself, never written through */
    assert_int_equal(export_to_file(&export_folded, p, NULL, link, err,
                                    sizeof(err)), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    FIXTURE_ASSERT_TEXT(fixture_slurp(target, NULL), "precious\n");
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "victim x.folded");
    unlink(link);
    unlink(target);

    /* a link to a device (think /dev/stdout) is not ours to replace */
    assert_int_equal(symlink("/dev/null", link), 0);
    assert_int_equal(export_to_file(&export_folded, p, NULL, link, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "refusing to replace %s: it is a symlink to something that is "
             "not a regular file",
             link);
    assert_string_equal(err, want);
    unlink(link);
    profile_free(p);
}

static void test_write_refuses_special(void **state)
{
    struct profile *p = example();
    char path[512], want[700], err[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(export_to_file(&export_folded, p, NULL, path, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "refusing to replace %s: it is not a regular file", path);
    assert_string_equal(err, want);
    unlink(path);
    snprintf(path, sizeof(path), "%s/sub", tmpdir);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(export_to_file(&export_folded, p, NULL, path, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot write %s: it is a directory", path);
    assert_string_equal(err, want);
    rmdir(path);
    profile_free(p);
}

static int failing_write(const struct profile *p, const struct export_opts *o,
                         FILE *f)
{
    (void)p;
    (void)o;
    fputs("partial", f);
    errno = ENOSPC;
    return -1;
}

static void test_write_failure_keeps_old(void **state)
{
    static const struct exporter failing = {
        .name = "failing", .exts = ".x", .desc = "fails",
        .write = failing_write,
    };
    struct profile *p = example();
    char path[512], want[700], err[256], names[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/keep.x", tmpdir);
    put_file(path, "old\n");
    assert_int_equal(export_to_file(&failing, p, NULL, path, err, sizeof(err)),
                     -1);
    snprintf(want, sizeof(want), "cannot write %s: no space left on device",
             path);
    assert_string_equal(err, want);
    FIXTURE_ASSERT_TEXT(fixture_slurp(path, NULL), "old\n");
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "keep.x");   /* no temporary left behind */
    unlink(path);
    profile_free(p);
}

static void test_write_relative_path(void **state)
{
    struct profile *p = example();
    char cwd[512], err[256], names[512];

    (void)state;
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(tmpdir), 0);
    assert_int_equal(export_to_file(&export_folded, p, NULL, "rel.folded", err,
                                    sizeof(err)), 0);
    assert_int_equal(chdir(cwd), 0);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "rel.folded");
    profile_free(p);
    {
        char path[600];

        snprintf(path, sizeof(path), "%s/rel.folded", tmpdir);
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_folded_example),
        cmocka_unit_test(test_folded_sanitize),
        cmocka_unit_test(test_folded_empty_stack),
        cmocka_unit_test(test_write_new_and_replace),
        cmocka_unit_test(test_write_missing_dir),
        cmocka_unit_test(test_write_readonly_dir),
        cmocka_unit_test(test_write_refuses_foreign_symlink),
        cmocka_unit_test(test_write_own_symlink),
        cmocka_unit_test(test_write_refuses_special),
        cmocka_unit_test(test_write_failure_keeps_old),
        cmocka_unit_test(test_write_relative_path),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
