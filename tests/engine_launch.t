#!/usr/bin/env bash
# engine_launch.t - `sproftop [options] -- CMD ARGS`: the command runs under
# sampling, sproftop exits with its exit status, and an exec inside the
# command reloads the symbols.  The modules the command starts with are
# loaded before it runs (--stats "loaded before the launch"), found as
# execvp and the dynamic loader find them.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split deep libuser

split=$TARGETS/split

out=$TMPD/launch.folded
run_sproftop -d 30 -o "$out" -- "$split" 2
is "$RC" 0 "-- split 2: sproftop exits with split's status 0"
[ "$RC" = 0 ] || diag_file "$ERR"
total=$(folded_total "$out")
cmp_ok "$total" '>' 0 "-- split 2: samples collected ($total)"
cmp_ok "$(folded_count_chain "$out" main func_a work_unit)" '>' 0 "-- split 2: main;func_a;work_unit sampled"
like "$(folded_roots "$out")" '^split-[0-9]+$' "-- split 2: rooted at a split-TID thread frame"

run_sproftop -d 30 -o "$TMPD/status.folded" -- "$split" 1 3
is "$RC" 3 "-- split 1 3: sproftop exits with the command's status 3"

run_sproftop -o "$TMPD/nod.folded" -- "$split" 1
is "$RC" 0 "without -d: sproftop ends when the command does, status 0"
cmp_ok "$(folded_total "$TMPD/nod.folded")" '>' 0 "without -d: samples written"

# exec: the process becomes split 0.3 s in; symbols must be reloaded.
out=$TMPD/exec.folded
run_sproftop -d 30 -o "$out" -- bash -c "sleep .3; exec '$split' 1"
is "$RC" 0 "bash -c 'sleep .3; exec split 1': exit 0"
[ "$RC" = 0 ] || diag_file "$ERR"
cmp_ok "$(folded_count_frame "$out" func_a)" '>' 0 "after exec: split's func_a is sampled"
cmp_ok "$(folded_count_chain "$out" main func_a work_unit)" '>' 0 "after exec: whole chain main;func_a;work_unit"
# Every sample in split's code must unwind to _start: a stack unwound
# with the old image's maps or symbols would stop short or go astray.
is "$(folded_count_broken "$out" work_unit _start 2>"$TMPD/broken.txt")" 0 \
    "after exec: every stack through work_unit is unwound whole (from _start)"
[ -s "$TMPD/broken.txt" ] && diag_file "$TMPD/broken.txt"

run_sproftop -d 30 -o "$TMPD/true.folded" -- bash -c 'sleep .3; exec /bin/true'
is "$RC" 0 "bash -c 'sleep .3; exec /bin/true': exit 0"

run_sproftop -d 30 -o "$TMPD/false.folded" -- /bin/false
is "$RC" 1 "-- /bin/false: exit 1"

# --cmd-output FILE: the command's output and errors go to FILE, not to
# sproftop's (issue 12.6).  The option needs a command; an unopenable
# FILE is one line, before anything runs.
run_sproftop -d 30 -o "$TMPD/cmdout.folded" --cmd-output "$TMPD/cmd.out" -- \
    sh -c "echo to-stdout; echo to-stderr >&2; exec '$split' 1"
is "$RC" 0 "--cmd-output: exit 0"
is "$(sort "$TMPD/cmd.out" 2>/dev/null)" "$(printf 'to-stderr\nto-stdout')" \
    "--cmd-output: the command's stdout and stderr are in the file"
