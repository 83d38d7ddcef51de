#!/usr/bin/env bash
# python.t - Python functions in the live tree, read from outside the
# process from Debian's own python3 (3.11), on both backends.
#
#   1. pystacks.py holds two threads still (--idle): each thread's Python
#      stack stands in place of the interpreter's eval frames, in order,
#      with the C frames between (sorted() calling back into Python) and
#      below (the sleep); every sample of the main thread reaches
#      <module>; --python-only leaves the Python frames alone; --stats
#      names the interpreter and counts no unreadable frame (perf: each
#      walk matched by its sample's own time stamp);
#   2. pyblock.py's threads blocked in time.sleep, queue.get and a
#      socket's recv each show the Python function that blocked;
#   3. --children on a multiprocessing pool and -a with two Python
#      processes give every process its Python frames (perf);
#   4. a process that is not Python gets no reader and no BPF program; a
#      Python of a version without a layout gets a one-line note, and so
#      does a kernel without BTF on perf;
#   5. pychurn.py changes its frames under the reader (threads that
#      exit, code objects freed, generators popped): no crash, the target
#      runs to its end, and every Python name written is one the source
#      defines at that line; pyexec.py's code, freed within a millisecond
#      of its samples, is named or counted unreadable, and named on
#      ptrace;
#   6. pyenv's 3.11.7 (PIE, libpython), 3.12 and 3.13 when installed.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets split

require_python
SP_TIMEOUT=40
PYT=$TOP/tests/targets

backends=(ptrace)
perf_why=
if [ "$(id -u)" != 0 ]; then
    perf_why="the perf backend reads Python frames with a BPF program: needs root"
elif ! "$SPROFTOP" --version | grep -q '^sampler: auto picks perf'; then
    perf_why="perf_event refused here: $("$SPROFTOP" --version | grep '^sampler')"
else
    backends=(perf ptrace)
fi

# start_py SCRIPT ARGS...: run tests/targets/SCRIPT under $PY (or $PYBIN)
# and wait (bounded) for it to print "ready".  Sets TARGET_PID, TARGET_OUT.
start_py() {
    local script=$1
    shift
    _target_seq=$((_target_seq + 1))
    TARGET_OUT=$TMPD/${script%.py}.$_target_seq.out
    spawn "${PYBIN:-$PY}" "$PYT/$script" "$@" >"$TARGET_OUT" 2>&1
    TARGET_PID=$SPAWN_PID
    wait_until 15 grep -q '^ready' "$TARGET_OUT" ||
        { diag "$script did not get ready: $(cat "$TARGET_OUT")"; return 1; }
}

# lines_with FILE TEXT: the folded lines (stacks) holding TEXT.
lines_with() { grep -F -- "$2" "$1"; }


# --- 1. stacks in place --------------------------------------------------------
MAIN=("<module> (pystacks.py:1)" "main (pystacks.py:53)"
      "Outer.Inner.méthode (pystacks.py:49)" "函数 (pystacks.py:43)"
      "f𠀀 (pystacks.py:39)")
