/* test_export.c - the format registry, the atomic file writer, and the
 * folded exporter (golden file tests/unit/data/example.folded, a copy of
 * shared/formats/example.folded checked by flamegraph.pl). */
#include "fixture.h"
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
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

/* Bytes, and the one reader whose sniffer takes them (NULL: none). */
static const struct fixture_case claims[] = {
    FIXTURE_CASE("a;b 3\n", "folded"),
    FIXTURE_CASE("\n\nmain 12", "folded"),
    FIXTURE_CASE("a b c\t3\r\n", "folded"),
    FIXTURE_CASE("main;a 3\n", "folded"),
    FIXTURE_CASE("\nmain;a 3\n", "folded"),
    FIXTURE_CASE("12\n", NULL),
    FIXTURE_CASE("a\0b 3\n", NULL),
    FIXTURE_CASE("\n \n", NULL),
    FIXTURE_CASE("{\"a\": 1}\n", NULL),
    FIXTURE_CASE("@supersamplerV1.0\n", "sampler"),
    FIXTURE_CASE("@supersamplerV1.0", NULL),
    FIXTURE_CASE("\x1f\x8b\x08\x00", "pprof"),
    FIXTURE_CASE("\x1f\x8b\x08", "pprof"),     /* gzip, deflate: enough */
    FIXTURE_CASE("\x1f\x8b", NULL),
    FIXTURE_CASE("\x0a\x00", NULL),   /* a protobuf with no string table */
};

/* Every reader's sniffer on every case: only the one named takes it. */
static void test_sniffers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++)
        for (size_t k = 0; k < format_count(); k++) {
            const struct format *e = format_at(k);
            bool want = claims[i].want &&
                        strcmp(claims[i].want, e->name) == 0;

            if (e->sniff && e->sniff(claims[i].buf, claims[i].len) != want)
                fail_msg("%s's sniffer on case %zu: want %s", e->name, i,
                         want ? "true" : "false");
        }
}

/* What writers make of a profile without samples, with the default
 * options. */
static const struct {
    const char *format;
    const char *want;
} empty_outputs[] = {
    { "text",
      "Profiling results\n"
      "-----------------\n"
      "  Total cpu time observed: 0ms (out of 0ms)\n"
      "  Number of samples taken: 0 (once every 0ms)\n"
      "\n"
      "====================================\n"
      "                        Caller\n"
      "Idx  Total    Self    Name+srcLocal%\n"
      "     ms(pct)  ms(pct)   Callee\n"
      "====================================\n" },
    { "top",
      "==================================\n"
      "  Mode: cpu(0)\n"
      "  Samples: 0 (0.00% miss rate)\n"
      "  GC: 0 (0.00%)\n"
      "  Threads: 0\n"
      "==================================\n"
      "     TOTAL    (pct)     SAMPLES    (pct)     "
      "FRAME\n" },
    { "samplingprof",
      "0.0\n\n\n\n" },
    { "stackprof",
      "{\n"
      " \"version\": 1.2,\n"
      " \"mode\": \"cpu\",\n"
      " \"interval\": 1000,\n"
      " \"samples\": 0,\n"
      " \"gc_samples\": 0,\n"
      " \"missed_samples\": 0,\n"
      " \"metadata\": {},\n"
      " \"frames\": {},\n"
      " \"raw\": [],\n"
      " \"raw_timestamp_deltas\": []\n"
      "}" },
};

static void test_empty_outputs(void **state)
{
    const size_t n = sizeof(empty_outputs) / sizeof(empty_outputs[0]);
    struct profile *p = fixture_profile(state);
    struct export_opts o;

    export_opts_default(&o);
    for (size_t i = 0; i < n; i++) {
        const struct format *e = format_find(empty_outputs[i].format);

        assert_non_null(e);
        FIXTURE_ASSERT_TEXT(fixture_write(e, p, &o, NULL),
                            empty_outputs[i].want);
    }
}

