/* script.c - parse --script files into input events.
 *
 * See script.h.  The whole file is parsed before curses starts, so a bad
 * script fails with a one-line error instead of half a test run.
 */
#include "script.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "vec.h"

struct script {
    struct script_event *ev;
    size_t n, cap, next;
};

static int add_event(struct script *s, struct script_event e)
{
    if (VEC_RESERVE(s->ev, s->cap, s->n + 1) < 0)
        return -1;
    s->ev[s->n++] = e;
    return 0;
}

/* :type TEXT: one key event per character. */
static int add_text(struct script *s, struct script_event e, const char *text)
{
    for (const char *c = text; *c; c++) {
        e.key = (unsigned char)*c;
        if (add_event(s, e) < 0)
            return -1;
    }
    return 0;
}

/* The commands: the word with the space before its argument, or the
 * whole line when it takes none. */
static const struct {
    const char *word;
    enum script_kind kind;
    const char *usage;    /* NULL: no argument beyond a path */
} commands[] = {
    { ":type ", SCRIPT_KEY, NULL },
    { ":dump ", SCRIPT_DUMP, NULL },
    { ":load ", SCRIPT_LOAD, NULL },
    { ":print ", SCRIPT_PRINT, NULL },
    { ":refresh", SCRIPT_REFRESH, NULL },
    { ":resize ", SCRIPT_RESIZE, ":resize COLS LINES" },
};

/* Parse one command line (it starts with ':'); 0, 1 for an unknown
 * command, -1 on OOM. */
static int parse_command(struct script *s, struct script_event e,
                         const char *line, const char **usage)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        const char *w = commands[i].word;
        size_t wl = strlen(w);
        bool has_arg = w[wl - 1] == ' ';
        if (has_arg ? strncmp(line, w, wl) != 0 || !line[wl]
                    : strcmp(line, w) != 0)
            continue;
        const char *arg = line + wl;
        e.kind = commands[i].kind;
        *usage = commands[i].usage;
        switch (e.kind) {
        case SCRIPT_KEY:
            return add_text(s, e, arg);
        case SCRIPT_RESIZE: {
            char extra;
            if (sscanf(arg, "%d %d %c", &e.cols, &e.lines, &extra) != 2 ||
                e.cols < 1 || e.lines < 1 || e.cols > 1000 || e.lines > 1000)
                return 1;
            break;
        }
        case SCRIPT_DUMP:
        case SCRIPT_LOAD:
        case SCRIPT_PRINT:
            if (!(e.path = strdup(arg)))
                return -1;
            break;
        case SCRIPT_REFRESH:
            break;
        }
        *usage = NULL;
        if (add_event(s, e) < 0) {
            free(e.path);
            return -1;
        }
        return 0;
    }
    return 1;
}

/* Parse one line into events; 0, or -1 with err set. */
static int parse_line(struct script *s, char *line, int lineno,
                      const char *path, char *err, size_t errlen)
{
    size_t len = strlen(line);
    struct script_event e = { .lineno = lineno };
    const char *usage = NULL;
    int rc;

    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
    if (len == 0 || (len > 1 && line[0] == '#'))
        return 0;
    if (len > 1 && line[0] == ':') {
        rc = parse_command(s, e, line, &usage);
        if (rc > 0 && usage)
            snprintf(err, errlen, "%s:%d: usage: %s", path, lineno, usage);
        else if (rc > 0)
            snprintf(err, errlen, "%s:%d: unknown command %s", path, lineno,
                     line);
    } else {
        e.kind = SCRIPT_KEY;
        e.key = request_key_parse(line);
        if (e.key < 0) {
            snprintf(err, errlen, "%s:%d: unknown key %s", path, lineno, line);
            return -1;
        }
        rc = add_event(s, e);
    }
    if (rc < 0)
        snprintf(err, errlen, "%s: out of memory", path);
    return rc ? -1 : 0;
}

struct script *script_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    struct script *s;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;

    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    while (getline(&line, &cap, f) >= 0) {
        if (parse_line(s, line, ++lineno, path, err, errlen) < 0) {
            script_free(s);
            s = NULL;
            break;
        }
    }
    if (s && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        script_free(s);
        s = NULL;
    }
    free(line);
    fclose(f);
    return s;
}

const struct script_event *script_next(struct script *s)
{
    return s->next < s->n ? &s->ev[s->next++] : NULL;
}

void script_free(struct script *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->ev[i].path);
    free(s->ev);
    free(s);
}
