#!/bin/sh
# readme.sh — the examples README.md shows with their output still give
# that output (tests/readme.py, with the configured Python and the binding
# and language server of this build).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/asan-preload.sh"
if "${PYTHON:-/usr/bin/python3}" "$SRCDIR/tests/readme.py"; then pass; else fail "README examples"; fi
finish