static void test_registry(void **state)
{
    struct export_opts o;
    char names[256];

    (void)state;
    /* a row reads back when it has both a sniffer and a reader */
    for (size_t i = 0; i < format_count(); i++) {
        assert_non_null(format_at(i)->write);
        assert_true(!format_at(i)->sniff == !format_at(i)->load);
    }
    assert_string_equal(format_names(names, sizeof(names), true),
                        "folded, pprof, speedscope, racket-json, sampler");
    assert_string_equal(format_names(names, 12, false), "folded, ppr");
    assert_true(format_count() >= 1);
    assert_ptr_equal(format_at(0), format_find("folded"));
    assert_null(format_at(format_count()));
    for (size_t i = 0; i < format_count(); i++) {
        assert_non_null(format_at(i)->name);
        assert_non_null(format_at(i)->desc);
        assert_ptr_equal(format_find(format_at(i)->name), format_at(i));
    }
    assert_non_null(format_find("folded"));
    assert_null(format_find("nope"));
    assert_null(format_find(NULL));
    assert_ptr_equal(format_for_path("out.folded", false), format_find("folded"));
    assert_ptr_equal(format_for_path("/tmp/a.b/OUT.FOLDED", false), format_find("folded"));
    assert_ptr_equal(format_for_path("x.collapsed", false), format_find("folded"));
    assert_ptr_equal(format_for_path("x.folded.txt", false), format_find("text")); /* last suffix wins */
    assert_null(format_for_path("/tmp/x.folded/y", false));
    assert_null(format_for_path(".folded", false));   /* a name, not a suffix */
    assert_null(format_for_path("folded", false));
    assert_null(format_for_path(NULL, false));
    /* the same matcher serves the readers: only formats with one */
    assert_ptr_equal(format_for_path("x.stacks", true), format_find("folded"));
    assert_ptr_equal(format_for_path("x.pb", true), format_find("pprof"));
    assert_ptr_equal(format_for_path("x.pb", false), format_find("pprof"));
    assert_null(format_for_path("x.txt", true));
    assert_ptr_equal(format_for_path("x.txt", false), format_find("text"));
    assert_ptr_equal(format_for_path("/a/callgrind.out.42", false),
                     format_find("callgrind"));
    assert_null(format_for_path("/a/callgrind.out.", false));
    export_opts_default(&o);
    assert_false(o.no_thread_root);
    assert_float_equal(o.hide_self, 1.0, 1e-9);
    assert_float_equal(o.hide_subs, 2.0, 1e-9);
}

/* --- folded -------------------------------------------------------------- */

static void test_folded_example(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    struct export_opts o;
    char *got, *want;

    export_opts_default(&o);
    got = fixture_keep(state,
                       fixture_write(format_find("folded"), p, &o, NULL));
    fixture_assert_same_lines(got, "main-100;main;a;b 3\n"
                           "main-100;main;a;c 1\n"
                           "worker-101;main;d 2\n");
    o.no_thread_root = true;
    got = fixture_keep(state,
                       fixture_write(format_find("folded"), p, &o, NULL));
    want = fixture_keep(state, fixture_slurp(DATA_DIR "/example.folded", NULL));
    fixture_assert_same_lines(got, want);
}

static void test_folded_sanitize(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 7, "T;x y");
    struct export_opts o;
    char *got;

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
    got = fixture_keep(state,
                       fixture_write(format_find("folded"), p, &o, NULL));
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
}

static void test_folded_empty_stack(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 5, "w");
    struct export_opts o;
    char *got;

    assert_int_equal(profile_add_stack(p, t, NULL, 0, 4), 0);
    FIXTURE_ADD_NAMES(p, t, fn, 1, "f");
    export_opts_default(&o);
    got = fixture_keep(state,
                       fixture_write(format_find("folded"), p, &o, NULL));
    fixture_assert_same_lines(got, "w-5 4\nw-5;f 1\n");
    /* a renamed thread is written under its current name */
    assert_int_equal(profile_thread(p, 5, "renamed"), t);
    got = fixture_keep(state,
                       fixture_write(format_find("folded"), p, &o, NULL));
    fixture_assert_same_lines(got, "renamed-5 4\nrenamed-5;f 1\n");
    o.no_thread_root = true;    /* no frame left to write: left out */
    got = fixture_keep(state,
                       fixture_write(format_find("folded"), p, &o, NULL));
    assert_string_equal(got, "f 1\n");
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
    struct profile *p = fixture_keep_profile(state, example());
    char path[512], err[256] = "", names[512];
    struct stat before, after;
    char *got;

    snprintf(path, sizeof(path), "%s/out.folded", tmpdir);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), 0);
    assert_string_equal(err, "");
    got = fixture_keep(state, fixture_slurp(path, NULL));
    fixture_assert_same_lines(got, "main-100;main;a;b 3\nmain-100;main;a;c 1\n"
                           "worker-101;main;d 2\n");
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "out.folded");

    /* an existing regular file is replaced by a new inode, atomically */
    assert_int_equal(stat(path, &before), 0);
    FIXTURE_ADD_NAMES(p, 0, fn, 5, "main", "e");
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), 0);
    assert_int_equal(stat(path, &after), 0);
    assert_true(before.st_ino != after.st_ino);
    assert_true(S_ISREG(after.st_mode));
    got = fixture_keep(state, fixture_slurp(path, NULL));
    assert_non_null(strstr(got, "main-100;main;e 5\n"));
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "out.folded");
    unlink(path);
}

