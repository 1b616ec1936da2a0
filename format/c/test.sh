#!/bin/sh
# Builds the C reader's test program (with the sanitizers where the
# toolchain has them) and checks it against files the Go writer produces:
# every array must equal the Go reader's, and damaged files must be
# refused with a message. Fails if cc is missing.
set -eu
cd "$(dirname "$0")/.."
PFMESH_REQUIRE_READERS=1 go test -count=1 -run 'TestCReader' .
