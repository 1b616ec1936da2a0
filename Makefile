# make test — everything CI runs: vet, unit tests (race detector where
# affordable), the C and Python reader tests.
GO ?= go
# Packages cheap enough to run under the race detector, and the tetgen
# tests of its concurrent passes (the rest of tetgen is too slow under it).
RACE_PKGS = ./format/... ./contact/... ./laplace/... ./internal/...
RACE_TETGEN = TestSplitRound|TestSlabPass|TestInsertInFrontSerial

.PHONY: test vet unit race fused readers build bench

test: vet unit race fused readers

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race -short $(RACE_PKGS)
	$(GO) test -count=1 -race -short -run '$(RACE_TETGEN)' ./tetgen

# The unit tests where Go fuses multiply-adds (arm64 always, amd64 from
# GOAMD64=v3), as an amd64 machine with the v3 instructions can run them:
# the exact predicates lost their exactness there once, which only the
# predicates' and the pipeline's tests showed.
V3_FLAGS = avx2 bmi1 bmi2 f16c fma movbe abm
fused:
	@v3=yes; [ "$$($(GO) env GOARCH)" = amd64 ] || v3=no; \
	for f in $(V3_FLAGS); do grep -qw $$f /proc/cpuinfo 2>/dev/null || v3=no; done; \
	if [ $$v3 = yes ]; then GOAMD64=v3 $(GO) test -count=1 ./...; \
	else echo "fused: no GOAMD64=v3 on this machine, skipped"; fi

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