static void test_write_missing_dir(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char path[512], want[600], err[256], names[512];

    snprintf(path, sizeof(path), "%s/nope/x.folded", tmpdir);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot write %s: directory does not exist",
             path);
    assert_string_equal(err, want);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "");
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, "", err,
                                    sizeof(err)), -1);
    assert_string_equal(err, "no output file name");
}

/* Export p to path with e and compare the error with `want`; 0 when
 * equal. */
static int export_fails_with_e(const struct format *e,
                               const struct profile *p, const char *path,
                               const char *want)
{
    char err[512] = "";

    if (export_to_file(e, p, NULL, path, err, sizeof(err)) == 0 ||
        strcmp(err, want) != 0) {
        fprintf(stderr, "# got \"%s\", want \"%s\"\n", err, want);
        return -1;
    }
    return 0;
}

static int export_fails_with(const struct profile *p, const char *path,
                             const char *want)
{
    return export_fails_with_e(format_find("folded"), p, path, want);
}

static void test_write_readonly_dir(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char dir[512], path[600], want[700], names[512];
    int status = 0;

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
}

/* No symlink is ever replaced: rename() would destroy the link, never
 * write where it leads.  A link to /proc/self/fd/1 is what /dev/stdout is
 * (item 1 of issue 11: as root, `-o /dev/stdout` replaced the system's
 * link); one planted by another user is a trap. */
static void test_write_refuses_symlinks(void **state)
{
    static const char *const targets[] = { "victim", "/proc/self/fd/1",
                                           "/dev/null" };
    struct profile *p = fixture_keep_profile(state, example());
    char target[512], link[512], want[700], buf[512], names[512];
    struct stat st;
    char *got;

    snprintf(target, sizeof(target), "%s/victim", tmpdir);
    snprintf(link, sizeof(link), "%s/x.folded", tmpdir);
    snprintf(want, sizeof(want), "refusing to replace %s: it is a symlink",
             link);
    put_file(target, "precious\n");
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(symlink(targets[i], link), 0);
        if (i == 0 && geteuid() == 0)   /* only root can plant one */
            assert_int_equal(lchown(link, 12345, 12345), 0);
        assert_int_equal(export_fails_with(p, link, want), 0);
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(readlink(link, buf, sizeof(buf)),
                         (ssize_t)strlen(targets[i]));
        unlink(link);
    }
    got = fixture_keep(state, fixture_slurp(target, NULL));
    assert_string_equal(got, "precious\n");
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "victim");
    unlink(target);
}

/* Nothing in /dev, /proc or /sys is replaced, whoever asks: the checks
 * look at the directory's real path, so a link to /dev on the way does
 * not hide it. */
static void test_write_refuses_system_dirs(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char link[512], path[600], want[700];
    struct stat st;

    assert_int_equal(export_fails_with(p, "/dev/sproftop-test.folded",
                                       "refusing to write "
                                       "/dev/sproftop-test.folded: it is in "
                                       "/dev, which belongs to the system"),
                     0);
    assert_int_equal(export_fails_with(p, "/proc/self/comm",
                                       "refusing to write /proc/self/comm: it "
                                       "is in /proc, which belongs to the "
                                       "system"),
                     0);
    snprintf(link, sizeof(link), "%s/devdir", tmpdir);
    assert_int_equal(symlink("/dev", link), 0);
    snprintf(path, sizeof(path), "%s/null", link);
    snprintf(want, sizeof(want), "refusing to write %s: it is in /dev, which "
             "belongs to the system", path);
    assert_int_equal(export_fails_with(p, path, want), 0);
    assert_int_equal(export_check_path(path, want, sizeof(want)), -1);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    unlink(link);
}

