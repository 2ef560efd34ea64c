#!/bin/sh
# lsp-protocol.sh — `jinghua lsp` against the small client of
# tests/lsp_protocol.py (Debian's python3; standard library only).
. "$SRCDIR/tests/lib.sh"
if /usr/bin/python3 "$SRCDIR/tests/lsp_protocol.py"; then pass; else fail "protocol test"; fi
finish
