/* test_frames.c - src/frames: the kallsyms table (parse, lookup, odd
 * text, reload when the source changes) and the off-CPU reason
 * classifier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ksyms.h"
#include "offcpu_reason.h"
#include "profile.h"

static const char kallsyms[] =
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 t __pfx_startup\n"
    "ffffffff81001000 T entry_SYSCALL_64\n"
    "ffffffff81002000 t __pfx_read_zero\n"
    "ffffffff81002010 t read_zero\n"
    "ffffffff81003000 D some_data\n"
    "ffffffff81004000 T vfs_read\n"
    "ffffffffc0201000 t nf_hook_slow\t[nf_conntrack]\n"
    "ffffffffc0201400 T nf_ct_get\t[nf_conntrack]\n"
    "ffffffffc0300000 t ext_fn\t[ext4]\n";

static struct ksyms_table *parse(const char *s)
{
    struct ksyms_table *t = ksyms_table_parse(s, strlen(s));

    assert_non_null(t);
    return t;
}

static void test_lookup(void **state)
{
    (void)state;
    struct ksyms_table *t = parse(kallsyms);
    struct ksym_hit h;
    struct ksyms_stats st;

    assert_true(ksyms_table_lookup(t, 0xffffffff81002050ull, &h));
    assert_string_equal(h.name, "read_zero");
    assert_string_equal(h.module, PROFILE_KERNEL_MODULE);
    assert_int_equal(h.start, 0xffffffff81002010ull);
    /* the first byte, and the alias chosen at a shared address */
    assert_true(ksyms_table_lookup(t, 0xffffffff81000000ull, &h));
    assert_string_equal(h.name, "_text");
    assert_true(ksyms_table_lookup(t, 0xffffffff81001fffull, &h));
    assert_string_equal(h.name, "entry_SYSCALL_64");
    /* a module's function */
    assert_true(ksyms_table_lookup(t, 0xffffffffc0201404ull, &h));
    assert_string_equal(h.name, "nf_ct_get");
    assert_string_equal(h.module, "[nf_conntrack]");
    assert_true(ksyms_table_lookup(t, 0xffffffffc0300001ull, &h));
    assert_string_equal(h.module, "[ext4]");
    /* outside every symbol: below the first, in data, too far past */
    assert_false(ksyms_table_lookup(t, 0xffffffff80000000ull, &h));
    assert_false(ksyms_table_lookup(t, 0xffffffff81003008ull, &h));
    assert_false(ksyms_table_lookup(t, 0xffffffff81004000ull + KSYMS_MAX_FUNC,
                                    &h));
    assert_false(ksyms_table_lookup(t, 0x400000, &h));
    ksyms_table_stats(t, &st);
    assert_int_equal(st.symbols, 9); /* 3 at _text's address are one */
    assert_int_equal(st.modules, 2);
    assert_int_equal(st.bad_lines, 0);
    assert_false(st.hidden);
    ksyms_table_free(t);
}

static void test_odd_text(void **state)
{
    (void)state;
    struct ksyms_table *t;
    struct ksyms_stats st;
    struct ksym_hit h;
    char big[2048];

    /* kptr_restrict: every address 0 */
    t = parse("0000000000000000 T _text\n0000000000000000 t read_zero\n");
    ksyms_table_stats(t, &st);
    assert_true(st.hidden);
    assert_int_equal(st.symbols, 0);
    assert_false(ksyms_table_lookup(t, 0xffffffff81002010ull, &h));
    ksyms_table_free(t);
    /* garbage, no newline at the end, overlong names, bad modules */
    memset(big, 'x', sizeof(big));
    memcpy(big, "ffffffff81000000 T ", 19);
    big[sizeof(big) - 1] = '\0';
    t = parse(big);
    ksyms_table_stats(t, &st);
    assert_int_equal(st.symbols, 0);
    assert_int_equal(st.bad_lines, 1);
    ksyms_table_free(t);
    t = parse("\n\nnot a line\nffffffff81000000\nffffffff81000000 T\n"
              "ffffffff81000000 T  \nzzzz T f\n"
              "ffffffff81000100 T ok\t[unclosed\n"
              "ffffffff81000200 T ok2\t[]\n"
              "11111111111111111111 T toolong\n"
              "ffffffff81000300 T last");
    ksyms_table_stats(t, &st);
    assert_int_equal(st.symbols, 1);
    assert_int_equal(st.bad_lines, 8);
    assert_true(ksyms_table_lookup(t, 0xffffffff81000301ull, &h));
    assert_string_equal(h.name, "last");
    ksyms_table_free(t);
    t = parse("");
    ksyms_table_stats(t, &st);
    assert_false(st.hidden);
    assert_false(ksyms_table_lookup(t, 1, &h));
    ksyms_table_free(t);
}

static void write_file(const char *path, const char *text)
{
    char tmp[256];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rename(tmp, path), 0);
}

/* A module loaded while sampling: its addresses miss until the source
 * changes, then (at most once a second) the table is read again. */
