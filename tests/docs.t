#!/usr/bin/env bash
# docs.t - the documentation says what the program does, and installs.
#
#   - docs/sproftop.1 formats without a warning (groff -ww; mandoc -T lint
#     when installed);
#   - its OPTIONS are exactly the options of `sproftop --help`, and its
#     OPTIONS section and README.md's option tables are what
#     tests/docs/options.sh generates from `sproftop --help-options`;
#   - its KEYS section and README.md's key table are what
#     tests/docs/keys.sh generates from `sproftop --help-keys`;
#   - its FORMATS, and the sections of docs/FORMATS.md, are exactly the
#     formats `--help` lists;
#   - every environment variable the code reads is under ENVIRONMENT, and
#     every --script command under SCRIPTS;
#   - its version is the program's; `--help` fits in 80 columns;
#     `--version` names the version and the libraries;
#   - screenshots/ holds only PNGs made by tests/screenshots/make.sh, each
#     shown by README.md, and tests/screenshots/ansi2html.pl draws SGR
#     colours as it should;
#   - `make install` / `make uninstall` with DESTDIR add and remove the
#     binary and the man page.
. "$(dirname "$0")/lib.sh"
require_sproftop

MAN=$TOP/docs/sproftop.1
FORMATS_MD=$TOP/docs/FORMATS.md
README=$TOP/README.md

# section NAME: the man page's lines from ".SH NAME" up to the next .SH.
section() {
    awk -v name="$1" '
        /^\.SH / { on = ($0 == ".SH " name || $0 == ".SH \"" name "\"") ; next }
        on' "$MAN"
}

# tags: the tag lines of the .TP items on stdin, as plain text (font
# escapes dropped, \- made -, macro names and quotes removed).
tags() {
    awk '
        /^\.TP/ { tag = 1; next }
        tag && /^\.\\"/ { next }
        tag { print; tag = 0 }' |
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/^\.[A-Z]* *//' -e 's/"//g'
}

# opt_words: the option names (-x, --long-name) in the text on stdin.
opt_words() {
    grep -oE '(^|[ ,[])--?[A-Za-z][A-Za-z-]*' | sed 's/^[ ,[]//' | sort -u
}

# same_set DESC LEFT_NAME LEFT RIGHT_NAME RIGHT: the two newline-separated
# lists hold the same words; the diagnostics say which side lacks what.
same_set() {
    local desc=$1 ln=$2 l=$3 rn=$4 r=$5 only_l only_r
    only_l=$(comm -23 <(printf '%s\n' "$l" | sort -u) <(printf '%s\n' "$r" | sort -u))
    only_r=$(comm -13 <(printf '%s\n' "$l" | sort -u) <(printf '%s\n' "$r" | sort -u))
    if [ -z "$only_l" ] && [ -z "$only_r" ] && [ -n "$l" ]; then
        ok 0 "$desc"
    else
        ok 1 "$desc"
        [ -n "$l" ] || diag "  $ln is empty"
        [ -n "$only_l" ] && diag "  in $ln but not in $rn: ${only_l//$'\n'/ }"
        [ -n "$only_r" ] && diag "  in $rn but not in $ln: ${only_r//$'\n'/ }"
        return 1
    fi
}

help_text=$("$SPROFTOP" --help 2>&1)
is "$?" 0 "sproftop --help exits 0"

# --- the man page formats cleanly ---------------------------------------------

if command -v groff >/dev/null 2>&1; then
    out=$(groff -man -ww -z "$MAN" 2>&1)
    is "$out" "" "groff -man -ww -z docs/sproftop.1 prints no warning"
    out=$(groff -man -ww -Tutf8 -P-cbou -rLL=80n "$MAN" 2>/dev/null | grep -c '^NAME$')
    is "$out" 1 "the man page renders, with a NAME section"
else
    skip 2 "groff not installed"
