enable = layout
disable = punct.run-on
