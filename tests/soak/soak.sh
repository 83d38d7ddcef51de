#!/usr/bin/env bash
# tests/soak/soak.sh - sproftop -a --idle -F 999 for a long time on a busy
# machine, then every check of issue 26 (not part of `make test`).
#
#   tests/soak/soak.sh [SECONDS]          default 3600
#   SPROFTOP=build-asan/sproftop SOAK_OUT=/tmp/soak/asan \
#     SOAK_LOAD=/tmp/soak/hour tests/soak/soak.sh 900
#                       the ASan build for 15 minutes, beside the hour
#                       whose output directory SOAK_LOAD names (its load
#                       is used; none is started)
#
# The machine is kept busy, for the whole run, by:
#   - a loop of real builds: `make -B -j2 all` of a copy of this tree;
#   - nginx on 127.0.0.1 under `ab` (apt-get installs nginx and
#     apache2-utils when missing: the deps step below);
#   - a /usr/bin/python3 loop and a /usr/bin/ruby loop;
#   - churn (tests/targets/churn.c): 1,000 threads created a second;
#   - dlloop (tests/soak/dlloop.c): dlopen/dlclose in a loop;
#   - reexec (tests/soak/reexec.c): execs itself every second.
# sproftop runs in its live view inside a private tmux server, with
# --stats (stderr to a file) and --snapshot-dir.  Its RSS is read every
# minute.  At the end:
#   1. the live view answers keys: `h` (help) and `h` again (back) five
#      times, each timed from send-keys to the changed screen;
#   2. `p` pauses, the sample count settles, `s` saves a pprof snapshot;
#   3. `q` quits; exit status 0, no sanitizer report on stderr;
#   4. --stats' sample count equals the snapshot's plus what --stats
#      names as left out (samples of no process known, out of memory,
#      -a's idle loop): every sample taken is in it or named; its lost
#      count is the header's "Lost";
#   5. the snapshot read back by its consumers: go tool pprof -raw,
#      sproftop -i (folded), flamegraph.pl, callgrind_annotate (-o
#      .callgrind), speedscope's schema (-o .speedscope.json), each
#      total equal to the snapshot's count;
#   6. RSS at the end <= 2 x RSS at 2 minutes (issue 24);
#   7. after the load is stopped, no process is left stopped (State t/T)
#      or traced (TracerPid) that was not so before the run.
# Everything goes to $SOAK_OUT (default /tmp/soak/run-DATE); the summary
# (summary.md) is what docs/PERFORMANCE.md quotes.  Exit 0 when every
# check holds, 1 otherwise.  Every process started is ended by its
# process group id, recorded when it was started (setsid).
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
DUR=${1:-3600}
BUILD=${BUILD:-build}
SP=${SPROFTOP:-$TOP/sproftop}
case $SP in /*) ;; *) SP=$TOP/$SP ;; esac
OUT=${SOAK_OUT:-/tmp/soak/run-$(date -u +%Y%m%d-%H%M%S)}
NPM_PREFIX=${NPM_PREFIX:-$TOP/build/npm}
PORT=${SOAK_PORT:-$((18000 + $$ % 1000))}
mkdir -p "$OUT/bin" "$OUT/www" "$OUT/nginx"
LOG=$OUT/soak.log
exec 3>&1
log() { printf '%s %s\n' "$(date -u +%T)" "$*" | tee -a "$LOG" >&3; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
FAILS=()
# same A B: 0 when A and B are the same, not empty
same() { [ -n "$1" ] && [ "$1" = "$2" ] && echo 0 || echo 1; }
check() { # check WHAT CONDITION-STATUS DETAIL
    if [ "$2" = 0 ]; then
        log "PASS $1 ($3)"
        echo "- pass: $1 ($3)" >>"$OUT/checks.md"
    else
        log "FAIL $1 ($3)"
        echo "- **FAIL**: $1 ($3)" >>"$OUT/checks.md"
        FAILS+=("$1")
    fi
}
: >"$OUT/checks.md"

# --- deps -------------------------------------------------------------------
need=
command -v nginx >/dev/null 2>&1 || need="$need nginx"
command -v ab >/dev/null 2>&1 || need="$need apache2-utils"
command -v tmux >/dev/null 2>&1 || need="$need tmux"
if [ -n "$need" ]; then
    log "installing:$need"
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
            --no-install-recommends $need >>"$LOG" 2>&1 ||
        { log "cannot install$need"; exit 1; }
fi
# speedscope's schema and its validator (check 5): `make deps` puts them in
# build/npm; a fresh clone has none (the hour of 2026-11-29 skipped it)
if [ ! -d "$NPM_PREFIX/node_modules/ajv" ] && [ "$NPM_PREFIX" = "$TOP/build/npm" ]; then
    make --no-print-directory -C "$TOP" deps >>"$LOG" 2>&1 ||
        log "make deps failed: speedscope's check will be skipped"
fi
[ -x "$SP" ] || { log "no sproftop at $SP (make)"; exit 1; }
make --no-print-directory -C "$TOP" BUILD="$BUILD" \
    "$BUILD/targets/churn" "$BUILD/targets/libA.so" "$BUILD/targets/libB.so" \
    >>"$LOG" 2>&1 || { log "cannot build the targets"; exit 1; }
# what runs for the hour is copied first: a rebuild of the tree meanwhile
# (make rewrites ./sproftop and the targets in place) must not touch it
SP_SRC=$SP
SP=$OUT/bin/sproftop
cp "$SP_SRC" "$SP" &&
    cp "$TOP/$BUILD/targets/churn" "$TOP/$BUILD/targets/libA.so" \
        "$TOP/$BUILD/targets/libB.so" "$OUT/bin/" ||
    { log "cannot copy sproftop and the targets to $OUT/bin"; exit 1; }
for p in dlloop reexec; do
    cc -std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -pthread \
        -Wall -Wextra -I"$TOP/tests/targets" -o "$OUT/bin/$p" \
        "$TOP/tests/soak/$p.c" -pthread -ldl >>"$LOG" 2>&1 ||
        { log "cannot build $p"; exit 1; }
done

# --- the processes this script starts, by process group -----------------------
PGIDS=()
TMUX_PID=
T=(tmux -L "sproftop-soak-$$")
# start NAME CMD...: CMD in a session of its own (its PID is its process
# group id), output to $OUT/NAME.log.
start() {
    local name=$1
    shift
    setsid "$@" >"$OUT/$name.log" 2>&1 </dev/null &
    PGIDS+=("$!")
    eval "PID_$name=$!"
    log "started $name: PID $!"
}
stop_all() {
    local g
    for g in "${PGIDS[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
    local deadline=$(($(date +%s) + 10))
    for g in "${PGIDS[@]}"; do
        while kill -0 -- "-$g" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
            sleep 0.2
        done
        kill -KILL -- "-$g" 2>/dev/null
        wait "$g" 2>/dev/null
    done
    PGIDS=()
    if [ -n "$TMUX_PID" ]; then
        "${T[@]}" kill-server >/dev/null 2>&1
        kill -KILL "$TMUX_PID" 2>/dev/null
        TMUX_PID=
    fi
}
trap 'stop_all' EXIT
trap 'exit 130' INT TERM

# processes stopped or traced before the run: not ours to judge
stuck_now() {
    local f pid st tr
    for f in /proc/[0-9]*/status; do
        pid=${f#/proc/}
        pid=${pid%/status}
        st=$(awk '/^State:/ {print $2} /^TracerPid:/ {print "T" $2}' "$f" 2>/dev/null |
            tr '\n' ' ')
        case $st in
        t\ *|T\ *) echo "$pid stopped ($st)" ;;
        *\ T0\ *|*\ T0) ;;
        *\ T[1-9]*) echo "$pid traced ($st)" ;;
        esac
    done | sort -n
}
stuck_now >"$OUT/stuck.before"

