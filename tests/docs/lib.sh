# tests/docs/lib.sh - what the generators of tests/docs/ share: put a
# generated block between two marker lines of a file, or (with --check)
# only say that the file is stale.  Sourced by keys.sh and options.sh
# with their arguments, after setting me (their name, for messages).

# Set up: me=NAME.sh and the script's arguments ("" or --check) come
# from the sourcing script; this sets top, sproftop (SPROFTOP, else
# $top/sproftop), readme, man, check and a scratch directory tmp.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sproftop=${SPROFTOP:-$top/sproftop}
readme=$top/README.md
man=$top/docs/sproftop.1
check=0
case ${1:-} in
--check) check=1 ;;
"") ;;
*)
    echo "usage: tests/docs/$me [--check]" >&2
    exit 2
    ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sproftop-docs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# help_md OPTION WHAT OUT: `sproftop OPTION` (its Markdown tables) into
# OUT, or exit 1 naming WHAT when it fails or prints no table.
help_md() {
    if ! "$sproftop" "$1" >"$3" 2>"$tmp/err"; then
        echo "$me: $sproftop $1 failed: $(head -n 1 "$tmp/err")" >&2
        exit 1
    fi
    if ! grep -q '^| `' "$3"; then
        echo "$me: $sproftop $1 printed no $2 table" >&2
        exit 1
    fi
}

# replace FILE BEGIN_ERE END_ERE BLOCK OUT: FILE with the lines strictly
# between the marker lines replaced by BLOCK's content, into OUT.  Fails
# unless each marker is there exactly once, BEGIN before END.
replace() {
    # Through the environment: awk -v would eat the regexes' backslashes.
    BEGIN_RE=$2 END_RE=$3 BLOCK=$4 awk '
        BEGIN { begin = ENVIRON["BEGIN_RE"]; end = ENVIRON["END_RE"]
                block = ENVIRON["BLOCK"] }
        $0 ~ begin { nb++; print; while ((getline l < block) > 0) print l
                     skip = 1; next }
        $0 ~ end { ne++; if (!skip) bad = 1; skip = 0; print; next }
        !skip { print }
        END { exit (nb != 1 || ne != 1 || bad || skip) }
    ' "$1" >"$5"
}

stale=()
status=0
# update FILE BEGIN_ERE END_ERE BLOCK WHAT
update() {
    local file=$1 new=$tmp/${1##*/}.new
    if ! replace "$file" "$2" "$3" "$4" "$new"; then
        echo "$me: ${file#"$top"/} needs one '$5' begin marker and one end marker, in that order" >&2
        status=1
        return
    fi
    cmp -s "$file" "$new" && return
    if [ "$check" = 1 ]; then
        stale+=("${file#"$top"/}")
    else
        cat "$new" >"$file" && echo "$me: updated ${file#"$top"/}"
    fi
}

# finish WHAT: the exit status, after naming the stale files (--check).
finish() {
    if [ ${#stale[@]} -gt 0 ]; then
        echo "$me: the $1 of ${stale[*]} are stale; run 'make docs' (tests/docs/$me)" >&2
        status=1
    fi
    exit "$status"
}
