# novel.profile — the default profile: web novels and e-books.
#
# Every rule at its own default (`enabled =` in its rule file): half-width
# punctuation, pairing, ellipses and dashes, paragraph structure and
# indentation are checked; the copywriting spacing rules are off, because
# in novel text a space between Chinese and a digit (4 月 28 日) or a
# Latin word is damage, not style, and 　　 indents are kept.
#
# Format (read by the CLI, see README.md): `enable = IDS`, `disable = IDS`
# (rule ids or family prefixes, comma separated), `severity = ID:LEVEL, …`,
# and [family.name] sections with `key = value` parameters for a rule.

disable = layout.space-cjk-latin, layout.space-cjk-digit

[punct.quote-style]
style = auto

[punct.mark-run]
max = 3

[layout.blank-lines]
max = 1
