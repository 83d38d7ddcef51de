#!/usr/bin/env bash
# tests/docs/options.sh - regenerate the option tables of README.md and
# the OPTIONS section of docs/sproftop.1 from `sproftop --help-options`
# (`make docs`).
#
#   tests/docs/options.sh            rewrite the generated sections
#   tests/docs/options.sh --check    exit 1, naming the stale files, when a
#                                    rewrite would change anything
#
# --help-options prints the option table of src/app/options.c (the one
# getopt_long and --help are built from) as Markdown: "### Group"
# headings, each followed by a "| Option | Meaning |" table.  README.md
# gets it verbatim between
#   <!-- options:begin --> and <!-- options:end -->
# and the man page gets, between
#   .\" options:begin ...  and  .\" options:end
# one .SS per group and one .TP per option: the option's tag and its help
# text as the first sentence (capitalized unless it starts with a key,
# "q quits..."), both generated, then the man page's own
# text for it.  That text is kept from the page as it is: the lines after
# a `.\" option --NAME` comment (`.\" option --` for "-- CMD"), or after a
# `.\" group NAME` comment for a group, up to the next .TP, .SS or marker.
# An option new in the table gets an empty one to fill in; text of an
# option the table no longer has is dropped.  SPROFTOP names the binary
# ($TOP/sproftop by default).
set -u

me=options.sh
# shellcheck source=tests/docs/lib.sh
. "$(dirname "$0")/lib.sh"
help_md --help-options option "$tmp/options.md"

# The Markdown as man(7), with the page's own text for each option and
# group.  Roff escapes: a backslash is \e, a minus that starts an option
# name \-, `code` bold, and a line that would start with '.' or '\'' gets
# \& in front.
perl -e '
    use strict;
    my ($md, $man) = @ARGV;
    my (%text, $key, $in);
    open(my $m, "<", $man) or die "$man: $!\n";
    while (<$m>) {
        if (/^\.\\" options:begin/) { $in = 1; next }
        last if /^\.\\" options:end/;
        next unless $in;
        if (/^\.\\" (option|group) (.*)$/) { $key = "$1 $2"; $text{$key} = ""; next }
        if (/^\.(TP|SS)\b/) { undef $key; next }
        $text{$key} .= $_ if defined $key;
    }
    close $m;
    sub esc {
        my $s = shift;
        $s =~ s/\\/\\e/g;
        $s =~ s/(^|[ (])(-+)(?=[A-Za-z])/$1 . ("\\-" x length $2)/ge;
        $s =~ s/`([^`]+)`/\\fB$1\\fP/g;
        $s = "\\&$s" if $s =~ /^[.\x27]/;
        return $s;
    }
    sub tag {
        my @out;
        for my $w (split / /, shift) {
            my $comma = $w =~ s/,$// ? "," : "";
            if ($w =~ /^-/) { $w =~ s/-/\\-/g; push @out, "\\fB$w\\fP$comma" }
            else { push @out, "\\fI$w\\fP$comma" }
        }
        return join " ", @out;
    }
    open(my $d, "<", $md) or die "$md: $!\n";
    while (<$d>) {
        chomp;
        if (/^### (.*)$/) {
            print ".SS $1\n.\\\" group $1\n", $text{"group $1"} // "";
        } elsif (/^\| `([^`]+)` \| (.*) \|$/) {
            my ($t, $help) = ($1, $2);
            $help = ucfirst $help if $help =~ /^[a-z]{2}/;
            my ($long) = $t =~ /(?:^|\s)(--[A-Za-z][A-Za-z-]*)/;
            $long //= "--";
            $help .= "." unless $help =~ /\.$/;
            print ".TP\n", tag($t), "\n", esc($help), "\n.\\\" option $long\n",
                $text{"option $long"} // "";
        } elsif (!/^(\| Option|\|---|$)/) {
            die "unexpected line in --help-options output: $_\n";
        }
    }
' "$tmp/options.md" "$man" >"$tmp/options.roff" || {
    echo "options.sh: cannot turn --help-options into roff" >&2
    exit 1
}

update "$readme" '^<!-- options:begin -->$' '^<!-- options:end -->$' "$tmp/options.md" '<!-- options:begin -->'
update "$man" '^\.\\" options:begin' '^\.\\" options:end' "$tmp/options.roff" '.\" options:begin'

finish "option tables"
