#!/usr/bin/env bash
# engine_cxx.t - C++ frames are demangled: a class template member in a
# namespace and a functor's operator() show as source-level names.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/engine/engine.sh"
require_sproftop
require_targets cxx

profile_target cxx 2 200
out=$PROF_OUT

mul=$(folded_count_substr "$out" 'sprof::Matrix<double>::multiply')
acc=$(folded_count_substr "$out" 'sprof::Accumulate::operator()')
run=$(folded_count_substr "$out" 'sprof::run_matmul<double>')
cmp_ok "$mul" '>' 0 "demangled sprof::Matrix<double>::multiply appears"
cmp_ok "$acc" '>' 0 "demangled sprof::Accumulate::operator() appears"
cmp_ok "$run" '>' 0 "demangled function template sprof::run_matmul<double> appears"
mangled=$(folded_count_substr "$out" '5sprof')
is "$mangled" 0 "no mangled sprof name is left (_ZN5sprof...)"
[ "$mul" -gt 0 ] || diag "frames seen: $(tr ';' '\n' <"$out" | sed 's/ [0-9]*$//' | sort -u | head -20 | tr '\n' '|')"

# Caller before callee, root first: run_matmul -> multiply -> operator().
order=$(awk '
    { s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); r = m = o = 0
      for (i = 1; i <= k; i++) {
          if (index(f[i], "sprof::run_matmul<double>") > 0) r = i
          if (index(f[i], "sprof::Matrix<double>::multiply") > 0) m = i
          if (index(f[i], "sprof::Accumulate::operator()") > 0) o = i }
      if (r && m && o && r < m && m < o) n += $NF }
    END { print n + 0 }' "$out")
cmp_ok "$order" '>' 0 "stacks show run_matmul, multiply, operator() in call order"

done_testing