log "soak: $DUR s of $SP_SRC (copied) -a --idle -F 999; out $OUT; load $(loadavg)"
log "nproc $(nproc), $(uname -r), $(git -C "$TOP" rev-parse --short HEAD)"

# --- the load -----------------------------------------------------------------
# SOAK_LOAD=DIR: the load is another run's, already going (its output
# directory, whose counts the summary quotes): two sproftops on one
# busy machine, as the ASan run beside the hour does.
LOAD_DIR=${SOAK_LOAD:-$OUT}
if [ -z "${SOAK_LOAD:-}" ]; then
# builds: a copy of the tree (its own build directory)
rm -rf "$OUT/tree" && mkdir -p "$OUT/tree"
git -C "$TOP" archive HEAD | tar -x -C "$OUT/tree"
start builds bash -c 'n=0; while :; do make -C "$1" -B -j2 all >/dev/null 2>&1;
    n=$((n + 1)); echo "$n $?" >"$2"; done' builds "$OUT/tree" "$OUT/builds.count"

# nginx on 127.0.0.1:PORT, in the foreground of its own session
head -c 4096 /dev/urandom | base64 >"$OUT/www/index.html"
cat >"$OUT/nginx/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 2;
user root;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $OUT/nginx/body;
    proxy_temp_path $OUT/nginx/proxy;
    fastcgi_temp_path $OUT/nginx/fastcgi;
    uwsgi_temp_path $OUT/nginx/uwsgi;
    scgi_temp_path $OUT/nginx/scgi;
    server { listen 127.0.0.1:$PORT; root $OUT/www; }
}
EOF
start nginx nginx -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf"
up=1
for _ in $(seq 100); do
    if ab -q -n 1 "http://127.0.0.1:$PORT/index.html" >/dev/null 2>&1; then up=0; break; fi
    sleep 0.1
