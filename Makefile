# The commands a developer and CI use. `make test` is what CI runs.
GO ?= go

.PHONY: test test-go test-clients test-openapi test-browser test-image test-deploy bench build image image-context

# The container image (Containerfile): podman where there is one, else docker.
CONTAINER ?= $(shell command -v podman >/dev/null 2>&1 && echo podman || echo docker)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
IMAGE ?= mcpdir:$(VERSION)
GOARCH ?= $(shell $(GO) env GOARCH)

build:
	$(GO) build -o bin/mcpdir ./cmd/mcpdir

## image-context: the static binary (version stamped) and the CA bundle, staged in bin/image for the Containerfile
image-context:
	rm -rf bin/image && mkdir -p bin/image/data bin/image/root/tmp && chmod 1777 bin/image/root/tmp
	CGO_ENABLED=0 GOOS=linux GOARCH=$(GOARCH) $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o bin/image/mcpdir ./cmd/mcpdir
	cp /etc/ssl/certs/ca-certificates.crt bin/image/ca-certificates.crt

## image: the container image, FROM scratch (see docs/deploy.md)
image: image-context
	$(CONTAINER) build $(if $(findstring podman,$(CONTAINER)),--format docker) $(BUILD_FLAGS) -f Containerfile \
		--build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMAGE) .

## test: vet, unit and end-to-end tests (real HTTP server, real SQLite, real MCP clients)
test: test-go test-clients test-openapi test-browser test-image test-deploy

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

## test-image: build the image and run it with podman: keys, REST, MCP, two replicas on PostgreSQL and Redis (skips without podman, outside CI)
test-image:
	bash e2e/image.sh

## test-deploy: Compose and HAProxy configurations checked, the Helm chart linted and its manifests validated
test-deploy:
	bash e2e/deploy.sh

## bench: search speed and relevance figures (see docs/BENCHMARKS.md)
bench:
	bash bench/run.sh
