#!/usr/bin/env bash
# tests/bench/longrun.sh - an hour of `sproftop -a` on a loop of real builds
# (issue 24); run.sh's "long" section (SECTIONS=long) runs it and writes
# its figures into docs/PERFORMANCE.md.
#
#   tests/bench/longrun.sh DIR [MINUTES [TOP_MINUTES]]
#
# A copy of this project is built again and again (make -B -j2 sproftop)
# in DIR/proj while `sproftop -a -d MINUTES*60 --stats -o DIR/long.folded`
# runs; for the first TOP_MINUTES (default 20) `perf top --stdio -a -g`
# runs beside it over the same loop.  Every minute DIR/rss.tsv gets a
# line "MINUTE RSS_KB SPROFTOP_CPU_NS LOAD1 PERF_CPU_NS ANON_KB FILE_KB"
# (perf's 0 once it is gone; the last two: RSS's heap and mapped files); at the end DIR/long.stats holds sproftop's --stats, DIR/done
# the date; DIR/binary names the build measured.  Everything it starts is stopped by process group on exit.
set -u
DIR=${1:?usage: longrun.sh DIR [MINUTES [TOP_MINUTES]]}
MINUTES=${2:-60}
TOP_MINUTES=${3:-20}
cd "$(dirname "$0")/../.."
TOP=$PWD
SP=${SPROFTOP:-$TOP/sproftop}
mkdir -p "$DIR"
rm -f "$DIR/done"
# which sproftop: the commit of this tree, and the binary's path
echo "the build of $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null) ($SP)" >"$DIR/binary"

LOOP_PG=
SP_PID=
TOP_PG=
cleanup() {
    [ -n "$LOOP_PG" ] && kill -TERM -- "-$LOOP_PG" 2>/dev/null
    [ -n "$TOP_PG" ] && kill -TERM -- "-$TOP_PG" 2>/dev/null
    [ -n "$SP_PID" ] && kill -TERM "$SP_PID" 2>/dev/null
    wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# CPU time of all threads of a process, ns
tcpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
rss() { awk '/^VmRSS:/ {print $2}' /proc/"$1"/status 2>/dev/null; }
# one of its RSS's parts (RssAnon: its heap; RssFile: the files it maps)
rss_of() { awk -v k="$1:" '$1 == k {print $2}' /proc/"$2"/status 2>/dev/null; }

# the project to build, as committed
rm -rf "$DIR/proj"
mkdir -p "$DIR/proj"
git archive HEAD | tar -x -C "$DIR/proj"
make -C "$DIR/proj" -j2 sproftop >/dev/null 2>&1
cat >"$DIR/loop.sh" <<'EOF'
#!/bin/sh
echo $$ >"$1/loop.pid"
cd "$1/proj" || exit 1
while :; do make -B -j2 sproftop >/dev/null 2>&1; done
EOF
chmod +x "$DIR/loop.sh"
rm -f "$DIR/loop.pid"
setsid "$DIR/loop.sh" "$DIR" </dev/null >/dev/null 2>&1 &
for _ in $(seq 50); do [ -s "$DIR/loop.pid" ] && break; sleep 0.1; done
LOOP_PG=$(cat "$DIR/loop.pid")
sleep 10

"$SP" -a -d $((MINUTES * 60)) --stats -o "$DIR/long.folded" >/dev/null 2>"$DIR/long.stats" &
SP_PID=$!
cat >"$DIR/top.sh" <<'EOF'
#!/bin/sh
# perf top needs a stdin that stays open (at EOF it spins); timeout
# --foreground stays in this script's process group, which the cleanup
# ends (without it, timeout makes a group of its own, and a run cut
# short left perf top running)
echo $$ >"$1/top.pid"
sleep $(($2 * 60 + 40)) | timeout --foreground $(($2 * 60 + 30)) perf top --stdio -a -g -d 60 >/dev/null 2>&1
EOF
chmod +x "$DIR/top.sh"
rm -f "$DIR/top.pid"
if perf record -q -o "$DIR/probe.data" -- true >/dev/null 2>&1; then
    setsid "$DIR/top.sh" "$DIR" "$TOP_MINUTES" </dev/null >/dev/null 2>&1 &
    for _ in $(seq 50); do [ -s "$DIR/top.pid" ] && break; sleep 0.1; done
    TOP_PG=$(cat "$DIR/top.pid" 2>/dev/null)
fi
rm -f "$DIR/probe.data"

: >"$DIR/rss.tsv"
t0=$(date +%s)
for ((m = 1; m <= MINUTES; m++)); do
    while [ $(($(date +%s) - t0)) -lt $((m * 60)) ]; do
        kill -0 "$SP_PID" 2>/dev/null || break 2
        sleep 1
    done
    ptop=0
    if [ -n "$TOP_PG" ]; then
        perf_pid=$(ps -o pid=,comm= -g "$TOP_PG" 2>/dev/null | awk '$2 == "perf" {print $1; exit}')
        [ -n "$perf_pid" ] && ptop=$(tcpu "$perf_pid")
    fi
    printf '%d %s %s %s %s %s %s\n' "$m" "$(rss "$SP_PID")" "$(tcpu "$SP_PID")" \
        "$(cut -d' ' -f1 /proc/loadavg)" "${ptop:-0}" \
        "$(rss_of RssAnon "$SP_PID")" "$(rss_of RssFile "$SP_PID")" >>"$DIR/rss.tsv"
done
wait "$SP_PID"
SP_PID=
date -u +%Y-%m-%dT%H:%MZ >"$DIR/done"
