#!/usr/bin/env bash
# The deployment files checked by what runs them (deploy/deploycheck, a Go
# module of its own): the Compose file by docker-compose's config, the
# balancer's configuration by haproxy -c, the Helm chart by helm lint and its
# rendered manifests decoded strictly into the Kubernetes API types.
# helm is installed from the Go module proxy into
# ${MCPDIR_CACHE:-~/.cache/mcpdir-e2e}/bin when missing (a few minutes, once).
# Each check skips when its program is missing, except in CI (CI=true), where
# .ci/run installs docker-compose and haproxy.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MCPDIR_CACHE:-$HOME/.cache/mcpdir-e2e}
HELM_VERSION=v3.22.0
HELM=${HELM:-$CACHE/bin/helm}
# go install stamps no version for helm version to print: the module's.
if ! go version -m "$HELM" 2>/dev/null | grep -Eq "^\s+mod\s+helm.sh/helm/v3\s+$HELM_VERSION\s"; then
  echo "e2e/deploy.sh: installing helm $HELM_VERSION into $CACHE/bin" >&2
  mkdir -p "$CACHE/bin"
  (cd "$ROOT/deploy/deploycheck" && GOBIN="$CACHE/bin" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
  HELM=$CACHE/bin/helm
fi
cd "$ROOT/deploy/deploycheck"
go vet ./...
HELM="$HELM" go test -count=1 ./...
