#!/usr/bin/env bash
# engine_jit.t - JIT code of real runtimes is named from their perf maps
# (/tmp/perf-PID.map), with the right shares (issue 15.4).
#
# Only file-backed mappings belong to a module: code in anonymous memory
# goes to the perf map first.  Node.js is a non-PIE executable at
# 0x400000, and its JIT code was named "[node+0x7f...]" when anonymous
# memory went to the main executable.
#   - Node.js (Debian's nodejs) with --perf-basic-prof, running
#     hotLoopAlpha twice for each hotLoopBeta: each function's share of
#     the leaves within 7 points of its share of the time hot.js itself
#     measured around its calls over the same stretch (V8's code for the
#     two loops differs: about 2/3 and 1/3, 74/26 seen).
#   - OpenJDK (openjdk-17-jdk-headless), whose `jcmd PID Compiler.perfmap`
#     writes the map of the methods compiled so far: alpha twice for each
#     beta, its share against the time Hot.java measured around its calls,
#     likewise (the JIT may make the two differ, as V8 does).
# The runtimes leave their maps in /tmp; every map made here is removed.
. "$(dirname "$0")/lib.sh"
require_sproftop

maps=()
trap 'rm -f "${maps[@]}"; cleanup' EXIT

# leaf_share FILE REGEX: percent of FILE's samples whose leaf matches.
leaf_share() {
    awk -v re="$2" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
                      t += c; if (f[k] ~ re) n += c }
                    END { if (t > 0) printf "%.1f", 100 * n / t; else print -1 }' "$1"
}

# shares_ok FILE RE_A RE_B DESC [A%]: leaves matching RE_A hold A% of
# the samples (default 2/3), those matching RE_B the rest (+-7 points).
shares_ok() {
    local a b e=${5:-66.7}
    a=$(leaf_share "$1" "$2")
    b=$(leaf_share "$1" "$3")
    note "$4: $a% and $b% of $(folded_total "$1") samples (expected $e%)"
    awk -v a="$a" -v b="$b" -v e="$e" \
        'BEGIN { exit !(a >= e - 7 && a <= e + 7 && b >= 93 - e && b <= 107 - e) }'
    ok $? "$4: $e% and the rest of the leaves, within 7 points ($a% and $b%)" ||
        diag "  its heaviest leaves: $(awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
                  k = split(s, f, ";"); l[f[k]] += c }
                END { for (x in l) print l[x], x }' "$1" | sort -nr | head -n 5 | tr '\n' ',')"
}

# measured_shares NAME PID RE_A RE_B: sproftop -p PID for 3 s into
# NAME.folded; the leaves matching RE_A and RE_B against the times the
# program itself writes to NAME.times ("A B", ns in each function since
# its start), over the same stretch.
measured_shares() {
    local name=$1 pid=$2 a0 b0 a1 b1 e
    wait_until 10 test -s "$TMPD/$name.times" ||
        { ok 1 "$name wrote its times to $name.times"; return; }
    read -r a0 b0 <"$TMPD/$name.times"
    run_sproftop -p "$pid" -d 3 -F 500 -o "$TMPD/$name.folded"
    is "$RC" 0 "sproftop -p $name exits 0"
    read -r a1 b1 <"$TMPD/$name.times"
    e=$(awk -v a="$((a1 - a0))" -v b="$((b1 - b0))" 'BEGIN { printf "%.1f", (a + b > 0) ? 100 * a / (a + b) : 66.7 }')
    note "$name over the run: $((a1 - a0)) ns in the first, $((b1 - b0)) ns in the second"
    shares_ok "$TMPD/$name.folded" "$3" "$4" "$name" "$e"
}

# map_has PID WORD...: the perf map of PID names every WORD.
map_has() {
    local pid=$1 w
    shift
    for w in "$@"; do
        grep -q -- "$w" "/tmp/perf-$pid.map" 2>/dev/null || return 1
    done
}

# --- Node.js ------------------------------------------------------------------
if command -v node >/dev/null; then
    cat >"$TMPD/hot.js" <<'EOF'
