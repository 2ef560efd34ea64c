# docs.profile — documentation, READMEs, technical writing (Markdown is
# read as prose by the CLI: code, links and markup are not checked).
#
# Adds the copywriting spacing rules (a space between Chinese and Latin
# letters or digits, as 中文文案排版指北 and autocorrect ask) as warnings,
# makes full-width marks of an English sentence half-width (I love you！
# → I love you!), allows a single ！ or ？ at a time, and leaves out the rules made for
# novel layout: indentation (in Markdown an indent is a code block),
# paragraphs run together at a 　　 indent, and run-on stretches.

enable = layout.space-cjk-latin, layout.space-cjk-digit, punct.english-mark
disable = layout.indent, layout.indent-missing, layout.merged-paragraph, punct.run-on,
  punct.dash-single
severity = layout.space-cjk-latin:warning, layout.space-cjk-digit:warning

[punct.mark-run]
max = 1