for b in "${backends[@]}"; do
    start_py pystacks.py 60 || bail_out "pystacks.py does not start"
    pid=$TARGET_PID
    run_sproftop --sampler "$b" -p "$pid" --idle -F 200 -d 1.5 --stats -o "$TMPD/stacks.$b.folded"
    f=$TMPD/stacks.$b.folded
    is "$RC" 0 "$b: sproftop exits 0"
    like "$ERRS" "python: Python $PYVER; [1-9][0-9]* samples with Python frames, Python frames unreadable 0" \
        "$b: --stats names Python $PYVER, frames read, none unreadable" ||
        diag "$(grep -E '^(python|perf|off-CPU)' <<<"$ERRS")"
    bpf_match_check "$b"
    cmp_ok "$(chain "$f" "${MAIN[@]}")" '>' 0 \
        "$b: the main thread's Python frames, in order: <module>;main;Outer.Inner.méthode;函数;f𠀀"
    # sorted() is C: its frames stand between f𠀀 and the slow_key it calls
    between=$(lines_with "$f" "f𠀀 (pystacks.py:39);" | awk -F';' '
        { for (i = 1; i <= NF; i++) if ($i == "f𠀀 (pystacks.py:39)") a = i
          for (i = a; i <= NF; i++) if ($i ~ /^slow_key \(pystacks.py:32\)/) { print i - a - 1; exit } }')
    cmp_ok "${between:-0}" '>' 0 "$b: C frames ($between) stay between f𠀀 and slow_key (sorted calls back into Python)"
    # (the native leaf: kernel frames, "_[k]", and the off-CPU reason,
    # "[off-CPU: sleep]", are below it where the kernel gives its stacks)
    leaf=$(lines_with "$f" "slow_key (pystacks.py:32);" | head -n 1 |
        sed 's/ [0-9]*$//; s/;\[off-CPU: [^]]*\]$//; s/\(;[^;]*_\[k\]\)*$//; s/.*;//')
    like "$leaf" "nanosleep" "$b: the native leaf below slow_key is the sleep ($leaf)"
    # the generator is resumed from C (FOR_ITER): native frames between
    cmp_ok "$(grep -c 'consume (pystacks.py:27);.*;gen (pystacks.py:20);' "$f")" '>' 0 \
        "$b: the worker thread has its own Python stack (consume, then gen)"
    all=$(grep -c "^python3-$pid;" "$f")
    module=$(grep "^python3-$pid;" "$f" | grep -c "<module> (pystacks.py:1)")
    is "$module" "$all" "$b: every stack of the main thread reaches <module> ($module of $all)"
    eval_left=$(grep "^python3-$pid;" "$f" | grep -c '_PyEval_EvalFrameDefault')
    is "$eval_left" 0 "$b: no _PyEval_EvalFrameDefault frame is left in the main thread's stacks"
    run_sproftop --sampler "$b" -p "$pid" --idle -d 1 --python-only -o "$TMPD/py.$b.folded"
    want="python3-$pid;<module> (pystacks.py:1);main (pystacks.py:53);Outer.Inner.méthode (pystacks.py:49);函数 (pystacks.py:43);f𠀀 (pystacks.py:39);slow_key (pystacks.py:32)"
    # ...and its off-CPU reason, where the kernel gives stacks (perf)
    is "$(grep "^python3-$pid;" "$TMPD/py.$b.folded" |
          sed 's/ [0-9]*$//; s/;\[off-CPU: sleep\]$//' | sort -u)" "$want" \
        "$b: --python-only: the main thread's stack is its Python frames alone"
    kill_pid "$pid"
done

# --- 2. blocked in time.sleep, queue.get, socket recv ------------------------------
for b in "${backends[@]}"; do
    start_py pyblock.py 60 || bail_out "pyblock.py does not start"
    run_sproftop --sampler "$b" -p "$TARGET_PID" --idle -d 1.5 -o "$TMPD/block.$b.folded"
    f=$TMPD/block.$b.folded
    cmp_ok "$(folded_count_frame "$f" "in_sleep (pyblock.py:15)")" '>' 0 "$b: a thread blocked in time.sleep shows in_sleep"
    cmp_ok "$(chain "$f" "in_queue (pyblock.py:20)" "Queue.get (queue.py:154)")" '>' 0 \
        "$b: a thread blocked in queue.get shows in_queue;Queue.get"
    cmp_ok "$(folded_count_frame "$f" "in_recv (pyblock.py:25)")" '>' 0 "$b: a thread blocked in recv shows in_recv"
    kill_pid "$TARGET_PID"
done

# a thread that sleeps and wakes all the time: its Python frames are read
# at each switch off the CPU too (perf: in the switch-out's sample), so
# every sleep's stack holds sleeper (how the wall-clock time splits
# depends on the machine's load: a spin of 20 ms of CPU takes longer)
for b in "${backends[@]}"; do
    start_py pyhalf.py 60 || bail_out "pyhalf.py does not start"
    run_sproftop --sampler "$b" -p "$TARGET_PID" --idle -F 200 -d 2 -o "$TMPD/half.$b.folded"
    f=$TMPD/half.$b.folded
    read -r slp lost spn < <(awk '{ c = $NF
        if (/nanosleep/) { if (index($0, ";sleeper (pyhalf.py:17);")) a += c; else b += c }
        else if (index($0, ";spinner (pyhalf.py:11)")) s += c }
        END { printf "%d %d %d\n", a, b, s }' "$f")
    note "$b: $slp samples asleep in sleeper, $spn spinning in spinner, of $(folded_total "$f")"
    cmp_ok "$slp" '>' 0 "$b: --idle: the sleeps are under sleeper ($slp samples)"
    is "$lost" 0 "$b: --idle: no sleep without its Python frames"
    cmp_ok "$spn" '>' 0 "$b: --idle: the spins are under spinner ($spn samples)"
    kill_pid "$TARGET_PID"
