#!/usr/bin/env perl
# ansi2html.pl - turn a terminal capture (tmux capture-pane -e -p) into a
# self-contained HTML page that looks like the terminal did.
#
#   ansi2html.pl COLS ROWS TITLE < capture.ans > page.html
#
# Used by tests/screenshots/make.sh, which screenshots the page with
# headless Chromium.  Understands the SGR sequences ncurses sends for
# TERM=xterm-256color: 0 reset, 1 bold, 2 dim, 3 italic, 4 underline,
# 7 reverse and their 22/23/24/27 undo, 30-37/90-97 and 40-47/100-107
# (16 colours), 38;5;N / 48;5;N (256 colours), 38;2;R;G;B / 48;2;R;G;B,
# 39/49 defaults.  Other escape sequences are dropped.
#
# tmux keeps the attributes of one line running into the next and leaves
# out the blank cells at the end of a line; a line that ends with a
# coloured background was cleared to its end in that colour (ncurses
# relies on xterm's background-colour erase), so the converter pads every
# line to COLS cells with the background in force at its end.
use strict;
use warnings;

my ($cols, $rows, $title) = @ARGV;
die "usage: ansi2html.pl COLS ROWS TITLE < capture > page.html\n"
    unless defined $title && $cols =~ /^\d+$/ && $rows =~ /^\d+$/;

binmode STDIN, ':encoding(UTF-8)';
binmode STDOUT, ':encoding(UTF-8)';

my $DEFAULT_FG = '#d0d0d0';
my $DEFAULT_BG = '#1c1c1c';

# The 16 base colours: a dark-background palette close to xterm's, a
# little softer so the PNGs read well on a web page.
my @base = (
    '#2e3436', '#cc3e3e', '#4e9a06', '#c4a000', '#3465a4', '#a35fa3', '#06989a', '#d3d7cf',
    '#7f7f7f', '#ef5f5f', '#8ae234', '#fce94f', '#729fcf', '#ad7fa8', '#34e2e2', '#eeeeec',
);

sub rgb {
    my ($r, $g, $b) = @_;
    return sprintf '#%02x%02x%02x', $r, $g, $b;
}

# xterm's 256-colour table: 16 base, a 6x6x6 cube, 24 greys.
sub colour256 {
    my ($n) = @_;
    return $base[$n] if $n < 16;
    if ($n < 232) {
        $n -= 16;
        my @lvl = (0, 95, 135, 175, 215, 255);
        return rgb($lvl[int($n / 36)], $lvl[int($n / 6) % 6], $lvl[$n % 6]);
    }
    my $g = 8 + 10 * ($n - 232);
    return rgb($g, $g, $g);
}

# Halfway between two colours: how "dim" text is drawn.
sub mix {
    my ($a, $b) = @_;
    my @x = map { hex } $a =~ /^#(..)(..)(..)$/;
    my @y = map { hex } $b =~ /^#(..)(..)(..)$/;
    return rgb(map { int(($x[$_] + $y[$_]) / 2) } 0 .. 2);
}

my %attr;    # fg, bg (undef = default), bold, dim, italic, under, reverse

sub reset_attr { %attr = () }

sub apply_sgr {
    my @p = map { $_ eq '' ? 0 : $_ } split /;/, $_[0], -1;
    @p = (0) unless @p;
    while (@p) {
        my $c = shift @p;
        if ($c == 0) { reset_attr() }
        elsif ($c == 1) { $attr{bold} = 1 }
        elsif ($c == 2) { $attr{dim} = 1 }
        elsif ($c == 3) { $attr{italic} = 1 }
        elsif ($c == 4) { $attr{under} = 1 }
        elsif ($c == 7) { $attr{reverse} = 1 }
        elsif ($c == 22) { delete @attr{qw(bold dim)} }
        elsif ($c == 23) { delete $attr{italic} }
        elsif ($c == 24) { delete $attr{under} }
        elsif ($c == 27) { delete $attr{reverse} }
        elsif ($c >= 30 && $c <= 37) { $attr{fg} = $base[$c - 30] }
        elsif ($c >= 90 && $c <= 97) { $attr{fg} = $base[$c - 90 + 8] }
        elsif ($c >= 40 && $c <= 47) { $attr{bg} = $base[$c - 40] }
        elsif ($c >= 100 && $c <= 107) { $attr{bg} = $base[$c - 100 + 8] }
        elsif ($c == 39) { delete $attr{fg} }
        elsif ($c == 49) { delete $attr{bg} }
        elsif ($c == 38 || $c == 48) {
            my $key = $c == 38 ? 'fg' : 'bg';
            my $mode = shift(@p) // 0;
            if ($mode == 5 && @p) {
                $attr{$key} = colour256(shift(@p) % 256);
            } elsif ($mode == 2 && @p >= 3) {
                $attr{$key} = rgb(map { $_ % 256 } splice(@p, 0, 3));
            }
        }
    }
}

