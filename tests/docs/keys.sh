#!/usr/bin/env bash
# tests/docs/keys.sh - regenerate the key tables of README.md and
# docs/sproftop.1 from `sproftop --help-keys` (`make docs`).
#
#   tests/docs/keys.sh            rewrite the generated sections
#   tests/docs/keys.sh --check    exit 1, naming the stale files, when a
#                                 rewrite would change anything
#
# --help-keys prints the request table of ui/request.h (the one the help
# screen is drawn from) as Markdown: "### Group" headings, each followed by
# a "| Keys | Action |" table.  README.md gets it verbatim between
#   <!-- keys:begin --> and <!-- keys:end -->
# and the man page gets it as roff (.SS per group, .TP per key) between
#   .\" keys:begin ...    and    .\" keys:end
# Everything outside the markers is left alone.  SPROFTOP names the
# binary ($TOP/sproftop by default).
set -u

me=keys.sh
# shellcheck source=tests/docs/lib.sh
. "$(dirname "$0")/lib.sh"
help_md --help-keys key "$tmp/keys.md"

# The Markdown tables as man(7): a group becomes .SS, each row a .TP
# whose tag is the keys in bold and whose body is the action.  Roff
# escapes: a backslash is \e, a minus in a key name \- (it is typed as
# one), a double quote inside the quoted tag \(dq, and a line that would
# start with '.' or '\'' gets \& in front.
awk '
    function roff_text(s) {
        gsub(/\\/, "\\e", s)
        if (s ~ /^[.\047]/)
            s = "\\&" s
        return s
    }
    function roff_key(s) {
        gsub(/\\/, "\\e", s)
        gsub(/-/, "\\-", s)
        gsub(/"/, "\\(dq", s)
        return s
    }
    # Compact lists (.PD 0) with room for "Backspace, C-h" in the tag.
    /^### / { sub(/^### +/, ""); if (groups++) print ".PD"
              print ".SS " roff_text($0); print ".PD 0"; next }
    /^\| *Keys *\|/ || /^\|[-| ]+\|$/ || /^[ \t]*$/ { next }
    /^\| `/ {
        line = $0
        sub(/^\| `/, "", line)
        i = index(line, "` | ")
        if (i == 0) { bad = 1; next }
        keys = substr(line, 1, i - 1)
        action = substr(line, i + 4)
        sub(/ *\|$/, "", action)
        print ".TP 16"
        print ".B \"" roff_key(keys) "\""
        print roff_text(action)
        next
    }
    { bad = 1 }
    END { if (groups) print ".PD"; exit bad }
' "$tmp/keys.md" >"$tmp/keys.roff" || {
    echo "keys.sh: unexpected line in --help-keys output" >&2
    exit 1
}

update "$readme" '^<!-- keys:begin -->$' '^<!-- keys:end -->$' "$tmp/keys.md" '<!-- keys:begin -->'
update "$man" '^\.\\" keys:begin' '^\.\\" keys:end' "$tmp/keys.roff" '.\" keys:begin'

finish "key tables"