fi
if command -v mandoc >/dev/null 2>&1; then
    out=$(mandoc -T lint "$MAN" 2>&1)
    is "$out" "" "mandoc -T lint docs/sproftop.1 finds nothing"
else
    skip 1 "mandoc not installed"
fi
for s in NAME SYNOPSIS DESCRIPTION OPTIONS MODES KEYS FORMATS "EXIT STATUS" \
    ENVIRONMENT PERMISSIONS FILES "SEE ALSO"; do
    grep -qE "^\.SH \"?$s\"?$" "$MAN"
    ok $? "the man page has a $s section"
done

# --- options -------------------------------------------------------------------

help_opts=$(printf '%s\n' "$help_text" | opt_words)
man_opts=$(section OPTIONS | tags | opt_words)
same_set "the man page's OPTIONS are exactly the options of --help" \
    "--help" "$help_opts" "docs/sproftop.1 OPTIONS" "$man_opts"

# --- generated option tables ---------------------------------------------------

out=$(SPROFTOP=$SPROFTOP "$TOP/tests/docs/options.sh" --check 2>&1)
ok $? "README.md and docs/sproftop.1 option tables match --help-options (else: make docs)" ||
    diag "$out"
opts_md=$("$SPROFTOP" --help-options 2>&1)
same_set "--help-options lists exactly the options of --help" \
    "--help" "$help_opts" "--help-options" "$(printf '%s\n' "$opts_md" | grep '^| `' | cut -d'`' -f2 | opt_words)"
man_items=$(section OPTIONS | grep -c '^\.TP')
is "$man_items" "$(printf '%s\n' "$opts_md" | grep -c '^| `')" \
    "the man page's OPTIONS section has one item per option"

# --- generated key tables ------------------------------------------------------

out=$(SPROFTOP=$SPROFTOP "$TOP/tests/docs/keys.sh" --check 2>&1)
ok $? "README.md and docs/sproftop.1 key tables match --help-keys (else: make docs)" ||
    diag "$out"
keys_md=$("$SPROFTOP" --help-keys 2>&1)
rows=$(printf '%s\n' "$keys_md" | grep -c '^| `')
cmp_ok "$rows" '>=' 20 "--help-keys prints the key table ($rows keys)"
man_keys=$(section KEYS | grep -c '^\.TP')
is "$man_keys" "$rows" "the man page's KEYS section has one item per key"

# --- formats -------------------------------------------------------------------

# "Formats:" and its indented continuation lines.
help_formats=$(printf '%s\n' "$help_text" | awk '
    /^Formats:/ { on = 1; sub(/^Formats:/, ""); print; next }
    on && /^[ \t]/ { print; next }
    { on = 0 }' | tr ' \t' '\n\n' | grep .)
man_formats=$(section FORMATS | tags | awk '{ print $1 }')
same_set "the man page's FORMATS are exactly the formats of --help" \
    "--help" "$help_formats" "docs/sproftop.1 FORMATS" "$man_formats"
# Each format's file names, from its ".exts" in the format table
# (src/formats/format.c), are on its FORMATS tag line, and no other name is.
bad=""
registry=$(sed -n 's/^ *\.name *= *"\([^"]*\)",.*/\1/p
                  s/^ *\.exts *= *"\([^"]*\)",.*/\1/p' \
    "$TOP/src/formats/format.c" | paste - -)
for name in $help_formats; do
    exts=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' <<<"$registry")
    if [ -z "$exts" ]; then
        bad="$bad $name: no one-line .name/.exts in format.c;"
        continue
    fi
    tag=$(section FORMATS | tags | awk -v n="$name" '$1 == n' | tr -d '(),' |
        tr ' ' '\n' | grep '^[.a-z]' | grep -v "^$name\$" | sort -u)
    want=$(tr ' ' '\n' <<<"$exts" | grep . | sort -u)
    [ "$tag" = "$want" ] || bad="$bad $name: man says '${tag//$'\n'/ }', code '$exts';"
done
is "$bad" "" "the man page gives each format the file names of its exporter"