static void test_reload(void **state)
{
    (void)state;
    char dir[] = "/tmp/sproftop-ksyms.XXXXXX", path[256];
    struct ksyms *k;
    struct ksym_hit h;
    struct ksyms_stats st;
    const uint64_t s = 1000000000ull;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/kallsyms", dir);
    write_file(path, "ffffffff81000000 T _text\n");
    k = ksyms_new(path);
    assert_non_null(k);
    assert_false(ksyms_check(k, 9 * s)); /* not read yet */
    assert_false(ksyms_lookup(k, 0xffffffffc0000010ull, 10 * s, 10 * s, &h));
    uint64_t e = ksyms_epoch(k);
    write_file(path, "ffffffff81000000 T _text\n"
                     "ffffffffc0000000 t mod_fn\t[mod]\n");
    /* within the second: not looked at again */
    assert_false(ksyms_check(k, 10 * s + 1));
    assert_false(ksyms_lookup(k, 0xffffffffc0000010ull, 10 * s + 1, 10 * s + 1, &h));
    assert_true(ksyms_check(k, 11 * s + 2));
    assert_true(ksyms_lookup(k, 0xffffffffc0000010ull, 11 * s + 2, 11 * s + 2, &h));
    assert_string_equal(h.name, "mod_fn");
    assert_string_equal(h.module, "[mod]");
    assert_true(ksyms_epoch(k) != e);
    /* unloaded: gone from the next table */
    write_file(path, "ffffffff81000000 T _text\n");
    assert_true(ksyms_check(k, 13 * s));
    assert_false(ksyms_lookup(k, 0xffffffffc0000010ull, 13 * s, 13 * s, &h));
    /* unchanged: not read again */
    e = ksyms_epoch(k);
    assert_false(ksyms_check(k, 15 * s));
    assert_int_equal(ksyms_epoch(k), e);
    ksyms_get_stats(k, &st);
    assert_int_equal(st.reloads, 3);
    assert_int_equal(st.lookups, 4);
    assert_int_equal(st.misses, 3);
    assert_int_equal(st.symbols, 1);
    /* a sample taken while the module was loaded, named late (a slow
     * collector): by the table of its time, not the current one */
    assert_int_equal(ksyms_table_at(k, 12 * s), 1);
    assert_true(ksyms_lookup(k, 0xffffffffc0000010ull, 12 * s, 15 * s, &h));
    assert_string_equal(h.name, "mod_fn");
    /* ...and one taken before it was loaded, by the first table */
    assert_int_equal(ksyms_table_at(k, 10 * s), 2);
    assert_false(ksyms_lookup(k, 0xffffffffc0000010ull, 10 * s, 15 * s, &h));
    assert_int_equal(ksyms_table_at(k, 13 * s), 0);
    /* the tables replaced go KSYMS_OLD_NS after: then the oldest kept
     * names what is older still */
    assert_false(ksyms_check(k, 13 * s + KSYMS_OLD_NS + 1));
    assert_int_equal(ksyms_table_at(k, 12 * s), 0);
    assert_false(ksyms_lookup(k, 0xffffffffc0000010ull, 12 * s, 15 * s, &h));
    ksyms_free(k);
    /* at most KSYMS_KEEP tables: the oldest goes */
    write_file(path, "ffffffff81000000 T _text\n");
    k = ksyms_new(path);
    ksyms_load(k, s);
    for (unsigned i = 1; i <= KSYMS_KEEP; i++) {
        char text[128];
        snprintf(text, sizeof text, "ffffffff81000000 T _text\n"
                 "ffffffffc0000000 t mod_fn%u\t[mod]\n", i);
        write_file(path, text);
        assert_true(ksyms_check(k, (1 + 2 * i) * s));
    }
    assert_int_equal(ksyms_table_at(k, 0), KSYMS_KEEP - 1);
    assert_true(ksyms_lookup(k, 0xffffffffc0000010ull, 0, 20 * s, &h));
    assert_string_equal(h.name, "mod_fn1"); /* the first, unnamed, gone */
    assert_true(ksyms_lookup(k, 0xffffffffc0000010ull, 8 * s, 20 * s, &h));
    assert_string_equal(h.name, "mod_fn3");
    ksyms_free(k);
    /* a source that cannot be read: every lookup misses */
    unlink(path);
    k = ksyms_new(path);
    assert_false(ksyms_lookup(k, 0xffffffff81000000ull, s, s, &h));
    ksyms_get_stats(k, &st);
    assert_true(st.unreadable);
    ksyms_free(k);
    rmdir(dir);
}

static void test_refusal(void **state)
{
    (void)state;
    char dir[] = "/tmp/sproftop-ksyms.XXXXXX", path[256], buf[256];

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/kallsyms", dir);
    write_file(path, "0000000000000000 T _text\n0000000000000000 T x\n");
    assert_true(ksyms_refusal(path, buf, sizeof(buf)));
    assert_non_null(strstr(buf, "kptr_restrict"));
    write_file(path, "ffffffff81000000 T _text\n");
    assert_false(ksyms_refusal(path, buf, sizeof(buf)));
    unlink(path);
    assert_false(ksyms_refusal(path, buf, sizeof(buf)));
    rmdir(dir);
    assert_string_equal(ksyms_unknown_name(0xffffffff81abcdefull, buf,
                                           sizeof(buf)),
                        "[kernel]+0xffffffff81abcdef");
}

