# docs.profile — documentation, READMEs, technical writing (Markdown is
# read as prose by the CLI: code, links and markup are not checked).
#
# Adds the copywriting spacing rules (a space between Chinese and Latin
# letters or digits, and outside half-width brackets, as 中文文案排版指北 and
# autocorrect ask) as warnings,
# makes full-width marks of an English sentence half-width (I love you！
# → I love you!), allows a single ！ or ？ at a time, and leaves out the rules made for
# novel layout: indentation (in Markdown an indent is a code block),
# paragraphs run together at a 　　 indent, lines broken in mid-sentence
# (documentation is wrapped at a width on purpose: its unsafe join was right
# 0 times of 19 on manpages-zh and fortunes-zh), and run-on stretches; and the
# pirate-site URL hint (censor.url): a document's URLs are its content.

enable = layout.space-cjk-latin, layout.space-cjk-digit, layout.space-cjk-bracket, punct.english-mark
disable = layout.indent, layout.indent-missing, layout.merged-paragraph, layout.paragraph-split,
  punct.run-on, punct.dash-single, censor.url
severity = layout.space-cjk-latin:warning, layout.space-cjk-digit:warning,
  layout.space-cjk-bracket:warning

[punct.mark-run]
max = 1

# The floor test of the lost characters is made from novel prose (one 了 in
# 66 characters at least); manuals and messages are another register.
[censor.missing-chars]
floor = none

[censor.missing-chars.insert]
floor = none
