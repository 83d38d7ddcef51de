#!/usr/bin/env bash
# names_rust.t - Rust's names, and the hint for code without debug info
# (issue 19, item 10):
#   1. the symbolizer's spelling of Rust v0 (_R...) and legacy (_ZN...17h
#      HASH E) symbols, as Rust prints paths, and C++ and C names as before
#      (symtest --demangle drives sym_names_demangle);
#   2. a real run: rustnames, C code under v0 symbol names and without
#      debug info, is named rustdemo::run;rustdemo::inner::spin;
#   3. a real Rust program built here with rustc (-C
#      symbol-mangling-version=v0), when rustc is installed: its functions
#      are named hot::..., no "_R" left;
#   4. the live view says once, with the fix, that hot code has no debug
#      info when no debuginfod server is set; not when one is, nor for a
#      target that has its debug info.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets rustnames split
[ -x "$TOOLS/symtest" ] || skip_all "symtest not built (make tools)"
use_tmux sproftop-rust
SP_TIMEOUT=40

# --- 1. the spelling ---------------------------------------------------------------
got=$("$TOOLS/symtest" --demangle _RNvCs1234_7mycrate3foo \
    _RNvMNtCs1234_7mycrate6moduleINtB2_5StackmE4push \
    _RINvNtCs1234_7mycrate5inner5applymEB4_ \
    _ZN4core3fmt5write17h0123456789abcdefE _ZN2ns3runIdEEdT_ main _Rnot)
is "$(printf '%s\n' "$got" | sed -n 1p)" "_RNvCs1234_7mycrate3foo -> mycrate::foo" \
    "v0: a function of a crate"
is "$(printf '%s\n' "$got" | sed -n 2p)" \
    "_RNvMNtCs1234_7mycrate6moduleINtB2_5StackmE4push -> <mycrate::module::Stack<u32>>::push" \
    "v0: a method of a generic type"
like "$(printf '%s\n' "$got" | sed -n 3p)" '-> mycrate::inner::apply::<u32>' \
    "v0: a generic function, its argument named"
is "$(printf '%s\n' "$got" | sed -n 4p)" \
    "_ZN4core3fmt5write17h0123456789abcdefE -> core::fmt::write" \
    "legacy Rust: the path without its hash"
is "$(printf '%s\n' "$got" | sed -n 5p)" "_ZN2ns3runIdEEdT_ -> ns::run<double>(double)" \
    "C++ as before (no return type)"
is "$(printf '%s\n' "$got" | sed -n 6,7p | tr '\n' ' ')" "main -> main _Rnot -> _Rnot " \
    "C names, and what is not a v0 symbol, unchanged"

# --- 2. v0 names on a real target ---------------------------------------------------
run_sproftop -d 2 -o "$TMPD/rn.folded" -- "$TARGETS/rustnames" 30
is "$RC" 0 "rustnames under sproftop exits 0"
read -r n _ < <(awk '/;rustdemo::run;rustdemo::inner::spin [0-9]+$/ { s += $NF } END { print s + 0 }' \
    "$TMPD/rn.folded")
cmp_ok "$n" '>' 10 "its stacks end in rustdemo::run;rustdemo::inner::spin ($n samples)"
is "$(grep -c '_R[A-Z]' "$TMPD/rn.folded")" 0 "...and no mangled name is left"

# --- 3. a Rust program, when rustc is here ---------------------------------------------
if command -v rustc >/dev/null 2>&1; then
    cat >"$TMPD/hot.rs" <<'EOF'
#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut x = n;
    for _ in 0..2_000_000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    std::hint::black_box(x)
}
fn main() {
    let secs: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let t = std::time::Instant::now();
    let mut s = 0u64;
    while t.elapsed().as_secs() < secs {
        s = s.wrapping_add(spin(s));
    }
    std::hint::black_box(s);
}
EOF
    if timeout 120 rustc -O -C symbol-mangling-version=v0 -C force-frame-pointers=yes \
        -o "$TMPD/hot" "$TMPD/hot.rs" 2>"$TMPD/rustc.err"; then
        check "rustc gave v0 symbols" grep -q '_RNv' <(nm "$TMPD/hot" 2>/dev/null)
        run_sproftop -d 2 -o "$TMPD/hot.folded" -- "$TMPD/hot" 30
        is "$RC" 0 "the Rust program under sproftop exits 0"
        read -r n _ < <(awk '/;hot::spin [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMPD/hot.folded")
        cmp_ok "$n" '>' 10 "its hot function is named hot::spin ($n samples)"
        is "$(grep -c '_R[A-Z]' "$TMPD/hot.folded")" 0 "...and no mangled name is left"
    else
        diag_file "$TMPD/rustc.err"
        skip 4 "rustc could not build the test program"
    fi
else
    skip 4 "rustc not installed: the v0 names are checked on rustnames (C under v0 names) above"
fi

# --- 4. the hint -----------------------------------------------------------------------
hint='no debug info for hot rustnames: set DEBUGINFOD_URLS or install debug packages'
s=nodebug
"${T[@]}" new-session -d -s "$s" -x 120 -y 30 \
    "env -u DEBUGINFOD_URLS '$SPROFTOP' -r 0.3 --no-confirm -- '$TARGETS/rustnames' 60 2>'$TMPD/$s.err'"
check "no debuginfod, hot code without debug info: the view says so, with the fix" \
    wait_until 20 screen_has "$s" "$hint"
screen_has "$s" "$hint" || diag "$(screen "$s")"
keys "$s" 2
wait_until 10 screen_has "$s" 'Self%'
end=$(($(date +%s) + 2))
wait_until 5 eval '[ "$(date +%s)" -ge "$end" ]'
unlike "$(screen "$s")" 'no debug info' "...once: not again at the next refreshes"
keys "$s" q
wait_until 10 eval "! \"\${T[@]}\" has-session -t '$s' 2>/dev/null"

# with a server set (none answers here), or a target with its debug info: no hint
for run in "DEBUGINFOD_URLS=http://127.0.0.1:9 rustnames" "split"; do
    s=quiet
    set -- $run
    envs= tgt=$1
    [ $# = 2 ] && envs="env $1" tgt=$2
    [ -z "$envs" ] && envs="env -u DEBUGINFOD_URLS"
    "${T[@]}" new-session -d -s "$s" -x 120 -y 30 \
        "$envs '$SPROFTOP' -r 0.3 --no-confirm -- '$TARGETS/$tgt' 60 2>'$TMPD/$s.err'"
    wait_until 20 screen_has "$s" 'Samples: [1-9][0-9]' || diag "$(screen "$s")"
    unlike "$(screen "$s")" 'no debug info' "no hint for $run"
    keys "$s" q
    wait_until 10 eval "! \"\${T[@]}\" has-session -t '$s' 2>/dev/null"
done

done_testing
