#!/usr/bin/env bash
# tests/screenshots/make.sh - the PNGs in screenshots/, taken from the real
# TUI on the bundled demo workload (`make screenshots`).
#
#   tests/screenshots/make.sh [NAME...]     (after `make all targets`)
#
# Steps:
#   1. start build/targets/demo and record a profile of it with batch
#      mode, 5 s at 99 Hz (pprof when this build writes and reads it, since
#      it keeps file:line; folded otherwise);
#   2. for each shot, run sproftop in a private tmux server (110x32,
#      TERM=xterm-256color, LC_ALL=C.UTF-8), send its keys, wait (bounded
#      polling) until the screen shows what the shot is about, and capture
#      the pane with its colours (capture-pane -e);
#   3. turn each capture into HTML (ansi2html.pl beside this script) and
#      screenshot it with headless Chromium.
# "kernel" and "reasons" open a recording of the waits target under
# --idle (kernel frames and off-CPU reasons; perf sampler, root).
# The shot "tree" is taken live (`sproftop -p PID`: the header shows the
# PID and the sampling rate); the others open the recorded file with -i,
# but "window", which opens a recording of the phase target (its hot
# function changes halfway), "diff", which compares two of the test
# profiles of the demo (tests/ui/demo-later.folded against demo.folded),
# and "annotate", live on the loops target.
# Captures and pages stay in $BUILD/screenshots/ for a look; only the PNGs
# go to screenshots/.  Missing tools (tmux, chromium, DejaVu fonts) are
# installed with apt-get, as `make deps` does.  Every process started here
# (the demo, the tmux server) is ended by its PID or socket on the way out.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/screenshots
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
sproftop=${SPROFTOP:-$top/sproftop}
demo=$build/targets/demo
phase=$build/targets/phase
forkwork=$build/targets/forkwork
outdir=$top/screenshots
work=$build/screenshots
cols=110
rows=32
max_bytes=300000
# 99 Hz, the default: at 499 Hz the demo's bursty "parser" thread (about
# 1 ms of work every 7 ms) got 1-3% of the samples instead of ~12%, and
# the shots would hide it.
rec_seconds=${SHOT_SECONDS:-5}
rec_freq=${SHOT_FREQ:-99}

die() {
    echo "screenshots: $*" >&2
    exit 1
}

# --- tools ------------------------------------------------------------------