/* A replaced file keeps its mode (and owner, as root); a new one is 0600
 * whatever the umask: a profile holds the command line. */
static void test_write_keeps_mode(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char path[512], err[256] = "";
    struct stat st;
    mode_t old_mask = umask(022);

    snprintf(path, sizeof(path), "%s/new.folded", tmpdir);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    unlink(path);

    snprintf(path, sizeof(path), "%s/old.folded", tmpdir);
    put_file(path, "old\n");
    assert_int_equal(chmod(path, 0640), 0);
    if (geteuid() == 0)
        assert_int_equal(chown(path, 65534, 65534), 0);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    if (geteuid() == 0) {
        assert_int_equal(st.st_uid, 65534);
        assert_int_equal(st.st_gid, 65534);
    }
    unlink(path);
    umask(old_mask);
}

/* The destination written by a "writer" that plants something there
 * while it runs: the planted thing wins, nothing is renamed over it. */
static char plant_path[512];
static bool plant_replace;   /* replace an existing file, not create one */

static int planting_write(const struct profile *p, const struct export_opts *o,
                          FILE *f)
{
    char victim[600];

    snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
    if (plant_replace)
        unlink(plant_path);
    if (symlink(victim, plant_path) != 0)
        return -1;
    return export_folded_write(p, o, f);
}

static void test_write_race_with_symlink(void **state)
{
    static const struct format planting = {
        .name = "planting", .exts = ".x", .desc = "plants a link",
        .write = planting_write,
    };
    struct profile *p = fixture_keep_profile(state, example());
    char want[700], names[512], victim[600];
    struct stat st;
    char *got;

    snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
    put_file(victim, "precious\n");
    snprintf(plant_path, sizeof(plant_path), "%s/race.folded", tmpdir);
    snprintf(want, sizeof(want), "cannot write %s: it was changed by someone "
             "else while the profile was written; left as it is", plant_path);
    for (int i = 0; i < 2; i++) {
        plant_replace = i == 1;
        if (plant_replace)
            put_file(plant_path, "old\n");
        assert_int_equal(export_fails_with_e(&planting, p, plant_path, want),
                         0);
        assert_int_equal(lstat(plant_path, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        list_dir(tmpdir, names, sizeof(names));
        assert_string_equal(names, "race.folded victim");
        unlink(plant_path);
    }
    got = fixture_keep(state, fixture_slurp(victim, NULL));
    assert_string_equal(got, "precious\n");
    unlink(victim);
}

/* "-", /dev/stdout and /dev/stderr name the descriptor: the profile goes
 * where it points (here a file standing in as stdout), and nothing is
 * created or renamed.  The real /dev/stdout is never named here: code
 * without this rule would replace the system's link (issue 11, item 1). */
static void test_write_std_descriptors(void **state)
{
    static const char *const names_in[] = { "-", "/dev/fd/1" };
    struct profile *p = fixture_keep_profile(state, example());
    char path[512], cwd[512], err[256] = "", names[512];
    int saved = dup(1), fd;
    char *got;

    assert_int_equal(outfile_std_fd("-"), 1);
    assert_int_equal(outfile_std_fd("/dev/stdout"), 1);
    assert_int_equal(outfile_std_fd("/dev/stderr"), 2);
    assert_int_equal(outfile_std_fd("/proc/self/fd/2"), 2);
    assert_int_equal(outfile_std_fd("/dev/stdin"), -1);
    assert_int_equal(outfile_std_fd("./-"), -1);
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(tmpdir), 0);   /* where "-" would be made */
    snprintf(path, sizeof(path), "%s/stdout.txt", tmpdir);
    for (size_t i = 0; i < 2; i++) {
        fflush(stdout);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0 && saved >= 0);
        assert_int_equal(dup2(fd, 1), 1);
        close(fd);
        assert_int_equal(export_check_path(names_in[i], err, sizeof(err)), 0);
        assert_int_equal(export_to_file(format_find("folded"), p, NULL, names_in[i],
                                        err, sizeof(err)), 0);
        assert_int_equal(dup2(saved, 1), 1);
        got = fixture_keep(state, fixture_slurp(path, NULL));
        fixture_assert_same_lines(got, "main-100;main;a;b 3\n"
                                  "main-100;main;a;c 1\n"
                                  "worker-101;main;d 2\n");
        list_dir(tmpdir, names, sizeof(names));
        assert_string_equal(names, "stdout.txt");
    }
    close(saved);
    assert_int_equal(chdir(cwd), 0);
    unlink(path);
}