// Two hot functions: hotLoopAlpha runs twice for each hotLoopBeta.  The
// time spent in each (ns, since the start) goes to argv[3] as "A B"
// about every 100 ms.
const fs = require('fs');
function hotLoopAlpha(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 1103515245 + 12345 + i) % 2147483647; return x; }
function hotLoopBeta(n) { let x = 1; for (let i = 0; i < n; i++) x = (x * 69069 + 1 + i) % 2147483629; return x; }
let sink = 0, ta = 0n, tb = 0n, last = Date.now();
const end = Date.now() + 1000 * (+process.argv[2] || 60);
while (Date.now() < end) {
    let t0 = process.hrtime.bigint();
    sink += hotLoopAlpha(200000); sink += hotLoopAlpha(200000);
    let t1 = process.hrtime.bigint();
    sink += hotLoopBeta(200000);
    ta += t1 - t0; tb += process.hrtime.bigint() - t1;
    if (Date.now() - last >= 100) {
        last = Date.now();
        fs.writeFileSync(process.argv[3] + '.tmp', ta + ' ' + tb + '\n');
        fs.renameSync(process.argv[3] + '.tmp', process.argv[3]);
    }
}
console.log(sink);
EOF
    # in TMPD: V8 writes an isolate-*.log in its working directory
    spawn env -C "$TMPD" node --perf-basic-prof "$TMPD/hot.js" 60 "$TMPD/node.times" \
        >"$TMPD/node.out" 2>&1
    pid=$SPAWN_PID
    maps+=("/tmp/perf-$pid.map")
    # "*" marks optimized code: the hot loops have reached their last tier
    wait_until 20 map_has "$pid" 'JS:\*hotLoopAlpha' 'JS:\*hotLoopBeta'
    ok $? "node --perf-basic-prof wrote /tmp/perf-$pid.map with the optimized functions"
    measured_shares node "$pid" '^JS:.hotLoopAlpha ' '^JS:.hotLoopBeta '
    unlike "$(cat "$TMPD/node.folded")" '\[node\+0x7f' "no JIT code is given to node's executable"
    kill_pid "$pid"
else
    skip 4 "node is not installed (make deps)"
fi

# --- OpenJDK --------------------------------------------------------------------
if command -v java >/dev/null && command -v jcmd >/dev/null; then
    cat >"$TMPD/Hot.java" <<'EOF'
// Two hot methods: alpha runs twice for each beta.  The time spent in
// each (ns, since the start) goes to args[1] as "A B" about every 100 ms.
import java.nio.file.*;
public class Hot {
    static long alpha(long x, int n) { for (int i = 0; i < n; i++) x = x * 6364136223846793005L + 1442695040888963407L + (x >>> 13); return x; }
    static long beta(long x, int n) { for (int i = 0; i < n; i++) x = x * 2862933555777941757L + 3037000493L + (x >>> 11); return x; }
    public static void main(String[] a) throws Exception {
        long end = System.nanoTime() + (long) (Double.parseDouble(a[0]) * 1e9);
        long s = 0, ta = 0, tb = 0, last = System.nanoTime();
        Path out = Paths.get(a[1]), tmp = Paths.get(a[1] + ".tmp");
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            s += alpha(s, 200000); s += alpha(s, 200000);
            long t1 = System.nanoTime();
            s += beta(s, 200000);
            long t2 = System.nanoTime();
            ta += t1 - t0; tb += t2 - t1;
            if (t2 - last >= 100000000L) {
                last = t2;
                Files.write(tmp, (ta + " " + tb + "\n").getBytes());
                Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE);
            }
        }
        System.out.println(s);
    }
}
EOF
    # alpha and beta stay functions of their own: C2 may inline both
    # into main's hot loop, the likely reading of the 0% and 0% that
    # make test saw once (not proven: the leaves were not printed then;
    # shares_ok prints them now)
    spawn env -C "$TMPD" java -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Hot::alpha \
        -XX:CompileCommand=dontinline,Hot::beta "$TMPD/Hot.java" 60 "$TMPD/java.times" >"$TMPD/java.out" 2>&1
    pid=$SPAWN_PID
    maps+=("/tmp/perf-$pid.map")
    # The map holds what is compiled when jcmd asks, and the JIT replaces
    # its code as it moves up its tiers: ask once both methods have C2's
    # code in use (Compiler.codelist: "ID LEVEL STATE NAME", level 4,
    # state 0), until both are in the map and their code is the same as
    # at the last ask.  (Two asks alike while still at C1's tier 3 once
    # gave a map that named almost none of the samples: an ASan run in
    # CI, 1,305 of 1,360 leaves [unknown].)
    at_c2() {
        jcmd "$pid" Compiler.codelist 2>/dev/null |
            awk '$2 == 4 && $3 == 0 && $4 ~ /^Hot\.alpha\(/ { a = 1 }
                 $2 == 4 && $3 == 0 && $4 ~ /^Hot\.beta\(/ { b = 1 }
                 END { exit !(a && b) }'
    }
    perfmap_settled() {
        at_c2 && jcmd "$pid" Compiler.perfmap >/dev/null 2>&1 &&
            map_has "$pid" 'Hot\.alpha' 'Hot\.beta' || return 1
        grep -E 'Hot\.(alpha|beta)' "/tmp/perf-$pid.map" | sort >"$TMPD/hot.now"
        cmp -s "$TMPD/hot.now" "$TMPD/hot.last"
        local same=$?
        mv "$TMPD/hot.now" "$TMPD/hot.last"
        return $same
    }
    wait_until 30 perfmap_settled
    ok $? "jcmd Compiler.perfmap wrote /tmp/perf-$pid.map with Hot.alpha and Hot.beta at C2, settled"
    measured_shares java "$pid" 'Hot\.alpha\(' 'Hot\.beta\('
    kill_pid "$pid"
else
    skip 3 "java and jcmd (openjdk-17-jdk-headless) are not installed (make deps)"
fi

done_testing
