#!/bin/sh
# python-dask.sh — the Dask pipeline on a LocalCluster (tests/python/test_dask.py)
PY_TEST=test_dask; export PY_TEST
exec sh "$SRCDIR/tests/python.sh"