done

# --- 3. several processes -----------------------------------------------------------
if [ -n "$perf_why" ]; then
    skip 3 "$perf_why"
else
    run_sproftop --sampler perf --children -F 200 -o "$TMPD/pool.folded" -- "$PY" "$PYT/pypool.py" 1.5
    is "$RC" 0 "--children: the pool runs to its end"
    # the process level: python3-PID;python3-TID;...
    n=$(grep -F "work (pypool.py:11)" "$TMPD/pool.folded" | cut -d';' -f1 | sort -u | wc -l)
    is "$n" 2 "--children: both pool workers have their Python frames (work)"
    spawn "$PY" "$PYT/pyhot.py" --cpu 30 >/dev/null 2>&1
    a=$SPAWN_PID
    spawn "$PY" "$PYT/pyhot.py" --cpu 30 >/dev/null 2>&1
    c=$SPAWN_PID
    wait_until 10 grep -q python3 "/proc/$c/comm"
    # until each has run a second of CPU (100 samples), however loaded
    cpu_mark "$a" "$c"
    _both_ran() { cpu_ran 1000 "$a" "$c"; }
    sample_while 60 _both_ran -a -F 100 -o "$TMPD/all.folded"
    has=0
    for p in "$a" "$c"; do
        grep "^python3-$p;" "$TMPD/all.folded" | grep -q "py_sixty (pyhot.py:" && has=$((has + 1))
    done
    is "$has" 2 "-a: two Python processes each have their Python frames"
    kill_pid "$a"
    kill_pid "$c"
fi

# --- 4. no reader for what is not Python; a note for an unread version ---------------
if [ -n "$perf_why" ]; then
    skip 3 "$perf_why"
else
    # bpf_progs PID: BPF programs process PID holds open
    bpf_progs() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'bpf-prog'; }
    start_target split 30 || bail_out "cannot start split"
    spawn "$SPROFTOP" --sampler perf -p "$TARGET_PID" -d 1.5 --stats -o "$TMPD/c.folded" 2>"$TMPD/c.err"
    sp=$SPAWN_PID
    wait_until 10 test -s "/proc/$sp/fd/3"
    progs=$(bpf_progs "$sp")
    wait_exit "$sp" 20
    is "$progs" 0 "a C program: no BPF program loaded"
    unlike "$(cat "$TMPD/c.err")" "python" "a C program: --stats says nothing of Python"
    kill_pid "$TARGET_PID"
    start_py pystacks.py 60 || bail_out "pystacks.py does not start"
    spawn "$SPROFTOP" --sampler perf -p "$TARGET_PID" -d 3 -o "$TMPD/p.folded" 2>/dev/null
    sp=$SPAWN_PID
    wait_until 10 sh -c "ls -l /proc/$sp/fd 2>/dev/null | grep -q bpf-prog"
    cmp_ok "$(bpf_progs "$sp")" '>' 0 "a Python program: its BPF program is loaded (the check above can see one)"
    wait_exit "$sp" 20
    kill_pid "$TARGET_PID"
fi
# The BPF program refused (an unprivileged user at perf_event_paranoid 2:
# perf samples its own processes in user mode, BPF needs privileges):
# the perf sampler keeps native frames and says why, in one line; ptrace
# reads the frames.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] && [ "$par" = 2 ] && command -v setpriv >/dev/null; then
    nobody=$TMPD/nobody
    mkdir -p "$nobody" && chmod 777 "$nobody" && chmod o+x "$TMPD"
    as_nobody() {
        timeout -k 5 40 setpriv --reuid 65534 --regid 65534 --clear-groups "$@"
    }
    as_nobody "$SPROFTOP" --sampler perf --stats -o "$nobody/perf.folded" -- \
        "$PY" "$PYT/pyhot.py" --cpu 1 >/dev/null 2>"$TMPD/nobody.err"
    like "$(grep -o 'python: .*' "$TMPD/nobody.err")" \
        "python: Python $PYVER: not read, BPF refused: needs root, or CAP_BPF and CAP_PERFMON \(or --sampler ptrace\)" \
        "uid 65534, perf: one line says why Python frames are not read, with the fix"
    is "$(grep -c 'pyhot.py' "$nobody/perf.folded" 2>/dev/null)" 0 "uid 65534, perf: native frames only"
    as_nobody "$SPROFTOP" --sampler ptrace -o "$nobody/ptrace.folded" -- \
        "$PY" "$PYT/pyhot.py" --cpu 1 >/dev/null 2>&1
    cmp_ok "$(grep -c 'py_sixty (pyhot.py:' "$nobody/ptrace.folded" 2>/dev/null)" '>' 0 \
        "uid 65534, ptrace: the Python frames are read"
