#!/usr/bin/perl
# bench/fortune-prose.pl SCRIPT-CHARS.TSV FORTUNE-FILE... — the clean-prose
# input of bench/run, made from Debian's fortunes-zh.
# The paragraphs of a fortune file that are Chinese prose: colour escapes,
# % separators and attribution lines dropped, hard-wrapped lines joined;
# kept when at least 90% of its characters are Han or CJK punctuation, it
# has 20 characters or more, and no character only traditional text uses
# (script-chars.tsv, given as the first argument).
use strict; use warnings;
use open qw(:std :encoding(UTF-8));
open my $t, '<:encoding(UTF-8)', shift @ARGV or die "script-chars.tsv: $!";
my %hant;
while (<$t>) { my ($c, $v) = split /\t/; $hant{$c} = 1 if defined $v && $v eq 'hant'; }
my ($p, $blank) = ('', 1);
sub flush {
	my $n = length $p;
	if ($n >= 20) {
		my $cjk = () = $p =~ /[\p{Han}\x{3000}-\x{303F}\x{FF00}-\x{FFEF}“”‘’…—]/g;
		if ($cjk >= 0.9 * $n && !grep { $hant{$_} } split //, $p) { print "\n" unless $blank; print "$p\n"; $blank = 0; }
	}
	$p = '';
}
while (<>) {
	chomp; s/\e\[[0-9;]*m//g;
	if (/^%$/ || /^\s*$/) { flush(); next; }
	next if /^\s*--/;
	s/^\s+//; s/\s+$//;
	$p .= ($p =~ /[A-Za-z0-9,.]$/ && /^[A-Za-z0-9]/) ? " $_" : $_;
}
flush();
