#!/usr/bin/env bash
# engine_names.t - names for stripped code, live (issue 15).
#
# tests/targets/names.c has three static hot functions with 60/30/10 of
# the samples as their own time; targets.mk builds it with its debug info
# split off (names.debug), stripped (names-stripped), with a
# .gnu_debuglink (names-link) and with MiniDebugInfo (names-mini).
#   - No debug info anywhere: each function is one frame named by its
#     FDE start, "[names-stripped+0xSTART]", with its share.
#   - The build-id tree of a private debug root ($SPROFTOP_DEBUG_ROOT),
#     the .gnu_debuglink and MiniDebugInfo each name them.
#   - A real debuginfod server (Debian's `debuginfod`, on 127.0.0.1 at a
#     free port, with its own database, serving a folder that holds
#     names.debug) names them live, the samples taken before the debug
#     info arrived merge under the names, and the client's cache serves a
#     second run with the server gone; in the live view (tmux) the header
#     counts the fetch and the tree shows the names.
#     Two processes of the binary share the module, and both are named.
#   - A profile saved as pprof keeps the build-ids (Mapping.build_id),
#     reads back byte for byte, and is renamed when loaded with the debug
#     info at hand (debug root or server).
#   - A dead URL, and a server that never answers, cost nothing but the
#     names: no sample is lost, the frames stay "[names-stripped+0xSTART]",
#     the fetch is given up after $DEBUGINFOD_MAXTIME, and in the live view
#     the samples keep coming in while the fetch waits.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets names names.debug names-stripped names-link names-mini

# Nothing from the environment the test runs in: no servers, the
# client's cache and the debug root private.
unset DEBUGINFOD_URLS DEBUGINFOD_MAXTIME DEBUGINFOD_TIMEOUT DEBUGINFOD_PROGRESS
export DEBUGINFOD_CACHE_PATH=$TMPD/no-cache
export SPROFTOP_DEBUG_ROOT=$TMPD/no-debug
mkdir -p "$SPROFTOP_DEBUG_ROOT"

DUR=3
BUILD_ID=$(readelf -n "$TARGETS/names" | awk '/Build ID/ { print $3 }')

