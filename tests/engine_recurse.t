#!/usr/bin/env bash
# engine_recurse.t - a 300-deep recursion is unwound whole: 301 `recurse`
# frames, then main, and no "[truncated]" marker.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/engine/engine.sh"
require_sproftop
require_targets recurse

profile_target recurse 2 200
out=$PROF_OUT total=$PROF_TOTAL

# Per sample: how many recurse frames, whether main is there, whether it
# was cut short.  "whole" = >= 300 recurse frames, main, no [truncated].
stats=$(awk '
    { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
      r = 0; m = 0; t = 0
      for (i = 1; i <= k; i++) {
          if (f[i] == "recurse") r++
          else if (f[i] == "main") m = 1
          else if (f[i] ~ /truncated/) t = 1 }
      if (r > maxr) maxr = r
      if (r >= 300 && m && !t) whole += c
      if (t) trunc += c }
    END { printf "%d %d %d\n", maxr, whole, trunc }' "$out")
read -r maxr whole trunc <<<"$stats"
note "deepest stack: $maxr recurse frames; whole stacks: $whole of $total; truncated: $trunc"
cmp_ok "$maxr" '>=' 300 "a stack holds at least 300 recurse frames"
cmp_ok "$whole" '>' 0 "a stack with >= 300 recurse frames reaches main, not truncated"
pct=$(awk -v w="$whole" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * w / t : 0 }')
cmp_ok "$pct" '>=' 90 "whole stacks are >= 90% of the samples ($pct%)"
is "${trunc:-0}" 0 "no stack is marked [truncated]"
chain=$(folded_count_chain "$out" main recurse recurse)
cmp_ok "$chain" '>' 0 "main calls recurse directly (root-first order)"

done_testing
