# the default profile of the mini rule set
disable = layout.double-space
severity = typo.zaijie:error

[punct.run-on]
limit = 60
