#!/bin/sh
# Checks the Python reader against files the Go writer produces, with the
# standard library and, where importable, numpy (PFMESH_PYTHON may name
# more interpreters), then runs its own unit tests. Fails if python3 is
# missing.
set -eu
cd "$(dirname "$0")/.."
PFMESH_REQUIRE_READERS=1 go test -count=1 -run 'TestPythonReader' .
python3 python/test_pfm.py
PFM_NO_NUMPY=1 python3 python/test_pfm.py
