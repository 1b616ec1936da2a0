# make test — everything CI runs: vet, unit tests (race detector where
# affordable), the C and Python reader tests.
GO ?= go
# Packages cheap enough to run under the race detector, and the tetgen
# tests of its concurrent passes (the rest of tetgen is too slow under it).
RACE_PKGS = ./format/... ./contact/... ./laplace/... ./internal/...
RACE_TETGEN = TestSplitRound|TestSlabPass|TestInsertInFrontSerial

.PHONY: test vet unit race readers build bench

test: vet unit race readers

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race -short $(RACE_PKGS)
	$(GO) test -count=1 -race -short -run '$(RACE_TETGEN)' ./tetgen

# The C and Python .pfm readers, checked against the Go writer. Debian's
# python3 (with python3-numpy) covers the numpy path; the first python3 on
# PATH covers the standard-library path.
readers:
	sh format/c/test.sh
	PFMESH_PYTHON=/usr/bin/python3 sh format/python/test.sh

build:
	$(GO) build -o pfmesh ./cmd/pfmesh

bench:
	@echo "see bench/README.md"