done
[ $up = 0 ] || { log "nginx did not answer on 127.0.0.1:$PORT"; cat "$OUT/nginx.log"; exit 1; }
# ab, 30 s at a time (ab -t stops at 50,000 requests too)
start ab bash -c 'while :; do ab -q -k -c 4 -t 30 "$1" 2>&1 |
    grep -E "^(Complete|Failed) requests"; done' ab "http://127.0.0.1:$PORT/index.html"

start python /usr/bin/python3 -c '
import time
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
def work():
    fib(18); time.sleep(0.005)
while True: work()'
start ruby /usr/bin/ruby -e '
def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
def work; fib(18); sleep 0.005; end
loop { work }'
# churn, dlloop and reexec print their counts at the end of a run: one
# run a minute, so the log has them
start churn bash -c 'while :; do "$1" 60 1000; done' churn "$OUT/bin/churn"
start dlloop bash -c 'while :; do "$1" 60 "$2"; done' dlloop "$OUT/bin/dlloop" \
    "$OUT/bin"
start reexec bash -c 'while :; do "$1" 60; done' reexec "$OUT/bin/reexec"
else
    log "the load is that of $SOAK_LOAD"
fi

# --- sproftop in tmux ------------------------------------------------------------
ASAN=${ASAN_OPTIONS:-}
cmd="cd '$OUT' && env ASAN_OPTIONS='$ASAN' sh -c 'echo \$\$ >sp.pid; exec \"\$@\"' sh"
cmd="$cmd '$SP' -a --idle -F 999 --stats --no-confirm --snapshot-dir '$OUT'"
cmd="$cmd 2>'$OUT/sp.err'; echo \$? >'$OUT/sp.rc'; exec cat"
"${T[@]}" new-session -d -s soak -x 160 -y 45 "$cmd"
TMUX_PID=$("${T[@]}" display-message -p '#{pid}' 2>/dev/null)
screen() { "${T[@]}" capture-pane -p -t soak 2>/dev/null; }
for _ in $(seq 200); do [ -s "$OUT/sp.pid" ] && break; sleep 0.1; done
SPPID=$(cat "$OUT/sp.pid" 2>/dev/null)
[ -n "$SPPID" ] || { log "sproftop did not start"; exit 1; }
log "sproftop PID $SPPID (tmux server $TMUX_PID)"
T0=$(date +%s)

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$SPPID/status" 2>/dev/null; }
# header NAME: the value after "NAME: " on the screen
header() { screen | sed -n "s/.*$1: \([^ ]*\).*/\1/p" | head -n 1; }
echo "# minute rss_kb samples lost load1 load5 load15 sproftop_cpu_s" >"$OUT/rss.log"
cpu_s() { awk '{printf "%.1f", ($14 + $15) / 100}' "/proc/$SPPID/stat" 2>/dev/null; }
# SOAK_RSS_MAX_KB (default 8 GiB): past it the run ends early, a failed
# check, before the machine runs out of memory for everyone on it
RSS_MAX=${SOAK_RSS_MAX_KB:-8388608}
alive=0
m=0
big=0
while [ $(($(date +%s) - T0)) -lt "$DUR" ]; do
    next=$((T0 + (m + 1) * 60))
    while [ "$(date +%s)" -lt "$next" ] && [ $(($(date +%s) - T0)) -lt "$DUR" ]; do
        kill -0 "$SPPID" 2>/dev/null || { alive=1; break 2; }
        r=$(rss_kb)
        [ -n "$r" ] && [ "$r" -gt "$RSS_MAX" ] && { big=1; break 2; }
        sleep 1
    done
    m=$((m + 1))
    echo "$m $(rss_kb) $(header Samples) $(header Lost) $(loadavg) $(cpu_s)" >>"$OUT/rss.log"
    screen >"$OUT/screen-last.txt"
