#!/bin/sh
# python.sh — the Python binding's tests (tests/python/test_api.py; with
# PY_TEST=test_dask, the Dask pipeline's), run with the configured Python
# (Debian's python3) against the library of this build.
# An AddressSanitizer build's library needs the ASan runtime first in the
# process: it is preloaded (into the Dask workers too), leak reports off
# (Python never frees its own objects at exit).  Exit 77 (skipped), saying
# why, if the binding cannot load the library all the same.
set -u
: "${SRCDIR:?run through make check}" "${PYTHON:?run through make check}"
test_mod=${PY_TEST:-test_api}
PYTHONPATH="$PY_PATH${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
. "$SRCDIR/tests/asan-preload.sh"
if ! err=$("$PYTHON" -c 'import jinghua; jinghua.check("x")' 2>&1); then
	echo "python.sh: the binding cannot load this build's library, $test_mod skipped:"
	echo "$err" | tail -3
	exit 77
fi
cd "$SRCDIR/tests/python" && exec "$PYTHON" -m unittest -v "$test_mod"
