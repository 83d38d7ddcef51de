#!/usr/bin/env bash
# cli_options.t - a wrong command line names the option and says what is
# wrong (issue 11, item 10): a missing value says which option needs one
# and what it needs (it said "unknown option '-o'": the getopt string
# lacked its leading ':'), and an unknown option in a cluster is named
# itself (`-p 5 -zq` said "unknown option '5'").  Each is one line on
# stderr and exit 2, before anything is attached.
. "$(dirname "$0")/lib.sh"
require_sproftop

# usage_is DESC WANT ARGS...: exit 2 and exactly this one line.
usage_is() {
    local desc=$1 want=$2
    shift 2
    run_sproftop "$@"
    is "$RC" 2 "$desc: exit 2"
    is "$ERRS" "sproftop: $want (see sproftop --help)" "$desc: says so in one line"
}

usage_is "-o without a value" "option '-o' needs an output file name" -i x.folded -o
usage_is "-p without a value" "option '-p' needs a process id" -p
usage_is "-i without a value" "option '-i' needs an input file name" -i
usage_is "-d without a value" "option '-d' needs a duration in seconds" -p 1 -d
usage_is "--output without a value" "option '--output' needs an output file name" -p 1 --output
usage_is "--snapshot-dir without a value" "option '--snapshot-dir' needs a directory" --snapshot-dir
usage_is "an unknown option in a cluster" "unknown option '-z'" -p 5 -zq
usage_is "an unknown option glued to a known one" "unknown option '-z'" -p5 -z
usage_is "an unknown short option" "unknown option '-x'" -x
usage_is "an unknown long option" "unknown option '--bogus'" --bogus
usage_is "an unknown long option with a value" "unknown option '--bogus'" --bogus=3
usage_is "a value for an option that takes none" "option '--idle' takes no value" -p 1 --idle=3

# Every option --help shows with a value says what that value is when it
# is missing (main.c's opt_values), not just "a value".
while read -r opt; do
    run_sproftop "$opt"
    unlike "$ERRS" "needs a value" "$opt without its value: says what it needs ($ERRS)"
done < <("$SPROFTOP" --help | sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\) [A-Z][A-Z]*.*/\2/p' | sort -u)

# Every option of the table (--help-options) is one getopt_long knows,
# in each of its forms: none is "unknown" (given after -p and -i, so
# that a flag ends in a usage error, not a run).
while read -r tag; do
    for form in $(printf '%s\n' "$tag" | grep -oE '(^| )--?[A-Za-z][A-Za-z-]*'); do
        run_sproftop -p 1 -i none "$form"
        unlike "$ERRS" "unknown option" "$form is an option getopt knows"
    done
done < <("$SPROFTOP" --help-options | sed -n 's/^| `\([^`]*\)`.*/\1/p' | grep -v '^-- ')

done_testing