# func_offset NAME: the file offset of function NAME of the names binary,
# as "0x..." (its symbol's address through the PT_LOAD holding it).
func_offset() {
    local v type off va fsz
    v=$((16#$(nm "$TARGETS/names" | awk -v n="$1" '$3 == n { print $1 }')))
    while read -r type off va fsz; do
        if ((v >= va && v < va + fsz)); then
            printf '0x%x\n' $((v - va + off))
            return
        fi
    done < <(readelf -lW "$TARGETS/names" | awk '$1 == "LOAD" { print $1, $2, $3, $5 }')
}

# profile TARGET OUT [SECONDS]: sample TARGET (started here, attached
# with -p) at 500 Hz for SECONDS (default DUR) into the file OUT, with
# --stats (in $ERR); the environment is the caller's.  A target starved
# of CPU on a loaded machine can give a few hundred samples, too few for
# shares within 5 points: then it is sampled again, for longer, until
# MIN_SAMPLES came (at most 3 runs).  With FRESH_CACHE=1 the client's
# cache is emptied before a second run, so it fetches again.
MIN_SAMPLES=800
profile() {
    local secs=${3:-$DUR} try n
    for try in 1 2 3; do
        start_target "$1" 60 || bail_out "cannot start $1"
        local pid=$TARGET_PID
        run_sproftop -p "$pid" -d "$secs" -F 500 -o "$2" --stats
        [ "$RC" = 0 ] || diag_file "$ERR"
        kill_pid "$pid"
        n=$(sed -n 's/^samples: \([0-9]*\).*/\1/p' "$ERR")
        [ "${n:-0}" -ge "$MIN_SAMPLES" ] || [ "$try" = 3 ] && return
        note "$1: only ${n:-0} samples in $secs s (a loaded machine): sampled again"
        secs=$(((secs * MIN_SAMPLES + ${n:-0} + 49) / (${n:-0} + 50) + 1))
        ((secs <= 20)) || secs=20
        [ "${FRESH_CACHE:-}" != 1 ] || rm -rf "$DEBUGINFOD_CACHE_PATH"
    done
}

# pct N TOTAL
pct() { awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.1f", 100 * n / t; else print -1 }'; }

# shares_ok FILE A B C DESC: the frames A, B and C are in 60, 30 and 10
# percent (+-5) of FILE's samples.
shares_ok() {
    local file=$1 total a b c
    total=$(folded_total "$file")
    a=$(pct "$(folded_count_frame "$file" "$2")" "$total")
    b=$(pct "$(folded_count_frame "$file" "$3")" "$total")
    c=$(pct "$(folded_count_frame "$file" "$4")" "$total")
    note "$5: $2 $a%, $3 $b%, $4 $c% of $total samples"
    awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
        exit !(a >= 55 && a <= 65 && b >= 25 && b <= 35 && c >= 5 && c <= 15) }'
    ok $? "$5: 60/30/10 split ($a/$b/$c)"
}

# unnamed FILE: the distinct frames of the stripped module, one a line.
unnamed() {
    awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
           for (i = 1; i <= k; i++) if (f[i] ~ /^\[names-stripped\+/) print f[i] }' "$1" | sort -u
}

# stat_line PATTERN: the --stats line of the last run matching PATTERN.
stat_line() { grep -E "$1" "$ERR" | head -n 1; }

A="[names-stripped+$(func_offset hot_a)]"
B="[names-stripped+$(func_offset hot_b)]"
C="[names-stripped+$(func_offset hot_c)]"

# --- no debug info: one frame per function, by its FDE start ------------
profile names-stripped "$TMPD/bare.pb.gz"
is "$RC" 0 "stripped target sampled without debug info, saved as pprof"
stats=$(cat "$ERR")
run_sproftop -i "$TMPD/bare.pb.gz" -o "$TMPD/bare.folded"
run_sproftop -i "$TMPD/bare.pb.gz" -o "$TMPD/again.pb.gz"
check "the pprof file reads back and writes again byte for byte" \
    cmp "$TMPD/bare.pb.gz" "$TMPD/again.pb.gz"
shares_ok "$TMPD/bare.folded" "$A" "$B" "$C" "no debug info"
n=$(unnamed "$TMPD/bare.folded" | wc -l)
cmp_ok "$n" '<=' 5 "the stripped module shows as $n frames (its functions, not one per address)"
[ "$n" -le 5 ] || diag "$(unnamed "$TMPD/bare.folded" | head -n 20)"
like "$(printf '%s\n' "$stats" | grep '^debug info:')" '[1-9][0-9]* modules without it; debuginfod off' \
    "--stats: modules without debug info, debuginfod off"

# --- local debug info ---------------------------------------------------------
root=$TMPD/debug-root
mkdir -p "$root/.build-id/${BUILD_ID:0:2}"
cp "$TARGETS/names.debug" "$root/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug"
SPROFTOP_DEBUG_ROOT=$root profile names-stripped "$TMPD/buildid.folded"
shares_ok "$TMPD/buildid.folded" hot_a hot_b hot_c "debug root .build-id/xx/yyyy.debug"
cmp_ok "$(folded_count_chain "$TMPD/buildid.folded" main hot_a mix_step)" '>' 0 \
    "... with the inlined frame (main;hot_a;mix_step)"
is "$(unnamed "$TMPD/buildid.folded")" "" "... and no unnamed frame"
SPROFTOP_DEBUG_ROOT=$root run_sproftop -i "$TMPD/bare.pb.gz" -o "$TMPD/loaded.folded"
shares_ok "$TMPD/loaded.folded" hot_a hot_b hot_c "the saved profile, loaded with the debug root"
is "$(unnamed "$TMPD/loaded.folded")" "" "... every frame of the module renamed"

profile names-link "$TMPD/link.folded"
shares_ok "$TMPD/link.folded" hot_a hot_b hot_c ".gnu_debuglink next to the binary"
cmp_ok "$(folded_count_chain "$TMPD/link.folded" main hot_a mix_step)" '>' 0 \
    "... with the inlined frame"

profile names-mini "$TMPD/mini.folded"
shares_ok "$TMPD/mini.folded" hot_a hot_b hot_c "MiniDebugInfo (.gnu_debugdata)"

# --- debuginfod: a real server -----------------------------------------------
free_port() {
    perl -MIO::Socket::INET -e \
        'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0)->sockport'
}

# probe URL: the server answers for our build-id.  A cache of its own,
# emptied each time: the client remembers a miss for ten minutes, and the
# runs below must start with nothing cached.
probe() {
    rm -rf "$TMPD/probe-cache"
    DEBUGINFOD_URLS=$1 DEBUGINFOD_CACHE_PATH=$TMPD/probe-cache \
        debuginfod-find debuginfo "$BUILD_ID" >/dev/null 2>&1
}

if ! command -v debuginfod >/dev/null || ! command -v debuginfod-find >/dev/null; then
    skip 30 "Debian's debuginfod package is not installed (make deps)"
    done_testing
fi

mkdir -p "$TMPD/srv"
cp "$TARGETS/names.debug" "$TMPD/srv/"
srv=""
for try in 1 2 3; do
    port=$(free_port)
    # -t 0 -g 0: one scan, no rescans or grooming; -d: a private database
    spawn debuginfod -F -p "$port" -d "$TMPD/db-$try.sqlite" -t 0 -g 0 \
        "$TMPD/srv" >"$TMPD/srv.log" 2>&1
    srv=$SPAWN_PID
    url=http://127.0.0.1:$port
    wait_until 20 probe "$url" && break
    kill_pid "$srv"
    srv=""
done
[ -n "$srv" ] || { diag_file "$TMPD/srv.log"; bail_out "debuginfod did not serve $BUILD_ID"; }
note "debuginfod PID $srv at $url"

export DEBUGINFOD_CACHE_PATH=$TMPD/cache
DEBUGINFOD_URLS=$url FRESH_CACHE=1 profile names-stripped "$TMPD/live.folded"
is "$RC" 0 "sampled with DEBUGINFOD_URLS=$url"
shares_ok "$TMPD/live.folded" hot_a hot_b hot_c "names fetched from debuginfod"
cmp_ok "$(folded_count_chain "$TMPD/live.folded" main hot_a mix_step)" '>' 0 \
    "... with the inlined frame"
is "$(unnamed "$TMPD/live.folded")" "" \
    "samples taken before the debug info came are merged under the names"
# (libc is asked for too: the private debug root hides libc6-dbg's files)
like "$(stat_line '^debug info:')" 'debuginfod: 1 found, [0-9]+ missing, 0 gave up after [0-9]+ s, 0 pending' \
    "--stats: 1 fetch found"
late=$(stat_line '^late names:')
like "$late" '^late names: 1 modules given debug info, [1-9][0-9]* frames renamed, [1-9][0-9]* samples taken before$' \
    "--stats: frames renamed, and samples had been taken before the names came"
check "the fetched debug info is in the client's cache" \
    test -s "$TMPD/cache/$BUILD_ID/debuginfo"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMPD/cache-load \
    run_sproftop -i "$TMPD/bare.pb.gz" -o "$TMPD/loaded-fetched.folded"
shares_ok "$TMPD/loaded-fetched.folded" hot_a hot_b hot_c \
    "the saved profile, loaded with DEBUGINFOD_URLS"

# Two processes of the binary: one module in the symbol store, which
# asks debuginfod once for the session, and both processes are named.
start_target names-stripped 60 || bail_out "cannot start names-stripped"
p1=$TARGET_PID
start_target names-stripped 60 || bail_out "cannot start names-stripped"
p2=$TARGET_PID
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMPD/cache-two \
    run_sproftop -p "$p1,$p2" -d "$DUR" -F 500 -o "$TMPD/two.folded" --stats
kill_pid "$p1"
kill_pid "$p2"
is "$RC" 0 "two processes sampled with DEBUGINFOD_URLS"
like "$(stat_line '^debug info:')" 'debuginfod: 1 found, [0-9]+ missing, 0 gave up after [0-9]+ s, 0 pending' \
    "--stats: the fetch for the two processes found"
like "$(stat_line '^  module names-stripped: ')" '^  module names-stripped: 2 processes$' \
    "--stats: one module for both"
for p in "$p1" "$p2"; do
    read -r yes no < <(folded_under_root "$TMPD/two.folded" "names-stripped-$p" hot_a)
    cmp_ok "$yes" '>' 0 "hot_a named under names-stripped-$p ($yes samples)"
done
is "$(unnamed "$TMPD/two.folded")" "" "... and no frame of either left unnamed"

# The live view, in a real terminal (tmux): the header counts the fetch.
if command -v tmux >/dev/null; then
    T=(tmux -L "sproftop-names-$$")
    trap '"${T[@]}" kill-server >/dev/null 2>&1; cleanup' EXIT
fi

# ui_start NAME VAR=VALUE...: sproftop -F 500 -p $TARGET_PID in a 100x30
# tmux session NAME, with that environment; its status lands in
# $TMPD/NAME.rc.
ui_start() {
    local name=$1
    shift
    "${T[@]}" new-session -d -s "$name" -x 100 -y 30 \
        "cd '$TMPD' && env $* '$SPROFTOP' --no-confirm -F 500 -p $TARGET_PID 2>'$TMPD/$name.err'; echo \$? >'$TMPD/$name.rc'"
}
header_samples() {
    "${T[@]}" capture-pane -p -t "$1" 2>/dev/null | sed -n 's/.* Samples: \([0-9]*\).*/\1/p' | head -n 1
}
# ui_quit NAME: q, and sproftop exits 0.
ui_quit() {
    "${T[@]}" send-keys -t "$1" q
    wait_until 10 test -s "$TMPD/$1.rc"
    is "$(cat "$TMPD/$1.rc" 2>/dev/null)" 0 "live view ($1): q exits 0"
    "${T[@]}" kill-session -t "$1" >/dev/null 2>&1
}

if command -v tmux >/dev/null; then
    start_target names-stripped 60 || bail_out "cannot start names-stripped"
    ui_start live DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$TMPD/cache-ui"
    wait_until 20 screen_has live 'Debuginfod: 1 ok 0 wait'
    ok $? "live view: the header counts the fetch (Debuginfod: 1 ok 0 wait ...)"
    wait_until 20 screen_has live ' hot_a'
    ok $? "live view: the tree names hot_a"
    ui_quit live
    kill_pid "$TARGET_PID"
else
    skip 3 "tmux not installed"
fi

kill_pid "$srv"
wait_until 5 eval '! probe "$url"'
ok $? "debuginfod (PID $srv) stopped"

# The cache answers a second run without any server.
DEBUGINFOD_URLS=$url profile names-stripped "$TMPD/cached.folded"
shares_ok "$TMPD/cached.folded" hot_a hot_b hot_c "second run, server gone: names from the cache"

# A dead URL: nothing fetched, nothing in the way.
export DEBUGINFOD_CACHE_PATH=$TMPD/cache-dead
DEBUGINFOD_URLS=$url profile names-stripped "$TMPD/dead.folded"
shares_ok "$TMPD/dead.folded" "$A" "$B" "$C" "dead URL: frames stay unnamed"
like "$(stat_line '^debug info:')" 'debuginfod: 0 found, [1-9][0-9]* missing, 0 gave up' \
    "--stats: the fetches missed"
like "$(stat_line '^samples:')" ', lost 0,' "dead URL: no sample lost"

# A server that takes the connection and never answers: the fetch is
# given up after DEBUGINFOD_MAXTIME, and sampling never waits for it.
perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(Listen => 5, LocalAddr => "127.0.0.1", LocalPort => 0) or die;
    print $s->sockport, "\n"; close STDOUT; sleep 120' >"$TMPD/hole.port" &
hole=$!
_pids+=("$hole")
wait_until 5 test -s "$TMPD/hole.port"
export DEBUGINFOD_CACHE_PATH=$TMPD/cache-hole
DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$TMPD/hole.port") DEBUGINFOD_MAXTIME=2 FRESH_CACHE=1 \
    profile names-stripped "$TMPD/hole.folded" 4
shares_ok "$TMPD/hole.folded" "$A" "$B" "$C" "silent server: frames stay unnamed"
# A run sampled again on a loaded machine may sample a second module
# without debug info (and fetch it too): every fetch is given up, none
# is found or missed.
like "$(stat_line '^debug info:')" 'debuginfod: 0 found, 0 missing, [1-9][0-9]* gave up after 2 s' \
    "--stats: the fetch was given up after DEBUGINFOD_MAXTIME (2 s)"
like "$(stat_line '^samples:')" ', lost 0,' "silent server: no sample lost"

# ...and in the live view the samples keep coming while the fetch waits.
if command -v tmux >/dev/null; then
    start_target names-stripped 60 || bail_out "cannot start names-stripped"
    ui_start hole DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$TMPD/hole.port")" \
        DEBUGINFOD_MAXTIME=12 DEBUGINFOD_CACHE_PATH="$TMPD/cache-hole-ui"
    wait_until 10 screen_has hole 'Debuginfod: 0 ok [1-9] wait'
    ok $? "live view: the fetch waits on the silent server"
    s1=$(header_samples hole)
    grows() {
        local now
        now=$(header_samples hole)
        [ -n "$now" ] && [ -n "$s1" ] && [ "$now" -ge $((s1 + 200)) ] &&
            screen_has hole 'Debuginfod: 0 ok [1-9] wait'
    }
    # the fetch waits 12 s: time for 200 samples however loaded the
    # machine (6 s were too few under ASan at a load of 20)
    wait_until 12 grows
    ok $? "live view: while it waits, the samples go on ($s1, then $(header_samples hole))"
    # one fetch at a time, each given up after 12 s: a second module
    # without debug info (seen on a loaded machine) doubles the wait
    wait_until 60 screen_has hole 'Debuginfod: 0 ok 0 wait [1-9] miss'
    ok $? "live view: given up after DEBUGINFOD_MAXTIME, it counts as a miss"
    ui_quit hole
    kill_pid "$TARGET_PID"
else
    skip 4 "tmux not installed"
fi
kill_pid "$hole"

# --no-debuginfod: no fetcher at all.
start_target names-stripped 60 || bail_out "cannot start names-stripped"
DEBUGINFOD_URLS=http://127.0.0.1:1 run_sproftop --no-debuginfod -p "$TARGET_PID" -d 1 -F 200 \
    -o "$TMPD/off.folded" --stats
kill_pid "$TARGET_PID"
like "$(stat_line '^debug info:')" 'debuginfod off' "--no-debuginfod: nothing is fetched"

done_testing