if [ -f "$FORMATS_MD" ]; then
    md_formats=$(sed -n 's/^## `\([a-z0-9_-]*\)`.*/\1/p' "$FORMATS_MD")
    same_set "docs/FORMATS.md has one section per format of --help" \
        "--help" "$help_formats" "docs/FORMATS.md" "$md_formats"
else
    ok 1 "docs/FORMATS.md exists"
fi

# --- environment and script commands -------------------------------------------

code_env=$(cat "$TOP"/src/*/*.c "$TOP"/ui/*.c |
    grep -oE '(secure_)?(getenv|unsetenv)\("[A-Za-z_][A-Za-z0-9_]*"\)' |
    sed 's/.*("\(.*\)")/\1/' | sort -u)
man_env=$(section ENVIRONMENT | tags | tr -d ',' | tr ' ' '\n' | grep -E '^[A-Z_][A-Z0-9_]*$' | sort -u)
missing=$(comm -23 <(printf '%s\n' "$code_env") <(printf '%s\n' "$man_env"))
if [ -n "$code_env" ] && [ -z "$missing" ]; then
    ok 0 "every environment variable the code reads is under ENVIRONMENT"
else
    ok 1 "every environment variable the code reads is under ENVIRONMENT"
    diag "  not documented: ${missing//$'\n'/ }"
fi

script_cmds=$(grep -oE '"(:[a-z]+)[ "]' "$TOP/ui/script.c" | sed 's/^"\(:[a-z]*\).*/\1/' | sort -u)
man_cmds=$(section SCRIPTS | tags | grep -oE '^:[a-z]+' | sort -u)
same_set "the man page's SCRIPTS lists the --script commands of ui/script.c" \
    "ui/script.c" "$script_cmds" "docs/sproftop.1 SCRIPTS" "$man_cmds"

# --- version and --help --------------------------------------------------------

version=$(sed -n 's/^VERSION *:*= *//p' "$TOP/Makefile")
ver_out=$("$SPROFTOP" --version 2>&1)
is "$?" 0 "sproftop --version exits 0"
is "$(printf '%s\n' "$ver_out" | head -n 1)" "sproftop $version" \
    "--version's first line is 'sproftop $version' (the Makefile's VERSION)"
like "$ver_out" 'libunwind [0-9]+\.[0-9]+.*elfutils [0-9]+\.[0-9]+.*ncurses [0-9]+\.[0-9]+' \
    "--version names the libunwind, elfutils and ncurses versions"
th_version=$(sed -n 's/^\.TH [^ ]* [^ ]* [^ ]* "sproftop \([^"]*\)".*/\1/p' "$MAN")
is "$th_version" "$version" "the man page's .TH names version $version"

widest=$(printf '%s\n' "$help_text" | awk '{ if (length($0) > w) { w = length($0); l = $0 } }
    END { print w }')
cmp_ok "$widest" '<=' 80 "--help fits in 80 columns (widest line: $widest)"

# --- screenshots ---------------------------------------------------------------

shot_names=$(sed -n 's/^if wanted \([a-z]*\); then$/\1/p' "$TOP/tests/screenshots/make.sh" | sort -u)
files=$(cd "$TOP/screenshots" 2>/dev/null && ls -A)
non_png=$(printf '%s\n' "$files" | grep -v '\.png$' | grep .)
is "$non_png" "" "screenshots/ holds nothing but PNG files"
pngs=$(printf '%s\n' "$files" | sed -n 's/\.png$//p')
same_set "screenshots/ holds exactly the shots tests/screenshots/make.sh takes" \
    "make.sh" "$shot_names" "screenshots/" "$pngs"
block=$(awk '/<!-- screenshots:begin -->/ { on = 1 } on { print } /<!-- screenshots:end -->/ { on = 0 }' "$README")
shown=$(printf '%s\n' "$block" | grep -oE '\(screenshots/[^)]+\.png\)' | sed 's/^(screenshots\/\(.*\)\.png)$/\1/' | sort -u)
same_set "README.md's screenshots section shows every screenshot, and only those" \
    "screenshots/" "$pngs" "README.md" "$shown"
bad=""
for p in $pngs; do
    f=$TOP/screenshots/$p.png
    magic=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
    size=$(stat -c %s "$f")
    # IHDR: width and height, big-endian, at bytes 16..23.
    dims=$(od -An -tu1 -j16 -N8 "$f" | awk '{ printf "%d %d", ((($1*256+$2)*256+$3)*256+$4), ((($5*256+$6)*256+$7)*256+$8) }')
    w=${dims% *} h=${dims#* }
    [ "$magic" = 89504e470d0a1a0a ] || bad="$bad $p.png: not a PNG;"
    [ "$size" -lt 300000 ] || bad="$bad $p.png: $size bytes (300 KB at most);"
    [ "${w:-0}" -ge 640 ] && [ "${h:-0}" -ge 400 ] || bad="$bad $p.png: ${w}x$h is too small;"
done
is "$bad" "" "each screenshot is a PNG of at least 640x400 and under 300 KB"

# ansi2html.pl on known input: 16 and 256 colours, bold, reverse, and a
# line padded to the width with the background in force at its end.
A2H=$TOP/tests/screenshots/ansi2html.pl
html=$(printf '\033[1;31mhot\033[0m \033[38;5;196mx\033[48;5;22my\033[0m\n\033[7mrev\033[27m\033[42mbar\n' |
    perl "$A2H" 10 3 "t" 2>&1)
like "$html" '<span style="color:#cc3e3e;font-weight:bold">hot</span>' "ansi2html: SGR 1;31 is bold red"
like "$html" '<span style="color:#ff0000">x</span><span style="color:#ff0000;background:#005f00">y</span>' \
    "ansi2html: 38;5;196 and 48;5;22 are 256-colour red and green"
like "$html" '<span style="color:#1c1c1c;background:#d0d0d0">rev</span>' "ansi2html: reverse swaps the colours"
like "$html" '<span style="color:#d0d0d0;background:#4e9a06">bar    </span>' \
    "ansi2html: a line ending on a background is padded with it to the width"
rows_out=$(printf '%s\n' "$html" | awk '/<pre>/ { on = 1; next } /<\/pre>/ { on = 0 } on' | wc -l)
is "$rows_out" 3 "ansi2html: as many rows as asked, blank ones added"

# --- install / uninstall -------------------------------------------------------

# The nested make builds nothing: it runs only when ./sproftop is up to
# date (after `make`), and gets none of the outer make's flags.
mk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory BUILD=build)
if ! command -v make >/dev/null 2>&1; then
    skip 6 "make not installed"
elif ! "${mk[@]}" -q all >/dev/null 2>&1; then
    skip 6 "./sproftop is not up to date (run make)"
else
    dest=$TMPD/destdir
    "${mk[@]}" install PREFIX=/usr DESTDIR="$dest" >"$TMPD/install.out" 2>&1
    ok $? "make install PREFIX=/usr DESTDIR=... succeeds" || diag_file "$TMPD/install.out"
    check "it installs an executable usr/bin/sproftop" test -x "$dest/usr/bin/sproftop"
    is "$("$dest/usr/bin/sproftop" --version 2>&1 | head -n 1)" "sproftop $version" \
        "the installed binary runs and says its version"
    check "it installs usr/share/man/man1/sproftop.1 as in docs/" \
        cmp -s "$MAN" "$dest/usr/share/man/man1/sproftop.1"
    "${mk[@]}" uninstall PREFIX=/usr DESTDIR="$dest" >"$TMPD/uninstall.out" 2>&1
    ok $? "make uninstall with the same DESTDIR succeeds" || diag_file "$TMPD/uninstall.out"
    left=$(cd "$dest" && find . \( -type f -o -type l \) | sort)
    is "$left" "" "after make uninstall no file is left"
fi

done_testing