need_pkgs=()
command -v tmux >/dev/null 2>&1 || need_pkgs+=(tmux)
command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
command -v perl >/dev/null 2>&1 || need_pkgs+=(perl)
fc-list 2>/dev/null | grep -q 'DejaVu Sans Mono' || need_pkgs+=(fonts-dejavu-core fontconfig)
if [ ${#need_pkgs[@]} -gt 0 ]; then
    echo "screenshots: installing ${need_pkgs[*]}" >&2
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    if ! $sudo apt-get update -qq ||
        ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
            --no-install-recommends "${need_pkgs[@]}"; then
        die "cannot install ${need_pkgs[*]}"
    fi
fi
for f in "$sproftop" "$demo" "$phase" "$forkwork"; do
    [ -x "$f" ] || die "$f is not built; run 'make all targets' first"
done

mkdir -p "$work" "$outdir" || die "cannot create $work"

# --- processes we own --------------------------------------------------------

sock=sproftop-shots-$$
tm=(tmux -L "$sock" -f /dev/null)
demo_pid=""
fw_pid=""
loops_pid=""
# end_pid VAR: kill the process whose PID VAR holds (if any), reap it,
# and empty VAR.
end_pid() {
    local p=${!1:-}
    if [ -n "$p" ]; then
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    fi
    printf -v "$1" %s ""
}
finish() {
    "${tm[@]}" kill-server >/dev/null 2>&1
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
    local v
    for v in demo_pid fw_pid loops_pid py_pid; do
        end_pid "$v"
    done
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# wait_for SECONDS CMD...: poll CMD every 50 ms, at most SECONDS.
wait_for() {
    local i tries=$(($1 * 20))
    shift
    for ((i = 0; i < tries; i++)); do
        "$@" && return 0
        sleep 0.05
    done
    "$@"
}

# The demo runs 10 minutes at most, whatever happens to this script;
# started as ./demo so the live header shows no path of this machine.
(cd "${demo%/*}" && exec ./demo 600) </dev/null >/dev/null 2>&1 &
demo_pid=$!
demo_running() {
    [ "$(readlink "/proc/$demo_pid/exe" 2>/dev/null)" = "$(readlink -f "$demo")" ]
}
wait_for 5 demo_running || die "the demo workload did not start"

# --- 1. a recorded profile ---------------------------------------------------

# pprof keeps file:line; use it when this build both writes and reads it.
formats=$("$sproftop" --help | awk '/^Formats:/ { on = 1; print; next }
    on && /^[ \t]/ { print; next } { on = 0 }' | tr '\n\t' '  ')
profile=$work/demo.folded
case " $formats " in
*" pprof "*) profile=$work/demo.pb.gz ;;
esac
rm -f "$profile"
record() {
    echo "screenshots: recording the demo (PID $demo_pid) for $rec_seconds s" \
        "at $rec_freq Hz into ${profile#"$top"/}" >&2
    timeout -k 5 60 "$sproftop" -p "$demo_pid" -d "$rec_seconds" \
        -F "$rec_freq" -o "$profile"
}
record ||
    die "recording the demo failed"
if [ "${profile%.pb.gz}" != "$profile" ] &&
    ! "$sproftop" -i "$profile" -o "$work/check.folded" 2>/dev/null; then
    echo "screenshots: this build cannot load pprof back; recording folded" >&2
    profile=$work/demo.folded
    record || die "recording the demo failed"
fi

# --- 2. shots ----------------------------------------------------------------

screen() {
    "${tm[@]}" capture-pane -p -t "$1" 2>/dev/null
}

screen_has() {
    screen "$1" | grep -Eq -- "$2"
}

# samples_above SESSION N: the header's sample count is above N.
samples_above() {
    local s
    s=$(screen "$1" | sed -n 's/.*Samples: \([0-9]*\).*/\1/p' | head -n 1)
    [ -n "$s" ] && [ "$s" -gt "$2" ]
}

# start_session NAME ARGS...: sproftop ARGS in a new 110x32 session,
# run from $work (so the header shows the profile's bare file name and
# default snapshot names stay there).
start_session() {
    local name=$1 cmd
    shift
    printf -v cmd ' %q' "$sproftop" "$@"
    cmd="cd '$work' && exec env TERM=xterm-256color LC_ALL=C.UTF-8$cmd"
    "${tm[@]}" new-session -d -s "$name" -x "$cols" -y "$rows" "$cmd" ||
        die "tmux cannot start a session"
    wait_for 20 screen_has "$name" 'Samples: [0-9]' ||
        die "$name: sproftop did not draw its screen: $(screen "$name" | head -n 3)"
}

# shoot NAME READY_ERE: once the screen of session NAME matches
# READY_ERE, capture it with colours into $work/NAME.ans and end it.
shoot() {
    local name=$1 ready=$2
    if ! wait_for 20 screen_has "$name" "$ready"; then
        screen "$name" >&2
        die "$name: the screen never matched /$ready/"
    fi
    "${tm[@]}" capture-pane -e -p -N -t "$name" >"$work/$name.ans" ||
        die "$name: capture failed"
    "${tm[@]}" kill-session -t "$name" >/dev/null 2>&1
}

keys() {
    "${tm[@]}" send-keys -t "$1" "${@:2}"
}

wanted() {
    [ ${#only[@]} -eq 0 ] && return 0
    local n
    for n in "${only[@]}"; do
        [ "$n" = "$1" ] && return 0
    done
    return 1
}
only=("$@")
shots=()

# tree: the live view's first screen, threads merged, the hottest path
# open and the cursor at its end.
if wanted tree; then
    start_session tree -p "$demo_pid"
    wait_for 20 samples_above tree 400 || die "tree: too few samples"
    shoot tree '^> .*hash_chunk'
    shots+=(tree)
fi

# inverted: the bottom-up tree, its hottest path expanded.
if wanted inverted; then
    start_session inverted -i "${profile##*/}"
    keys inverted I E
    shoot inverted '^> .*_start'
    shots+=(inverted)
fi

# flat: the flat table of functions.
if wanted flat; then
    start_session flat -i "${profile##*/}"
    keys flat 2
    shoot flat '\[2 Flat\]'
    shots+=(flat)
fi

# callers: callers and callees of the hot function, reached with E then c.
if wanted callers; then
    start_session callers -i "${profile##*/}"
    keys callers E
    wait_for 10 screen_has callers '^> .*hash_chunk' || die "callers: E did not reach hash_chunk"
    keys callers c
    shoot callers '\[3 Callers\]'
    shots+=(callers)
fi

# help: the help screen, generated from the request table.
if wanted help; then
    start_session help -i "${profile##*/}"
    keys help h
    shoot help '\[8 Help\]'
    shots+=(help)
fi

# procs: forkwork (a master and two forked workers, each in a function of
# its own) recorded with -p MASTER,W1,W2, which takes the perf sampler:
# the tree's roots are the three processes.  Skipped, saying why, where
# perf_event_open is not permitted.  Its workers end with the master.
if wanted procs; then
    fw_out=$work/forkwork.out
    "$forkwork" 60 </dev/null >"$fw_out" 2>/dev/null &
    fw_pid=$!
    wait_for 5 grep -q '^WORKERS ' "$fw_out" ||
        die "procs: forkwork did not start its workers"
    read -r _ w1 w2 <"$fw_out"
    fw_rec=$work/forkwork${profile#"$work"/demo}
    rm -f "$fw_rec"
    if timeout -k 5 60 "$sproftop" -p "$fw_pid,$w1,$w2" -d "$rec_seconds" \
        -F "$rec_freq" -o "$fw_rec" 2>"$work/procs.err"; then
        start_session procs -i "${fw_rec##*/}"
        shoot procs '^> .*(master_spin|worker_one|worker_two)'
        shots+=(procs)
    else
        echo "screenshots: procs skipped: $(head -n 1 "$work/procs.err")" >&2
    fi
    end_pid fw_pid
fi

# window: a recording of phase (old_hot for 6 s, then new_hot), in the
# flat table with the last 5 s beside the totals: the strip under the
# header is the recording's timeline.
if wanted window; then
    rm -f "$work/phase.pb.gz" "$work/phase.switched"
    echo "screenshots: recording the phase target for 12 s" >&2
    timeout -k 5 60 "$sproftop" -F 99 -d 12 -o "$work/phase.pb.gz" -- \
        "$phase" 6 "$work/phase.switched" 13 >/dev/null ||
        die "window: recording the phase target failed"
    start_session window -i phase.pb.gz
    keys window 2 R
    shoot window ' 5s S% '
    shots+=(window)
fi

# diff: the demo later against the demo before (--baseline), the tree's
# hottest path open: the change of each row's share, red for more, blue
# for less, + for a function only the later profile has.
if wanted diff; then
    cp "$top/tests/ui/demo.folded" "$top/tests/ui/demo-later.folded" "$work/"
    start_session diff -i demo-later.folded --baseline demo.folded
    keys diff E
    shoot diff '^> .*emit_block'
    shots+=(diff)
fi

# flame: the recorded demo as an icicle, the cursor on the hot function.
if wanted flame; then
    start_session flame -i "${profile##*/}"
    keys flame 6
    wait_for 10 screen_has flame '\[6 Flame\]' || die "flame: 6 did not open it"
    keys flame / hash_chunk Enter
    shoot flame '^ hash_chunk: '
    shots+=(flame)
fi

# annotate: the loops target (tests/targets/loops.c) live, a on
# two_loops: its instructions under their source lines, the cursor on the
# hottest.  Started as ./loops so no path of this machine shows.
if wanted annotate; then
    loops=$build/targets/loops
    [ -x "$loops" ] || die "$loops is not built; run 'make targets' first"
    (cd "${loops%/*}" && exec ./loops two 600) </dev/null >/dev/null 2>&1 &
    loops_pid=$!
    start_session annotate -F 499 -p "$loops_pid"
    wait_for 20 samples_above annotate 1000 || die "annotate: too few samples"
    keys annotate 2
    wait_for 10 screen_has annotate ' two_loops' || die "annotate: no two_loops row"
    keys annotate / '^two_loops$' Enter
    wait_for 10 screen_has annotate '^> .* two_loops' || die "annotate: / did not reach two_loops"
    keys annotate a
    shoot annotate '^> .*inlined: hash_step'
    shots+=(annotate)
    end_pid loops_pid
fi

# save: the snapshot prompt, offering the view (a focus on the hot
# function) or every sample.
if wanted save; then
    start_session save -i "${profile##*/}"
    wait_for 10 screen_has save '^> .*hash_chunk' || die "save: the first screen is not on hash_chunk"
    keys save f
    wait_for 10 screen_has save 'Focus: hash_chunk' || die "save: f did not focus on hash_chunk"
    # The cursor off the last row: capture-pane does not reset the
    # colours before the blank rows below it, and ansi2html would paint
    # them with the cursor's.
    keys save k s
    shoot save '^Save view as '
    shots+=(save)
fi

# kernel and reasons: tests/targets/waits (one thread per way of waiting)
# recorded with --idle on the perf sampler, as root: the tree reaching the
# fdatasync thread's disk wait through its kernel frames ([k]), and the
# threads view's time by reason.  Skipped, saying why, where the kernel
# gives no kernel stacks.
waits=$build/targets/waits
waits_rec=""
# record_waits: waits.pb.gz in $work, once; false (saying why) where the
# kernel gives no kernel stacks.
record_waits() {
    [ -n "$waits_rec" ] && return "$waits_rec"
    waits_rec=1
    rm -f "$work/waits.pb.gz"
    mkdir -p "$work/waits.disk"
    if "$sproftop" --version | grep -q '^kernel frames on' &&
        timeout -k 5 60 "$sproftop" --sampler perf --idle -F "$rec_freq" -d 5 \
            -o "$work/waits.pb.gz" -- "$waits" 4 "$work/waits.disk" "$work/waits.rep" \
            >/dev/null 2>"$work/waits.err"; then
        waits_rec=0
    else
        echo "screenshots: kernel, reasons skipped: $("$sproftop" --version | tail -n 1)" \
            "$(head -n 1 "$work/waits.err" 2>/dev/null)" >&2
    fi
    return "$waits_rec"
}

if wanted kernel; then
    if record_waits; then
        start_session kernel -i waits.pb.gz
        keys kernel / 'disk I/O' Enter
        shoot kernel '^> .*\[off-CPU: disk I/O\]'
        shots+=(kernel)
    fi
fi

if wanted reasons; then
    if record_waits; then
        start_session reasons -i waits.pb.gz
        keys reasons 4
        shoot reasons 'w-fsync .*disk I/O'
        shots+=(reasons)
    fi
fi

# python: a Python service (tests/targets/pyservice.py, Debian's python3)
# live, its hottest path open: Python functions in one tree with the C
# code they call (json's scanner, hashlib) and the interpreter around
# them; the header names the interpreter.  Started as `python3
# pyservice.py` from its folder, so the header shows no path of this
# machine.
py_pid=""
if wanted python; then
    [ -x /usr/bin/python3 ] || die "python: /usr/bin/python3 is missing (make deps)"
    (cd "$top/tests/targets" && exec /usr/bin/python3 pyservice.py 600) \
        </dev/null >/dev/null 2>&1 &
    py_pid=$!
    start_session python -p "$py_pid"
    wait_for 20 samples_above python 300 || die "python: too few samples"
    keys python E
    shoot python '^> .*(libcrypto|hashlib|json|\.py:[0-9]+)'
    shots+=(python)
    end_pid py_pid
fi

[ ${#shots[@]} -gt 0 ] ||
    die "no such shot: $* (tree inverted flat callers help save window diff flame procs annotate kernel reasons python)"

# --- 3. HTML and PNG -----------------------------------------------------------

# 14px DejaVu Sans Mono advances 8.43 px per cell; 18 px per row; the page
# has 12 px of padding left and right, 10 px above and below.
width=$(awk -v c="$cols" 'BEGIN { printf "%d", c * 8.43 + 24 + 0.999 }')
height=$((rows * 18 + 20))
chrome_dir=$(mktemp -d "${TMPDIR:-/tmp}/sproftop-chromium.XXXXXX")
trap 'rm -rf "$chrome_dir"; finish' EXIT
status=0
for name in "${shots[@]}"; do
    perl "$here/ansi2html.pl" "$cols" "$rows" "sproftop: $name" \
        <"$work/$name.ans" >"$work/$name.html" || die "$name: ansi2html failed"
    rm -f "$work/$name.png"
    timeout -k 5 120 chromium --headless --no-sandbox --disable-gpu \
        --disable-quic --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$chrome_dir" --screenshot="$work/$name.png" \
        --window-size="$width,$height" "file://$work/$name.html" \
        >"$work/chromium.log" 2>&1
    if [ ! -s "$work/$name.png" ]; then
        tail -n 5 "$work/chromium.log" >&2
        die "$name: chromium wrote no PNG"
    fi
    size=$(stat -c %s "$work/$name.png")
    if [ "$size" -gt "$max_bytes" ]; then
        echo "screenshots: $name.png is $size bytes (over $max_bytes); not kept" >&2
        status=1
        continue
    fi
    mv "$work/$name.png" "$outdir/$name.png"
    echo "screenshots/$name.png  ${width}x${height}  $size bytes"
done
exit "$status"