done
check "sproftop ran the whole $DUR s" "$((alive | big))" \
    "$(($(date +%s) - T0)) s$([ $big = 1 ] && echo ", ended early: RSS $(rss_kb) kB > $RSS_MAX kB")"
if [ $alive != 0 ]; then
    screen >"$OUT/screen-end.txt"
    sleep 1
    check "exit status 0" 1 "$(cat "$OUT/sp.rc" 2>/dev/null)"
    grep -E 'Sanitizer|runtime error' "$OUT/sp.err" | head -5 >&3
    exit 1
fi
RSS_END=$(rss_kb)
screen >"$OUT/screen-end.txt"
log "end of the run: load $(loadavg), RSS $RSS_END kB"

# --- 1. keys answer --------------------------------------------------------------
# wait_screen SECONDS ERE: poll until the screen matches; prints the ms
# it took, or "SECONDS+" when it never did.
wait_screen() {
    local t0 t1
    t0=$(date +%s%N)
    while ! screen | grep -Eq -- "$2"; do
        t1=$(date +%s%N)
        [ $(((t1 - t0) / 1000000)) -ge $(($1 * 1000)) ] && { echo "$(($1 * 1000))+"; return 1; }
    done
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
HELP_RE='\[8 Help\]'
TREE_RE='\[1 Tree\]'
# what one poll costs here (capture-pane and grep), to read the times by
cap0=$(date +%s%N)
for _ in 1 2 3 4 5; do screen | grep -Eq -- "$HELP_RE"; done
CAP_MS=$((($(date +%s%N) - cap0) / 5000000))
# five times: h opens the help, h again goes back to the tree, each timed
# from send-keys to the screen that shows it (60 s bound: a key the view
# takes longer to answer is timed all the same, and the next one waits)
lat=()
for _ in 1 2 3 4 5; do
    "${T[@]}" send-keys -t soak h
    lat+=("$(wait_screen 60 "$HELP_RE")")
    "${T[@]}" send-keys -t soak h
    lat+=("$(wait_screen 60 "$TREE_RE")")
done
screen >"$OUT/screen-keys.txt"
# the same in a reference pane that answers at once (bash: read a key,
# print a count), measured now: what tmux, the terminal and this load
# add by themselves
cat >"$OUT/refpane.sh" <<'REF'
n=0
while IFS= read -rsn1 _; do
    n=$((n + 1))
    printf '\033[2J\033[Hkey #%d\n' "$n"
done
REF
"${T[@]}" new-session -d -s ref -x 80 -y 5 "bash '$OUT/refpane.sh'"
# key #1 waits for bash to start; the next ten are timed
"${T[@]}" send-keys -t ref h
for _ in $(seq 600); do
    "${T[@]}" capture-pane -p -t ref 2>/dev/null | grep -q '^key #1$' && break
    sleep 0.1
done
ref=()
for i in 2 3 4 5 6 7 8 9 10 11; do
    t0=$(date +%s%N)
    "${T[@]}" send-keys -t ref h
    while ! "${T[@]}" capture-pane -p -t ref 2>/dev/null | grep -q "^key #$i\$"; do
        [ $((($(date +%s%N) - t0) / 1000000)) -ge 60000 ] && break
    done
    ref+=($((($(date +%s%N) - t0) / 1000000)))
done
"${T[@]}" kill-session -t ref 2>/dev/null
ref_med=$(printf '%s\n' "${ref[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
worst=$(printf '%s\n' "${lat[@]}" | tr -d + | sort -n | tail -n 1)
med=$(printf '%s\n' "${lat[@]}" | tr -d + | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
check "the live view answers a key within 100 ms at the end" \
    "$([ "$worst" -le 100 ] && echo 0 || echo 1)" \
    "h, h 5 times: ${lat[*]} ms; median $med, worst $worst; a bash pane answering a key, the same way: ${ref[*]} ms, median $ref_med; one poll of the screen $CAP_MS ms; load $(loadavg)"

# --- 2. pause, wait for the count to settle, save ------------------------------------------
# The header's counts lag the kernel while the collector works through
# what the rings held: wait (10 minutes at most) until the samples and the
# lost samples both stay the same for 5 s.
"${T[@]}" send-keys -t soak p
wait_screen 60 'PAUSED' >/dev/null
t_pause=$(date +%s)
prev= same_n=0
while [ $(($(date +%s) - t_pause)) -lt 600 ]; do
    sleep 1
    cur="$(header Samples) $(header Lost)"
    if [ "$cur" != " " ] && [ "$cur" = "$prev" ]; then
        same_n=$((same_n + 1))
        [ $same_n -ge 5 ] && break
    else
        same_n=0
    fi
    prev=$cur
done
SETTLE=$(($(date +%s) - t_pause))
HDR_SAMPLES=$(header Samples)
HDR_LOST=$(header Lost)
log "paused; the count settled after $SETTLE s at $HDR_SAMPLES (lost $HDR_LOST)"
"${T[@]}" send-keys -t soak s
wait_screen 60 '^Save as pprof' >/dev/null
"${T[@]}" send-keys -t soak Enter
SAVE_MS=$(wait_screen 600 '^saved [0-9]+ samples as pprof to ')
line=$(screen | grep -E '^saved [0-9]+ samples as pprof to ' | head -n 1)
SAVED=$(echo "$line" | sed -n 's/^saved \([0-9]*\) samples.*/\1/p')
SNAP=$(ls "$OUT"/sproftop-*.pb.gz 2>/dev/null | head -n 1)
screen >"$OUT/screen-saved.txt"
check "a snapshot saved with s" "$([ -s "$SNAP" ] && echo 0 || echo 1)" \
    "$SAVED samples in $SAVE_MS ms, $(basename "${SNAP:-none}"), $(stat -c %s "$SNAP" 2>/dev/null) bytes"

# --- 3. quit -------------------------------------------------------------------------
wait_screen 60 "$TREE_RE" >/dev/null
"${T[@]}" send-keys -t soak q
t_q=$(date +%s%N)
for _ in $(seq 1800); do [ -s "$OUT/sp.rc" ] && break; sleep 0.1; done
QUIT_MS=$((($(date +%s%N) - t_q) / 1000000))
RC=$(cat "$OUT/sp.rc" 2>/dev/null)
check "sproftop quits with q, exit status 0" "$(same "$RC" 0)" \
    "status ${RC:-none} after $QUIT_MS ms"
san=$(grep -cE 'Sanitizer|runtime error|==[0-9]+==ERROR' "$OUT/sp.err")
check "no crash, no sanitizer report on stderr" "$([ "$san" = 0 ] && echo 0 || echo 1)" \
    "$san report lines in sp.err"

# --- 4. samples and lost samples ---------------------------------------------------------
ST_LINE=$(grep -E '^samples: ' "$OUT/sp.err" | head -n 1)
ST_SAMPLES=$(echo "$ST_LINE" | sed -n 's/^samples: \([0-9]*\).*/\1/p')
ST_LOST=$(echo "$ST_LINE" | sed -n 's/.*lost \([0-9]*\).*/\1/p')
# what --stats says it left out of the profile, by name: samples of no
# process the collector knew, out of memory, and -a's idle loop
DROP_LINE=$(grep -E '^dropped: ' "$OUT/sp.err" | head -n 1)
UNROUTED=$(echo "$DROP_LINE" | sed -n 's/^dropped: \([0-9]*\) samples of no process.*/\1/p')
OOM=$(echo "$DROP_LINE" | sed -n 's/.* \([0-9]*\) out of memory$/\1/p')
IDLE=$(sed -n 's/.*idle loop left out: \([0-9]*\) samples.*/\1/p' "$OUT/sp.err" | head -n 1)
NAMED=$(( ${UNROUTED:-0} + ${OOM:-0} + ${IDLE:-0} ))
check "every sample --stats counts is in the snapshot, or named by --stats as left out (taken once the count settled)" \
    "$(same "$ST_SAMPLES" "$(( ${SAVED:-0} + NAMED ))")" \
    "--stats: $ST_LINE; snapshot $SAVED + named $NAMED (no process known ${UNROUTED:-0}, out of memory ${OOM:-0}, idle loop ${IDLE:-0}); header $HDR_SAMPLES"
check "the lost samples --stats counts are the header's Lost" \
    "$(same "$ST_LOST" "$HDR_LOST")" "--stats lost $ST_LOST; header Lost: $HDR_LOST"

# --- 5. the snapshot's consumers -----------------------------------------------------------
# The snapshot's counts are weights (--idle: a blocked thread's interval
# counts as many samples as it spans); each file rounds them its own
# way: a total may differ from folded's by at most one per sample
# record.  near TOTAL REF RECORDS: 0 when |TOTAL - REF| <= RECORDS.
near() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" -v n="$3" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= n) }' && echo 0 || echo 1; }
export HOME=$OUT/home GOCACHE=$OUT/gocache PPROF_TMPDIR=$OUT/pprof
mkdir -p "$HOME"
"$SP" -i "$SNAP" -o "$OUT/snap.folded" 2>"$OUT/conv.err"
FOLDED=$(awk '{ s += $NF } END { printf "%d\n", s }' "$OUT/snap.folded" 2>/dev/null)
NSTACKS=$(wc -l <"$OUT/snap.folded")
check "sproftop -i reads it (folded)" "$([ "${FOLDED:-0}" -gt 0 ] && echo 0 || echo 1)" \
    "$FOLDED samples (weights) in $NSTACKS stacks"
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
    read -r n recs < <(go tool pprof -raw "$SNAP" 2>"$OUT/pprof.err" | awk '
        /^Samples:/ { in_s = 1; next } /^Locations/ { in_s = 0 }
        in_s && /^ +[0-9]+ +[0-9]+: / { n += $1; k++ } END { printf "%d %d\n", n, k }')
    check "go tool pprof -raw reads it" "$(near "$n" "$FOLDED" "$recs")" \
        "$n samples in $recs records; folded $FOLDED"
else
    log "skip: go tool pprof not installed"
fi
FG=$(find / -name flamegraph.pl -path '*FlameGraph*' 2>/dev/null | head -n 1)
if [ -n "$FG" ]; then
    perl "$FG" "$OUT/snap.folded" >"$OUT/snap.svg" 2>"$OUT/fg.err"
    n=$(sed -n 's/.*<title>all (\([0-9,]*\) samples.*/\1/p' "$OUT/snap.svg" | tr -d , | head -n 1)
    check "flamegraph.pl draws it" "$(same "$n" "$FOLDED")" "all: $n samples"
else
    log "skip: flamegraph.pl not found (apt-get install ruby-stackprof)"
fi
"$SP" -i "$SNAP" -o "$OUT/snap.callgrind" 2>>"$OUT/conv.err"
if command -v callgrind_annotate >/dev/null 2>&1; then
    n=$(callgrind_annotate "$OUT/snap.callgrind" 2>"$OUT/cga.err" |
        sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d , | head -n 1)
    check "callgrind_annotate reads it" "$(same "$n" "$FOLDED")" "program totals $n"
else
    log "skip: callgrind_annotate not installed"
fi
"$SP" -i "$SNAP" -o "$OUT/snap.speedscope.json" 2>>"$OUT/conv.err"
if command -v node >/dev/null 2>&1 && [ -d "$NPM_PREFIX/node_modules/ajv" ]; then
    node "$TOP/tests/formats/validate_speedscope.js" "$NPM_PREFIX" \
        "$OUT/snap.speedscope.json" >"$OUT/speedscope.out" 2>&1
    v=$(tail -n 1 "$OUT/speedscope.out")
    check "speedscope's schema validates it" "$(same "$v" valid)" \
        "$v, $(grep -c '^profile ' "$OUT/speedscope.out") profiles (threads)"
else
    log "skip: node or $NPM_PREFIX/node_modules/ajv missing (make deps)"
fi

# --- 6. memory ---------------------------------------------------------------------------
RSS2=$(awk '$1 == 2 {print $2}' "$OUT/rss.log")
check "RSS at the end <= 2 x RSS at 2 minutes (issue 24)" \
    "$([ -n "$RSS2" ] && [ -n "$RSS_END" ] && [ "$RSS_END" -le $((2 * RSS2)) ] && echo 0 || echo 1)" \
    "${RSS2:-?} kB at 2 min, ${RSS_END:-?} kB at the end"

# --- 7. nothing left stopped or traced ----------------------------------------------------------
# total WORD NAME: the sum of the numbers after WORD in NAME.log
total() { awk -v w="$1" '$1 == w {n += $2; k++} END {printf "%d in %d runs", n, k}' "$LOAD_DIR/$2.log"; }
for g in "${PGIDS[@]}"; do kill -0 -- "-$g" 2>/dev/null || log "note: group $g had ended early"; done
ALL_PGIDS=("${PGIDS[@]}")
BUILDS=$(cut -d' ' -f1 "$LOAD_DIR/builds.count" 2>/dev/null)
REQS=$(awk '/^Complete requests/ {n += $3} END {print n + 0}' "$LOAD_DIR/ab.log")
REQFAIL=$(awk '/^Failed requests/ {n += $3} END {print n + 0}' "$LOAD_DIR/ab.log")
for _ in $(seq 50); do
    kill -0 "$SPPID" 2>/dev/null || break
    sleep 0.1
done
# while the load still runs (sproftop has quit): twice, 3 s apart: on a shared machine other people's tests trace and
# stop their own processes for a moment; what is left stays
stuck_now >"$OUT/stuck.after1"
sleep 3
stuck_now >"$OUT/stuck.after"
new=$(comm -13 <(cut -d' ' -f1 "$OUT/stuck.before" | sort) \
               <(comm -12 <(cut -d' ' -f1 "$OUT/stuck.after1" | sort) \
                          <(cut -d' ' -f1 "$OUT/stuck.after" | sort)) | tr '\n' ' ')
# Ours: a process of this run's load (its session is one of PGIDS, each
# started by setsid), or one sproftop traces.  The perf sampler stops and
# traces nothing, so any other is someone else's on this shared machine
# (a test that stops its own sproftop, say): listed, with its command.
ours= others=
for p in $new; do
    sid=$(awk '{ sub(/^.*\) /, ""); print $4 }' "/proc/$p/stat" 2>/dev/null)
    tr=$(awk '/^TracerPid:/ {print $2}' "/proc/$p/status" 2>/dev/null)
    cmd=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-80)
    if [ "$tr" = "$SPPID" ] || [[ " ${ALL_PGIDS[*]} " == *" $sid "* ]]; then
        ours="$ours $p ($cmd)"
    else
        others="$others $p ($cmd);"
    fi
done
check "no process left stopped or traced" "$([ -z "$ours" ] && echo 0 || echo 1)" \
    "ours: ${ours:-none}; others' (not this run's load, not traced by it):${others:- none}; before the run: $(wc -l <"$OUT/stuck.before")"
stop_all

# --- summary ----------------------------------------------------------------------------------
{
    echo "Run: \`SPROFTOP=$SP_SRC tests/soak/soak.sh $DUR\` at $(git -C "$TOP" rev-parse --short HEAD), $(date -u +%Y-%m-%d), ended $(date -u +%H:%M) UTC."
    echo
    [ -n "${SOAK_LOAD:-}" ] && echo "The load: that of the run in $SOAK_LOAD (its counts so far)."
    echo "Load: $BUILDS builds of the tree, $REQS requests to nginx ($REQFAIL failed),"
    echo "churn: $(total created churn) threads created, dlloop: $(total cycles dlloop) load/unload cycles of two libraries, reexec: $(total execs reexec) execs (each run is a minute)."
    echo "Load averages (1, 5, 15 min), each minute: $(awk 'NR > 1 {printf "%s%s", (NR > 2 ? ", " : ""), $5}' "$OUT/rss.log") (1-min)."
    echo
    echo "| minute | RSS (kB) | samples | lost | load (1/5/15) | sproftop CPU (s) |"
    echo "|---|---|---|---|---|---|"
    awk 'NR > 1 {printf "| %s | %s | %s | %s | %s %s %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8}' "$OUT/rss.log"
    echo
    cat "$OUT/checks.md"
} >"$OUT/summary.md"
cat "$OUT/summary.md" >&3
[ ${#FAILS[@]} = 0 ]
