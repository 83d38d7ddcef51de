/* duration.c - see duration.h. */
#include "duration.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

static const struct {
    const char *name;
    double ns;
} units[] = {
    { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

int duration_parse(const char *s, double unit_ns, bool rate, double *ns)
{
    char *end;
    double r = -1;

    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0) || !isfinite(v))
        return -1;
    while (*end == ' ')
        end++;
    if (!*end)
        r = v * unit_ns;
    for (size_t i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++)
        if (strcasecmp(end, units[i].name) == 0)
            r = v * units[i].ns;
    if (rate && strcasecmp(end, "hz") == 0)
        r = 1e9 / v;
    if (!(r > 0) || !isfinite(r))
        return -1;
    *ns = r;
    return 0;
}

int duration_parse_seconds(const char *s, double lo, double hi, double *out)
{
    double ns;

    if (!s || duration_parse(s, DURATION_S, false, &ns) < 0)
        return -1;
    double secs = ns / 1e9;
    if (!(secs >= lo && secs <= hi))
        return -1;
    *out = secs;
    return 0;
}