# The CSS for the current attributes.
sub style {
    my $fg = $attr{fg} // $DEFAULT_FG;
    my $bg = $attr{bg} // $DEFAULT_BG;
    ($fg, $bg) = ($bg, $fg) if $attr{reverse};
    $fg = mix($fg, $bg) if $attr{dim};
    my @s = ("color:$fg");
    push @s, "background:$bg" if $bg ne $DEFAULT_BG;
    push @s, 'font-weight:bold' if $attr{bold};
    push @s, 'font-style:italic' if $attr{italic};
    push @s, 'text-decoration:underline' if $attr{under};
    return join ';', @s;
}

sub esc {
    my ($t) = @_;
    $t =~ s/&/&amp;/g;
    $t =~ s/</&lt;/g;
    $t =~ s/>/&gt;/g;
    return $t;
}

my @out;     # HTML of each line
my $nlines = 0;
while (my $line = <STDIN>) {
    last if $nlines >= $rows;
    chomp $line;
    my ($html, $run, $run_style, $width) = ('', '', undef, 0);
    my $flush = sub {
        $html .= qq(<span style="$run_style">) . esc($run) . '</span>'
            if $run ne '';
        $run = '';
    };
    my $put = sub {
        my ($text) = @_;
        my $s = style();
        if (!defined $run_style || $s ne $run_style) {
            $flush->();
            $run_style = $s;
        }
        $run .= $text;
    };
    pos($line) = 0;
    while (pos($line) < length $line) {
        if ($line =~ /\G\e\[([0-9;]*)m/gc) {
            apply_sgr($1);
        } elsif ($line =~ /\G\e(?:\[[0-9;?]*[A-Za-z]|\][^\a\e]*(?:\a|\e\\)|[()][A-Z0-9]|.)/gc) {
            # not a colour: nothing to draw
        } elsif ($line =~ /\G([^\e]+)/gc) {
            my $text = $1;
            $text =~ s/[\x00-\x1f\x7f]//g;
            $text = substr($text, 0, $cols - $width) if $width + length($text) > $cols;
            $width += length $text;
            $put->($text) if $text ne '';
        } else {
            pos($line) = pos($line) + 1;   # a lone ESC at the end
        }
    }
    # Pad with the background in force at the end of the line, as the
    # terminal's clear-to-end-of-line did.
    if ($width < $cols) {
        my %keep = %attr;
        delete @attr{qw(bold dim italic under)};
        $put->(' ' x ($cols - $width));
        %attr = %keep;
    }
    $flush->();
    push @out, $html;
    $nlines++;
}
push @out, qq(<span style="color:$DEFAULT_FG">) . (' ' x $cols) . '</span>'
    while @out < $rows;

my $t = esc($title);
print <<"HTML";
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>$t</title>
<style>
html, body { margin: 0; padding: 0; background: $DEFAULT_BG; }
pre {
  margin: 0; padding: 10px 12px;
  font-family: "DejaVu Sans Mono", "Liberation Mono", monospace;
  font-size: 14px; line-height: 18px;
  color: $DEFAULT_FG; background: $DEFAULT_BG;
  font-variant-ligatures: none;
}
/* Each run fills its row's full height, so a coloured bar has no seams
 * and no row paints over the descenders of the row above. */
pre span { display: inline-block; height: 18px; vertical-align: top; }
</style></head>
<body><pre>
HTML
print join("\n", @out), "\n";
print "</pre></body></html>\n";