else
    skip 3 "needs root (to become uid 65534) and perf_event_paranoid 2 (it is $par)"
fi
# A kernel without BTF (hidden in a mount namespace of the run's own): the
# program, which reads each sample's stamp through CO-RE, is not loaded,
# and one line says why, with the fix.
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/btf/vmlinux ] && command -v unshare >/dev/null &&
    [ "${backends[0]}" = perf ]; then
    timeout -k 5 40 unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh \
        "$SPROFTOP" --sampler perf --stats -o "$TMPD/nobtf.folded" -- \
        "$PY" "$PYT/pyhot.py" --cpu 1 >/dev/null 2>"$TMPD/nobtf.err"
    like "$(grep -o 'python: .*' "$TMPD/nobtf.err")" \
        "python: Python $PYVER: not read, the kernel has no BTF \(/sys/kernel/btf/vmlinux\): CONFIG_DEBUG_INFO_BTF, or --sampler ptrace" \
        "no kernel BTF, perf: one line says why Python frames are not read, with the fix"
    is "$(grep -c 'pyhot.py' "$TMPD/nobtf.folded" 2>/dev/null)" 0 "no kernel BTF, perf: native frames only"
    check "...and the kernel's BTF is still there outside the run's namespace" test -e /sys/kernel/btf/vmlinux
else
    skip 3 "needs root, the kernel's BTF, unshare and the perf backend"
fi

# A stand-in for a CPython without a layout: its name says 3.9 and it
# exports Py_Initialize (what libpython3.9 does), nothing else.
printf '#include <unistd.h>\nvoid Py_Initialize(void) {}\nint main(void) { for (;;) pause(); }\n' >"$TMPD/py39.c"
if cc -rdynamic -o "$TMPD/python3.9" "$TMPD/py39.c" 2>"$TMPD/cc.err"; then
    spawn "$TMPD/python3.9"
    wait_until 10 _exe_is "$SPAWN_PID" "$TMPD/python3.9"
    run_sproftop --sampler ptrace -p "$SPAWN_PID" --idle -d 0.5 --stats -o "$TMPD/py39.folded"
    like "$ERRS" "python: Python 3.9: not read \(3.11, 3.12, 3.13 are\)" \
        "a Python 3.9 gets one line naming it, and its native frames"
    kill_pid "$SPAWN_PID"
else
    skip 1 "no C compiler: $(head -n 1 "$TMPD/cc.err")"
fi

# --- 5. frames that change under the reader ----------------------------------------
# names_valid FILE: every Python frame of the speedscope file names the
# function its file defines at its line (a module at line 1, a
# comprehension or lambda at its line); prints the bad ones.
names_valid() {
    "$PY" - "$1" <<'EOF'
import json, re, sys
frames = json.load(open(sys.argv[1]))["shared"]["frames"]
bad = 0
for f in frames:
    file, line, name = f.get("file", ""), f.get("line", 0), f["name"]
    if not (file.endswith(".py") or file in ("<churn>", "<pyexec>")):
        continue
    last = name.split(".")[-1]
    if file == "<churn>":
        ok = re.fullmatch(r"churn_\d+|<module>", name) is not None
    elif file == "<pyexec>":
        ok = re.fullmatch(r"alpha|omega|<module>", name) is not None
    elif name == "<module>":
        ok = line in (0, 1)
    elif last.startswith("<"):
        ok = True  # <genexpr>, <lambda>...: defined inside a line
    else:
        # the first line of a decorated function is its first decorator's
        try:
            lines = open(file, encoding="utf-8").read().split("\n")[line - 1:]
        except OSError:
            lines = []
        while lines and lines[0].strip().startswith("@"):
            lines = lines[1:]
        src = lines[0] if lines else ""
        ok = re.search(r"\b(def|class)\s+" + re.escape(last) + r"\b", src) is not None
    if not ok:
        bad += 1
        print("bad: %s %s:%s" % (name, file, line))
print("checked %d" % len(frames))
sys.exit(1 if bad else 0)
EOF
}
for b in "${backends[@]}"; do
    spawn "$PY" "$PYT/pychurn.py" 2 >"$TMPD/churn.$b.out" 2>&1
    pid=$SPAWN_PID
    wait_until 10 _exe_is "$pid" "$(readlink -f "$PY")"
    run_sproftop --sampler "$b" -p "$pid" -F 500 --stats -o "$TMPD/churn.$b.json" -f speedscope
    is "$RC" 0 "$b: churn: sproftop exits 0"
    wait_exit "$pid" 20
    is "$(cat "$TMPD/churn.$b.out")" "done" "$b: churn: the target runs to its end"
    out=$(names_valid "$TMPD/churn.$b.json")
    ok $? "$b: churn: every Python name is the function its file defines at that line"
    note "$b: $(tail -n 1 <<<"$out"); $(grep -o 'python: .*' "$ERR")"
    like "$(grep -o 'python: .*' "$ERR")" "Python frames unreadable [0-9]+" \
        "$b: churn: --stats counts the unreadable Python frames"
