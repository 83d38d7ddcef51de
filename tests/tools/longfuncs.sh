#!/bin/sh
# longfuncs.sh [-n LINES] [DIR|FILE...] - list the C functions longer than
# LINES (default 80) lines, longest first: "LINES FILE:LINE NAME".
#
# A function's length runs from the line that names it to its closing
# brace, as universal-ctags (Debian's universal-ctags) reports them.
# Defaults to src/ and ui/ at the top of the checkout.  Exits 0 (a list
# to read, not a verdict); 2 on bad use or no ctags.
#
#   tests/tools/longfuncs.sh              # the issue's rule: over 80 lines
#   tests/tools/longfuncs.sh -n 60 src/model
set -eu

limit=80
if [ "${1:-}" = -n ]; then
    limit=${2:-}
    shift 2 || { echo "usage: $0 [-n LINES] [DIR|FILE...]" >&2; exit 2; }
fi
case $limit in
    ''|*[!0-9]*) echo "longfuncs: -n takes a number of lines" >&2; exit 2 ;;
esac
ctags=$(command -v ctags-universal || command -v ctags || true)
if [ -z "$ctags" ] || ! "$ctags" --version 2>/dev/null | grep -q Universal
then
    echo "longfuncs: needs universal-ctags (make deps installs it)" >&2
    exit 2
fi
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- src ui

find "$@" -name '*.c' -type f | sort |
    "$ctags" -L - -f - --languages=C --kinds-C=f --fields=+ne |
    awk -F'\t' -v limit="$limit" '
        {
            line = end = 0
            for (i = 4; i <= NF; i++) {
                if ($i ~ /^line:/) line = substr($i, 6)
                if ($i ~ /^end:/) end = substr($i, 5)
            }
            n = end - line + 1
            if (line && end && n > limit)
                printf "%d %s:%d %s\n", n, $2, line, $1
        }' |
    sort -k1,1nr -k2,2