/* Past a file size limit (ulimit -f) the write fails with EFBIG: said as
 * "file too large" (not "too many samples"), and the temporary file goes.
 * The child ignores SIGXFSZ as main() does. */
static void test_write_file_size_limit(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    char path[512], want[700], names[512];
    int status = 0;
    pid_t pid;

    for (int i = 0; i < 400; i++) {
        char name[64];

        snprintf(name, sizeof(name), "function_with_a_long_name_%d", i);
        FIXTURE_ADD_NAMES(p, t, fn, 1, "main", name);
    }
    snprintf(path, sizeof(path), "%s/big.folded", tmpdir);
    snprintf(want, sizeof(want), "cannot write %s: file too large", path);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = { 4096, 4096 };

        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(2);
        _exit(export_fails_with(p, path, want) ? 1 : 0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "");
}

static void test_write_refuses_special(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char path[512], want[700], err[256];

    snprintf(path, sizeof(path), "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "refusing to replace %s: it is not a regular file", path);
    assert_string_equal(err, want);
    unlink(path);
    snprintf(path, sizeof(path), "%s/sub", tmpdir);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, path, err,
                                    sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot write %s: it is a directory", path);
    assert_string_equal(err, want);
    rmdir(path);
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
    static const struct format failing = {
        .name = "failing", .exts = ".x", .desc = "fails",
        .write = failing_write,
    };
    struct profile *p = fixture_keep_profile(state, example());
    char path[512], want[700], err[256], names[512];
    char *got;

    snprintf(path, sizeof(path), "%s/keep.x", tmpdir);
    put_file(path, "old\n");
    assert_int_equal(export_to_file(&failing, p, NULL, path, err, sizeof(err)),
                     -1);
    snprintf(want, sizeof(want), "cannot write %s: no space left on device",
             path);
    assert_string_equal(err, want);
    got = fixture_keep(state, fixture_slurp(path, NULL));
    assert_string_equal(got, "old\n");
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "keep.x");   /* no temporary left behind */
    unlink(path);
}

static void test_write_relative_path(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char cwd[512], err[256], names[512];

    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(tmpdir), 0);
    assert_int_equal(export_to_file(format_find("folded"), p, NULL, "rel.folded", err,
                                    sizeof(err)), 0);
    assert_int_equal(chdir(cwd), 0);
    list_dir(tmpdir, names, sizeof(names));
    assert_string_equal(names, "rel.folded");
    {
        char path[600];

        snprintf(path, sizeof(path), "%s/rel.folded", tmpdir);
        unlink(path);
    }
}

UNIT_MAIN_GROUP(make_dir, remove_dir,
    cmocka_unit_test(test_registry),
    cmocka_unit_test(test_sniffers),
    FIXTURE_TEST(test_empty_outputs),
    FIXTURE_TEST(test_folded_example),
    FIXTURE_TEST(test_folded_sanitize),
    FIXTURE_TEST(test_folded_empty_stack),
    FIXTURE_TEST(test_write_new_and_replace),
    FIXTURE_TEST(test_write_missing_dir),
    FIXTURE_TEST(test_write_readonly_dir),
    FIXTURE_TEST(test_write_refuses_symlinks),
    FIXTURE_TEST(test_write_refuses_system_dirs),
    FIXTURE_TEST(test_write_keeps_mode),
    FIXTURE_TEST(test_write_race_with_symlink),
    FIXTURE_TEST(test_write_std_descriptors),
    FIXTURE_TEST(test_write_file_size_limit),
    FIXTURE_TEST(test_write_refuses_special),
    FIXTURE_TEST(test_write_failure_keeps_old),
    FIXTURE_TEST(test_write_relative_path))