done

# Code that lives for less than a drain (pyexec.py: each function is
# compiled, run and freed within a millisecond).  Every sample has its
# Python frames or is counted unreadable; the ptrace sampler, which reads
# them while the thread is stopped, names nearly all of them (README:
# the perf sampler checks them at the drain, after they were freed, and
# loses most).
for b in "${backends[@]}"; do
    start_py pyexec.py 60 || { ok 1 "$b: pyexec.py starts"; continue; }
    # until about 500 samples' worth of its CPU time, not a fixed window
    sample_until 500 40 --sampler "$b" -p "$TARGET_PID" -F 500 --stats \
        -o "$TMPD/exec.$b.json" -f speedscope
    kill_pid "$TARGET_PID"
    is "$RC" 0 "$b: exec'd code: sproftop exits 0"
    samples=$(stats_value "$ERR" 'samples: ')
    cmp_ok "${samples:-0}" '>=' 100 "$b: exec'd code: samples taken (${samples:-none})"
    withpy=$(grep -oE '[0-9]+ samples with Python frames' "$ERR" | grep -oE '^[0-9]+')
    unread=$(stats_value "$ERR" 'Python frames unreadable ')
    note "$b: $(grep -o 'python: .*' "$ERR")"
    cmp_ok $(( ${withpy:-0} + ${unread:-0} )) '>=' $(( ${samples:-1} * 98 / 100 )) \
        "$b: exec'd code: every sample has its Python frames or is counted unreadable (${withpy:-?} + ${unread:-?} of ${samples:-?})"
    out=$(names_valid "$TMPD/exec.$b.json")
    ok $? "$b: exec'd code: every Python name is alpha, omega or <module> of <pyexec>"
    if [ "$b" = ptrace ]; then
        cmp_ok "${unread:-0}" '<=' $(( ${samples:-0} * 2 / 100 )) \
            "ptrace: exec'd code: at most 2% of the samples unreadable (${unread:-?} of ${samples:-?})"
        is "$(grep -oE '"name": *"(alpha|omega)"' "$TMPD/exec.$b.json" |
               grep -oE 'alpha|omega' | sort -u | tr '\n' ' ')" "alpha omega " \
            "ptrace: exec'd code: alpha and omega are named"
    fi
done

# --- 6. other CPythons (pyenv), when installed ----------------------------------------
for v in 3.11.7 3.12.1 3.13.0; do
    bin=$HOME/.pyenv/versions/$v/bin/python${v%.*}
    if [ ! -x "$bin" ]; then
        skip 1 "pyenv's Python $v is not installed (not part of make deps)"
        continue
    fi
    PYBIN=$bin start_py pystacks.py 60 || { ok 1 "Python $v: pystacks.py starts"; continue; }
    run_sproftop --sampler "${backends[0]}" -p "$TARGET_PID" --idle -d 1 --stats -o "$TMPD/v$v.folded"
    ok "$(chain "$TMPD/v$v.folded" "${MAIN[@]}" | awk '{ print !($1 > 0) }')" \
        "Python $v (${backends[0]}): the main thread's Python frames in order ($(grep -o 'python: Python [^;]*' "$ERR"))"
    kill_pid "$TARGET_PID"
done

done_testing