is "$OUTS$ERRS" "" "--cmd-output: nothing of it on sproftop's stdout or stderr"
cmp_ok "$(folded_count_frame "$TMPD/cmdout.folded" func_a)" '>' 0 "--cmd-output: the command was sampled"
run_sproftop --keep-cmd -i "$TMPD/cmdout.folded"
is "$RC" 2 "--keep-cmd without -- CMD: a usage error"
like "$ERRS" 'keep-cmd needs a command to launch' "--keep-cmd without -- CMD: says so"
run_sproftop -d 5 -o "$TMPD/x.folded" --cmd-output "$TMPD/no/such/dir/out" -- /bin/true
is "$RC" 1 "--cmd-output into a missing directory: exit 1"
assert_one_line_error "--cmd-output into a missing directory: one line on stderr"
like "$ERRS" 'cannot open .*no/such/dir/out for the command.s output' \
    "--cmd-output into a missing directory: names the file"

# What is loaded before the launch (sym_preload.h): check_preload LABEL
# NAME... checks the --stats of the last run: each NAME (a file name) is
# among the modules loaded before the command started, and the store
# loaded nothing more while it ran (a module loaded before that was not
# the file the command mapped would have been loaded again).
check_preload() {
    local label=$1 line pre loads n
    shift
    [ "$RC" = 0 ] || diag_file "$ERR"
    line=$(grep '^loaded before the launch: ' "$ERR")
    for n in "$@"; do
        case "$line" in
        *"($n,"* | *"($n)"* | *" $n,"* | *" $n)"*) ok 0 "$label: $n loaded before the launch" ;;
        *) ok 1 "$label: $n loaded before the launch"; diag "$line" ;;
        esac
    done
    pre=$(sed -n 's/^loaded before the launch: \([0-9]*\) modules.*/\1/p' "$ERR")
    loads=$(sed -n 's/^symbol store: .*, \([0-9]*\) loaded, .*/\1/p' "$ERR")
    is "${loads:-none}" "${pre:-none}" "$label: no module loaded while it ran"
}
# the file names of a program's dynamic loader (PT_INTERP, links followed)
interp_of() {
    basename "$(readlink -f "$(readelf -l "$1" | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')")"
}
ld=$(interp_of "$TARGETS/deep")

PATH=$TARGETS:$PATH run_sproftop --stats -F 500 -o "$TMPD/pre.folded" -- deep 1
is "$RC" 0 "-- deep 1 (found in \$PATH): exit 0"
check_preload "deep" deep "$ld" libc.so.6 '[vdso]'
cmp_ok "$(folded_count_chain "$TMPD/pre.folded" main level1 level2)" '>' 0 \
    "deep: main;level1;level2 sampled and named"

# libA.so is found through libuser's DT_RUNPATH $ORIGIN, as the loader does
run_sproftop --stats -F 500 -o "$TMPD/runpath.folded" -- "$TARGETS/libuser" 1
is "$RC" 0 "-- libuser 1: exit 0"
check_preload "libuser" libuser "$ld" libA.so libc.so.6
cmp_ok "$(folded_count_chain "$TMPD/runpath.folded" main a_spin)" '>' 0 \
    "libuser: main;a_spin sampled and named"

# a script: its interpreter and that one's libraries
script=$TMPD/run.sh
printf '#!/bin/sh\nexec "%s" 1\n' "$TARGETS/deep" >"$script"
chmod +x "$script"
run_sproftop --stats -F 500 -o "$TMPD/script.folded" -- "$script"
is "$RC" 0 "-- SCRIPT: exit 0"
like "$(grep '^loaded before the launch: ' "$ERR")" \
    "[(]$(basename "$(readlink -f /bin/sh)")[,)]" "-- SCRIPT: its interpreter loaded before the launch"
cmp_ok "$(folded_count_chain "$TMPD/script.folded" main level1 level2)" '>' 0 \
    "-- SCRIPT: what it execs is sampled and named"

# A command that cannot be run: an error naming it.
run_sproftop -d 5 -o "$TMPD/none.folded" -- "$TMPD/no-such-command"
isnt "$RC" 0 "-- a missing command: non-zero exit"
assert_one_line_error "-- a missing command: one line on stderr"
like "$ERRS" 'no-such-command' "-- a missing command: the message names it"

done_testing
