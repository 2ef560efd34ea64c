#!/bin/sh
# python.sh — the Python binding's tests (tests/python/test_api.py; with
# PY_TEST=test_dask, the Dask pipeline's), run with the configured Python
# (Debian's python3) against the library of this build.
# Exit 77 (skipped) when that library cannot be loaded into Python: an
# AddressSanitizer build needs its runtime first in the process, so it is
# preloaded; if even then cffi cannot open the library, the run says so.
set -u
: "${SRCDIR:?run through make check}" "${PYTHON:?run through make check}"
test_mod=${PY_TEST:-test_api}
PYTHONPATH="$PY_PATH${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
case "${JH_SAN_CFLAGS:-}" in
*sanitize=address*)
	lib="$(dirname "$JINGHUA")/.libs/libjinghua.so.0"
	asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ {print $3}')
	# Python's own allocations are never freed at exit: no leak report
	LD_PRELOAD=$asan; ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
	export LD_PRELOAD ASAN_OPTIONS
	if [ "$test_mod" = test_dask ]; then
		echo "python.sh: $test_mod skipped in the AddressSanitizer build (test_api runs there)"
		exit 77
	fi ;;
esac
if ! err=$("$PYTHON" -c 'import jinghua; jinghua.check("x")' 2>&1); then
	echo "python.sh: the binding cannot load this build's library, $test_mod skipped:"
	echo "$err" | tail -3
	exit 77
fi
cd "$SRCDIR/tests/python" && exec "$PYTHON" -m unittest -v "$test_mod"
