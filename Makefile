# The commands a developer and CI use. `make test` is what CI runs.
GO ?= go

.PHONY: test test-go test-clients test-openapi test-browser bench build

build:
	$(GO) build -o bin/mcpdir ./cmd/mcpdir

## test: vet, unit and end-to-end tests (real HTTP server, real SQLite, real MCP clients)
test: test-go test-clients test-openapi test-browser

# Every package under the race detector; the fuzz targets run their seed
# corpora as ordinary tests (go test -fuzz explores further, see README).
test-go:
	$(GO) vet ./...
	$(GO) test -count=1 -race -timeout 15m ./...

## test-clients: the MCP client suites we did not write (skips without Node/npm)
test-clients:
	bash e2e/clients.sh

## test-openapi: lint http/openapi.json with Redocly CLI (skips without npm)
test-openapi:
	bash e2e/openapi.sh

## test-browser: the public pages in Debian's Chromium, with axe-core (skips without Chromium or npm, outside CI)
test-browser:
	bash e2e/browser.sh

## bench: search speed and relevance figures (see docs/BENCHMARKS.md)
bench:
	bash bench/run.sh
