/* sym_names.c - interning, demangling and module names; see sym_names.h. */
#include "sym_names.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "strarena.h"
#include "util.h"

/* libstdc++'s demangler (the binary links -lstdc++); C has no header. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

/* A Rust symbol: v0 ("_R" then an uppercase letter, RFC 2603), or the
 * legacy scheme, an Itanium nested name whose last part is the hash
 * "17h" + 16 hex digits ("_ZN4core3fmt5write17h0123456789abcdefE"),
 * which __cxa_demangle would print with its hash. */
static bool rust_symbol(const char *name)
{
    if (name[0] == '_' && name[1] == 'R' && name[2] >= 'A' && name[2] <= 'Z')
        return true;
    size_t n = strlen(name);
    if (strncmp(name, "_ZN", 3) != 0 || n < 3 + 20 || name[n - 1] != 'E' ||
        strncmp(name + n - 20, "17h", 3) != 0)
        return false;
    for (size_t i = n - 17; i < n - 1; i++)
        if (!strchr("0123456789abcdef", name[i]))
            return false;
    return true;
}

/* libiberty's demangler (binutils 2.40's: Rust v0 and legacy, without
 * the legacy hash); NULL when it cannot. */
static char *iberty_rust_demangle(const char *name)
{
    return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST);
}

const char *sym_names_intern(struct strarena *a, const char *s)
{
    return s == NULL ? NULL : strarena_intern(a, s, strlen(s));
}

int sym_names_ends_with(const char *str, const char *suffix)
{
    size_t a = strlen(str), b = strlen(suffix);
    return a >= b && strcmp(str + a - b, suffix) == 0;
}

/* Where the function's name starts in a demangled name.  The return type
 * of a function template ends at the last space outside brackets before
 * the parameter list. */
static const char *skip_return_type(const char *d)
{
    static const char anon[] = "(anonymous namespace)";
    const char *name = d;
    int depth = 0;
    for (const char *p = d; *p != '\0'; p++) {
        if (depth == 0 && strncmp(p, anon, sizeof anon - 1) == 0) {
            p += sizeof anon - 2;
            continue;
        }
        /* "operator<", "operator()": the name has begun, and a return
         * type, if any, was before it. */
        if (depth == 0 && strncmp(p, "operator", 8) == 0 &&
            (p == d || p[-1] == ':' || p[-1] == ' '))
            break;
        if (depth == 0 && *p == '(')
            break;
        if (strchr("<([{", *p) != NULL)
            depth++;
        else if (strchr(">)]}", *p) != NULL && depth > 0)
            depth--;
        else if (depth == 0 && *p == ' ' && p[1] != '\0')
            name = p + 1;
    }
    return name;
}

const char *sym_names_demangle(struct strarena *a, const char *name)
{
    if (rust_symbol(name)) {
        char *d = iberty_rust_demangle(name);
        if (d != NULL) {
            const char *r = sym_names_intern(a, d);
            free(d);
            return r;
        }
    }
    if (name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d != NULL && status == 0) {
            bool special = name[2] == 'T' || name[2] == 'G';
            const char *r = sym_names_intern(a, special ? d : skip_return_type(d));
            free(d);
            return r;
        }
        free(d);
    }
    return sym_names_intern(a, name);
}

size_t sym_names_base(const char *path, const char **start)
{
    static const char del[] = " (deleted)";
    const char *b = util_basename(path);
    size_t n = strlen(b);
    if (sym_names_ends_with(b, del))
        n -= sizeof del - 1;
    *start = b;
    return n;
}

const char *sym_names_basename(struct strarena *a, const char *path)
{
    const char *b;
    size_t n = sym_names_base(path, &b);
    return strarena_intern(a, b, n);
}

const char *sym_names_offset(struct strarena *a, const char *module,
                             uint64_t offset)
{
    char buf[512];
    snprintf(buf, sizeof buf, "[%s+0x%" PRIx64 "]", module ? module : "?",
             offset);
    return sym_names_intern(a, buf);
}
