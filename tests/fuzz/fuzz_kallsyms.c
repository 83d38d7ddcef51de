/* fuzz_kallsyms.c - libFuzzer target for the kallsyms parser
 * (src/frames/ksyms.c): any text parses without a crash, a hang or a
 * leak, and every lookup that hits is sound: a function at or below the
 * address, no further than KSYMS_MAX_FUNC, with a name and a module.
 * The addresses looked up are every symbol's (read back from the input),
 * one byte either side, and 0 and ~0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct ksyms_table *t, uint64_t addr)
{
    struct ksym_hit h;

    if (!ksyms_table_lookup(t, addr, &h))
        return;
    if (!h.name || !h.module || !*h.name || h.start > addr ||
        addr - h.start >= KSYMS_MAX_FUNC || strlen(h.name) > KSYMS_NAME_MAX) {
        fprintf(stderr, "unsound hit for %#llx: %s %s %#llx\n",
                (unsigned long long)addr, h.name ? h.name : "(null)",
                h.module ? h.module : "(null)", (unsigned long long)h.start);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ksyms_table *t = ksyms_table_parse((const char *)data, size);
    struct ksyms_stats st;

    if (!t)
        return 0; /* out of memory */
    ksyms_table_stats(t, &st);
    if (st.hidden && st.symbols)
        abort();
    check(t, 0);
    check(t, UINT64_MAX);
    /* every address the text names, and its neighbours */
    for (size_t off = 0; off < size;) {
        char hex[17];
        size_t n = 0;
        while (off + n < size && n < 16 &&
               strchr("0123456789abcdefABCDEF", data[off + n]) && data[off + n])
            n++;
        memcpy(hex, data + off, n);
        hex[n] = '\0';
        if (n) {
            uint64_t a = strtoull(hex, NULL, 16);
            check(t, a);
            check(t, a - 1);
            check(t, a + 1);
        }
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        off = nl ? (size_t)(nl - data) + 1 : size;
    }
    ksyms_table_free(t);
    return 0;
}
