#!/bin/sh
# regen.sh - rewrite tests/ui/*.expected from the current TUI.
#
#   tests/ui/regen.sh            (after `make`)
#
# Runs tests/ui_screens.t with REGEN=1: every case writes its screens to
# its .expected file instead of comparing.  Review `git diff tests/ui`
# before committing: the expected files are the specification.
cd "$(dirname "$0")/../.." || exit 1
REGEN=1 exec tests/ui_screens.t "$@"
