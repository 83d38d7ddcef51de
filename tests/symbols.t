#!/usr/bin/env bash
# symbols.t - the symbolizer (src/symbols/symbols.c and its parts), driven by tests/tools/symtest
# on running processes whose code addresses and source lines are known:
# tests/tools/symtarget(-cxx) print them (taken with &func,
# __builtin_return_address and __LINE__), so nothing here comes from nm or
# addr2line.  Covers plain, inlined, C++, libc, [vdso], JIT (perf map),
# stripped (functions named by their FDE start) and deleted binaries, unknown addresses, return addresses
# (pc-1), bad input, and one store shared by two processes (symtest --share).
. "$(dirname "$0")/lib.sh"

SYMTEST=$TOOLS/symtest
for t in symtest symtarget symtarget-cxx; do
    [ -x "$TOOLS/$t" ] || skip_all "$TOOLS/$t not built: make tools"
done

jitmap=""
trap '[ -n "$jitmap" ] && rm -f "$jitmap"; cleanup' EXIT

# start_tool BIN: start BIN, wait (at most 10 s) for its "ready" line.
# Sets TPID and TOUT (its output: "KEY VALUE" lines).
start_tool() {
    _target_seq=$((_target_seq + 1))
    TOUT=$TMPD/${1##*/}.$_target_seq.out
    spawn "$1" >"$TOUT" 2>&1
    TPID=$SPAWN_PID
    wait_until 10 grep -qx ready "$TOUT"
}

# val KEY: a value the running tool printed.
val() {
    awk -v k="$1" '$1 == k { print $2 }' "$TOUT"
}

# sym ARGS...: run symtest (bounded); SYM holds its output with each file
# field cut to its basename, SYMRC its status, SYMERR its stderr file.
# Runs that fail or print on stderr (a sanitizer report, say) are counted
# in sym_failed, unless SYM_BAD=1 says the input is meant to be refused.
sym_failed=0
sym() {
    SYMERR=$TMPD/symtest.err
    timeout -k 5 30 "$SYMTEST" "$@" >"$TMPD/symtest.out" 2>"$SYMERR"
    SYMRC=$?
    if [ -z "${SYM_BAD:-}" ] && { [ "$SYMRC" != 0 ] || [ -s "$SYMERR" ]; }; then
        sym_failed=$((sym_failed + 1))
        diag_file "$SYMERR" 5
    fi
    SYM=$(awk -F'|' -v OFS='|' 'NF > 2 { sub(/.*\//, "", $3) } { print }' \
          "$TMPD/symtest.out")
}

# The first frame, and all frames of one address joined by ";".
first() { printf '%s\n' "$SYM" | head -n 1; }
frames() { printf '%s\n' "$SYM" | awk 'NF' | paste -sd';'; }

# map_off PID ADDR: file offset of ADDR in its mapping, as "0x...".
map_off() {
    local addr=$(($2)) range perms off s e
    while read -r range perms off _; do
        s=$((16#${range%-*}))
        e=$((16#${range#*-}))
        if ((addr >= s && addr < e)); then
            printf '0x%x\n' $((addr - s + 16#$off))
            return
        fi
    done <"/proc/$1/maps"
}

# --- C -------------------------------------------------------------------
start_tool "$TOOLS/symtarget" || bail_out "symtarget did not start"
pid=$TPID
plain=$(val plain)
pline=$(val plain_line)

sym -v "$pid" "$plain"
is "$SYMRC" 0 "symtest exits 0"
is "$(first)" "plain_func|symtarget|symtarget.c|$pline|0|$pline|$plain|1" \
    "plain function: name, module, file, line, first line, start"

sym "$pid" "ret:$(val inl_ret)"
is "$(frames)" "inl_step|symtarget|symtarget.c|$(val inl_line)|1;outer_func|symtarget|symtarget.c|$(val call_line)|0" \
    "inlined function: its own frame first, then the caller at the call-site line"

sym "$pid" "ret:$(val ra_second)"
is "$(frames)" "ra_first|symtarget|-|0|0" \
    "return address: the call before it (pc-1), in the function that ends with the call"
sym "$pid" "$(val ra_second)"
is "$(frames)" "ra_second|symtarget|-|0|0" "the same address as a leaf pc: the next function"

sym "$pid" "$(val qsort)"
like "$(first)" '^qsort\|libc\.so\.6\|' "libc function named, module libc.so.6"

sym -v "$pid" 0x10
is "$(frames)" "[unknown]|-|-|0|0|0|0x0|0" "address in no mapping: [unknown], not known"
anon=$(val anon)
sym "$pid" "$anon"
is "$(frames)" "[unknown]|-|-|0|0" "anonymous executable memory without a perf map: [unknown]"

# A JIT's perf map names code in anonymous memory.
jitmap=/tmp/perf-$pid.map
printf '%x 40 jitted_fn\n' $((anon + 0x20)) >"$jitmap"
sym -v "$pid" "$(printf '0x%x' $((anon + 0x30)))" "$(printf '0x%x' $((anon + 0x80)))"
is "$(frames)" "$(printf 'jitted_fn|[jit]|-|0|0|0|0x%x|1;[unknown]|-|-|0|0|0|0x0|0' $((anon + 0x20)))" \
    "perf map: named inside its entry, [unknown] outside"
if [ "$(id -u)" = 0 ] && chown 65534 "$jitmap" 2>/dev/null; then
    sym "$pid" "$(printf '0x%x' $((anon + 0x30)))"
    is "$(frames)" "[unknown]|-|-|0|0" "a perf map owned by another user is ignored"
else
    skip 1 "needs root to give the perf map to another user"
fi
rm -f "$jitmap"
jitmap=""

vdso=$(val vdso)
if [ "$vdso" != 0 ] && [ -n "$vdso" ]; then
    sym "$pid" "$vdso"
    like "$(first)" '^(__vdso_)?clock_gettime\|\[vdso\]\|' "[vdso] function named, module [vdso]"
else
    skip 1 "no __vdso_clock_gettime in this kernel's [vdso]"
fi

# group N: the frames of the Nth address of the last symtest run.
group() { printf '%s\n' "$SYM" | awk -v RS= -v n="$1" 'NR == n { gsub(/\n/, ";"); print }'; }
sym "$pid" "ret:$(val inl_ret)" "$plain" "ret:$(val inl_ret)"
is "$(group 3)" "$(group 1)" \
    "an address looked up again (from the cache) gives the same frames"
is "$(group 3 | tr ';' '\n' | wc -l)" 2 "... all of them"

sym --bench "$pid" 300
is "$SYMRC" 0 "symtest --bench runs"
like "$(printf '%s' "$SYM" | tr '\n' ' ')" 'uncached lookups: [0-9.]+ us/lookup.*cached lookups: [0-9.]+ ns/lookup' \
    "--bench reports uncached and cached costs"

# --- one store for several processes (sym_store.h) ------------------------
# Two processes of one binary, at other load addresses: one load of each
# module, both symbolized through it; freeing a symbolizer releases its
# references, and the last one frees the modules.
qsort1=$(val qsort)
start_tool "$TOOLS/symtarget" || bail_out "a second symtarget did not start"
pid2=$TPID
plain2=$(val plain)
sym --share "$pid:$plain,$qsort1" "$pid2:$plain2,$(val qsort)"
is "$(printf '%s\n' "$SYM" | head -n 4)" "$pid plain_func|symtarget
$pid qsort|libc.so.6
$pid2 plain_func|symtarget
$pid2 qsort|libc.so.6" "--share: a function of the binary and one of libc named in both processes"
# block N: the store's --stats lines once N symbolizers are left.
block() { printf '%s\n' "$SYM" | awk -v n="-- $1 symbolizers" '/^-- / { on = $0 == n; next } on'; }
like "$(block 2 | grep -c '^  module symtarget: 2 processes$')" '^1$' \
    "--share: the binary is loaded once, for both processes"
like "$(block 2 | grep -c '^  module libc.so.6: 2 processes$')" '^1$' \
    "--share: so is libc"
like "$(block 2 | head -n 1)" '^symbol store: ([0-9]+) modules, [0-9]+ references by processes, \1 loaded, 0 freed$' \
    "--share: every module loaded once"
like "$(block 1 | grep '^  module symtarget:')" '^  module symtarget: 1 processes$' \
    "--share: a freed symbolizer releases its references"
like "$(block 0)" '^symbol store: 0 modules, 0 references by processes, ([0-9]+) loaded, \1 freed$' \
    "--share: the last one frees every module"

# --- C++ -----------------------------------------------------------------
start_tool "$TOOLS/symtarget-cxx" || bail_out "symtarget-cxx did not start"
sym "$TPID" "ret:$(val spin_ret)"
is "$(frames)" "ns::Widget<int>::step(int)|symtarget-cxx|symtarget_cxx.cc|$(val step_line)|1;ns::Widget<int>::spin(int)|symtarget-cxx|symtarget_cxx.cc|$(val spin_line)|0" \
    "C++: demangled member of a class template, inlined member as its own frame"
sym "$TPID" "ret:$(val twice_ret)"
is "$(frames)" "ns::twice<long>(long)|symtarget-cxx|symtarget_cxx.cc|$(val twice_line)|0" \
    "C++: function template demangled without its return type"
sym "$TPID" "ret:$(val hidden_ret)"
is "$(frames)" "ns::(anonymous namespace)::hidden|symtarget-cxx|symtarget_cxx.cc|$(val hidden_line)|0" \
    "C++: internal-linkage function qualified by its namespaces"

# --- binaries without symbols, or gone from disk -------------------------
if objcopy --strip-all "$TOOLS/symtarget" "$TMPD/symtarget-stripped" 2>/dev/null; then
    start_tool "$TMPD/symtarget-stripped" || bail_out "stripped copy did not start"
    stripped_pid=$TPID
    plain=$(val plain)
    off=$(map_off "$TPID" "$plain")
    outer=$(val outer)
    sym -v "$TPID" "$plain" "$(printf '0x%x' $((plain + 4)))" "ret:$(val inl_ret)"
    is "$(group 1)" "[symtarget-stripped+$off]|symtarget-stripped|-|0|0|0|$plain|0" \
        "stripped binary: [module+0xFILE_OFFSET] of the function's start (its FDE), not known"
    is "$(group 2)" "$(group 1)" \
        "an address inside the same function: the same frame, named by the start"
    is "$(group 3)" "[symtarget-stripped+$(map_off "$TPID" "$outer")]|symtarget-stripped|-|0|0|0|$outer|0" \
        "a return address past the prologue: named by the FDE's start, not the unwind row's"
else
    skip 3 "objcopy cannot strip"
fi

# --- PLT stubs ---------------------------------------------------------------
# No symbol covers a PLT stub; the symbolizer names each as objdump does
# ("strtod@plt", by the GOT slot its jump reads or the relocation it
# pushes), and the lazy-binding header ".plt", as perf does.  objdump -d
# is the reference here: every stub it labels in .plt, .plt.sec and
# .plt.got, in the stripped copy (its .plt and .plt.got), in libc (whose
# IRELATIVE relocations make the stubs' order differ from .rela.plt's:
# "*ABS*+0x...@plt"), and in symtarget-ibt (built with IBT: .plt.sec).
# plt_check PID FILE WHAT
plt_check() {
    local pid=$1 file=$2 what=$3 lo=0 range perms o f addrs=() want=() got n bad
    while read -r range perms o _ _ f; do
        [ "$f" = "$file" ] && [ "$o" = 00000000 ] && { lo=$((16#${range%-*})); break; }
    done <"/proc/$pid/maps"
    if [ "$lo" = 0 ]; then
        ok 1 "$what: $file is mapped in $pid"
        ok 1 "$what: its stubs named"
        return
    fi
    while read -r a label; do
        addrs+=("$(printf '0x%x' $((lo + 16#$a)))")
        label=${label#<}; label=${label%>:}
        case $label in *@plt-0x*) label=.plt ;; esac
        want+=("$label")
    done < <(objdump -d -j .plt -j .plt.sec -j .plt.got "$file" 2>/dev/null |
             awk '/^[0-9a-f]+ <.*>:$/ { print $1, $2 }')
    n=${#addrs[@]}
    cmp_ok "$n" '>' 1 "$what: objdump labels its PLT stubs ($n)"
    sym "$pid" "${addrs[@]}"
    got=$(printf '%s\n' "$SYM" | awk -F'|' 'NF { print $1 }')
    bad=$(paste -d' ' <(printf '%s\n' "${want[@]}") <(printf '%s\n' "$got") |
          awk '$1 != $2' | head -n 3)
    is "$bad" "" "$what: each of the $n stubs named as objdump labels it (the header .plt)"
}
if command -v objdump >/dev/null 2>&1; then
    if [ -n "${stripped_pid:-}" ]; then
        plt_check "$stripped_pid" "$TMPD/symtarget-stripped" "stripped binary"
    else
        skip 2 "no stripped copy"
    fi
    libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$pid/maps")
    plt_check "$pid" "$libc" "libc.so.6"
    if [ -x "$TOOLS/symtarget-ibt" ] &&
       readelf -SW "$TOOLS/symtarget-ibt" | grep -q '\.plt\.sec'; then
        start_tool "$TOOLS/symtarget-ibt" || bail_out "symtarget-ibt did not start"
        plt_check "$TPID" "$(readlink -f "$TOOLS/symtarget-ibt")" "IBT binary"
    else
        skip 2 "the linker made no .plt.sec for symtarget-ibt"
    fi
else
    skip 6 "no objdump"
fi

# A deleted binary is read through /proc/PID/map_files, which needs
# CAP_SYS_ADMIN (CAP_CHECKPOINT_RESTORE since Linux 5.9).
if [ "$(id -u)" = 0 ]; then
    cp "$TOOLS/symtarget" "$TMPD/symtarget-del"
    start_tool "$TMPD/symtarget-del" || bail_out "deleted copy did not start"
    rm -f "$TMPD/symtarget-del"
    sym "$TPID" "$(val plain)"
    is "$(frames)" "plain_func|symtarget-del|symtarget.c|$(val plain_line)|0" \
        "deleted binary: still symbolized, module name without ' (deleted)'"
else
    skip 1 "needs root to open /proc/PID/map_files"
fi

is "$sym_failed" 0 "every symtest run above exited 0, with nothing on stderr"

# --- bad input -------------------------------------------------------------
SYM_BAD=1 sym 2147483647 0x1000
is "$SYMRC" 1 "a process that does not exist: exit 1"
is "$(awk 'END { print NR }' "$SYMERR")" 1 "... with a one-line error"
SYM_BAD=1 sym "$pid" not-an-address
is "$SYMRC" 2 "a bad address: exit 2"
is "$(awk 'END { print NR }' "$SYMERR")" 1 "... with a one-line error"

done_testing
