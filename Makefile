# make test — everything CI runs: vet, unit tests (race detector where
# affordable), the C and Python reader tests.
GO ?= go
# Packages cheap enough to run under the race detector.
RACE_PKGS = ./format/... ./contact/... ./cmd/... ./internal/atomicfile/... ./internal/bvh/... ./internal/render/...

.PHONY: test vet unit race readers build bench

test: vet unit race readers

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race $(RACE_PKGS)

readers:
	PFMESH_REQUIRE_READERS=1 $(GO) test -count=1 -run 'Readers' ./format/

build:
	$(GO) build -o pfmesh ./cmd/pfmesh

bench:
	@echo "see bench/README.md"