static enum offcpu_reason classify(const char *stack, bool preempt,
                                   char *func, size_t n)
{
    char copy[1024];
    const char *names[64];
    size_t k = 0, which;

    snprintf(copy, sizeof(copy), "%s", stack);
    for (char *s = strtok(copy, " "); s && k < 64; s = strtok(NULL, " "))
        names[k++] = s;
    enum offcpu_reason r = offcpu_classify(names, k, preempt, &which);
    snprintf(func, n, "%s", r == OFFCPU_OTHER ? names[which] : "");
    return r;
}

/* The stacks perf record -e context-switches -g showed for
 * tests/targets/waits.c's threads (innermost first). */
static void test_reasons(void **state)
{
    (void)state;
    char f[128], buf[128];

    assert_int_equal(classify("schedule io_schedule folio_wait_bit "
                              "folio_wait_writeback", false, f, sizeof(f)),
                     OFFCPU_DISK);
    assert_int_equal(classify("schedule+0x23 schedule_timeout+0x1 "
                              "io_schedule_timeout wait_for_completion_io_timeout"
                              " submit_bio_wait blkdev_issue_flush", false, f,
                              sizeof(f)), OFFCPU_DISK);
    assert_int_equal(classify("schedule futex_do_wait __futex_wait futex_wait",
                              false, f, sizeof(f)), OFFCPU_LOCK);
    assert_int_equal(classify("schedule schedule_timeout wait_woken "
                              "sk_wait_data tcp_recvmsg_locked", false, f,
                              sizeof(f)), OFFCPU_NET);
    assert_int_equal(classify("schedule schedule_hrtimeout_range_clock "
                              "do_epoll_wait __x64_sys_epoll_wait", false, f,
                              sizeof(f)), OFFCPU_POLL);
    assert_int_equal(classify("schedule do_nanosleep+0x5e/0x140 "
                              "hrtimer_nanosleep", false, f, sizeof(f)),
                     OFFCPU_SLEEP);
    assert_int_equal(classify("schedule irqentry_exit_to_user_mode "
                              "asm_sysvec_apic_timer_interrupt", false, f,
                              sizeof(f)), OFFCPU_CPU);
    assert_int_equal(classify("schedule do_nanosleep", true, f, sizeof(f)),
                     OFFCPU_CPU);
    assert_int_equal(classify("schedule rwsem_down_read_slowpath "
                              "lock_mm_and_find_vma exc_page_fault", false, f,
                              sizeof(f)), OFFCPU_LOCK);
    assert_int_equal(classify("schedule handle_mm_fault exc_page_fault", false,
                              f, sizeof(f)), OFFCPU_FAULT);
    assert_int_equal(classify("schedule ep_poll.isra.0", false, f, sizeof(f)),
                     OFFCPU_POLL);
    assert_int_equal(classify("schedule schedule_timeout pipe_read+0x10 "
                              "vfs_read", false, f, sizeof(f)), OFFCPU_OTHER);
    assert_string_equal(f, "pipe_read+0x10");
    assert_int_equal(classify("schedule schedule_timeout", false, f, sizeof(f)),
                     OFFCPU_UNKNOWN);
    assert_int_equal(classify("", false, f, sizeof(f)), OFFCPU_UNKNOWN);
    assert_string_equal(offcpu_reason_frame(OFFCPU_OTHER, "pipe_read+0x10",
                                            buf, sizeof(buf)),
                        "[off-CPU: other: pipe_read]");
    assert_string_equal(offcpu_reason_frame(OFFCPU_DISK, NULL, buf,
                                            sizeof(buf)),
                        "[off-CPU: disk I/O]");
    assert_string_equal(offcpu_reason_frame(OFFCPU_GVL, NULL, buf,
                                            sizeof(buf)),
                        "[off-CPU: lock (GVL)]");
    assert_string_equal(offcpu_reason_frame(OFFCPU_CPU, NULL, buf,
                                            sizeof(buf)),
                        "[off-CPU: waiting for a CPU]");
    /* the frame reads back as a reason, with its label */
    struct frame_desc d = { .name = buf, .kind = (uint8_t)profile_name_kind(buf) };
    char label[64];
    assert_int_equal(d.kind, FRAME_REASON);
    assert_string_equal(profile_reason_label(&d, label, sizeof(label)),
                        "waiting for a CPU");
    assert_true(offcpu_irq_entry("asm_sysvec_apic_timer_interrupt"));
    assert_true(offcpu_irq_entry("handle_softirqs+0x10"));
    assert_false(offcpu_irq_entry("do_idle"));
    assert_false(offcpu_irq_entry(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_odd_text),
        cmocka_unit_test(test_reload),
        cmocka_unit_test(test_refusal),
        cmocka_unit_test(test_reasons),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
