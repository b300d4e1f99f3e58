package registryapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestPublishRefusesUnsafeInstalls: a record whose package or remote a
// client could not install safely as given (an identifier that is an
// option, a version that is a range or a shell's, a remote that is not
// https, an environment variable's name that is not one) is refused,
// naming the field.
func TestPublishRefusesUnsafeInstalls(t *testing.T) {
	s := newRegistry(t)
	pkg := func(rec map[string]any) map[string]any { return rec["packages"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		change func(rec map[string]any)
		path   string
	}{
		{func(rec map[string]any) { pkg(rec)["identifier"] = "--call=touch x" }, "/packages/0/identifier"},
		{func(rec map[string]any) { pkg(rec)["identifier"] = "@acme/tool\u202e" }, "/packages/0/identifier"},
		{func(rec map[string]any) { pkg(rec)["version"] = "1.0.0 $(id)" }, "/packages/0/version"},
		{func(rec map[string]any) { pkg(rec)["version"] = "^1.0.0" }, "/packages/0/version"},
		{func(rec map[string]any) {
			pkg(rec)["environmentVariables"] = []any{map[string]any{"name": "A B"}}
		}, "/packages/0/environmentVariables/0/name"},
		{func(rec map[string]any) {
			pkg(rec)["runtimeArguments"] = []any{map[string]any{"type": "named", "name": "--call", "value": "touch x"}}
		}, "/packages/0/runtimeArguments/0/name"},
		{func(rec map[string]any) {
			rec["remotes"] = []any{map[string]any{"type": "streamable-http", "url": "http://tools.acme.example/mcp"}}
		}, "/remotes/0/url"},
		{func(rec map[string]any) {
			rec["remotes"] = []any{map[string]any{"type": "streamable-http", "url": "https://tools.acme.example/mcp",
				"headers": []any{map[string]any{"name": "X-Key", "value": "a\r\nX-Evil: 1"}}}}
		}, "/remotes/0/headers/0/value"},
	} {
		rec := published("com.acme/tool", "1.0.0", "d")
		tc.change(rec)
		var e struct{ Error, Path string }
		s.do(t, http.MethodPost, "/v0.1/publish", rec, http.StatusBadRequest, &e)
		if e.Path != tc.path || !strings.Contains(e.Error, "installed safely") {
			t.Errorf("%s: %+v", tc.path, e)
		}
	}
	if n, _ := s.db.CountEntries(context.Background()); n != 0 {
		t.Fatalf("refused writes left %d entries", n)
	}
	// The same record with a pinned version and a valid identifier is
	// published.
	s.do(t, http.MethodPost, "/v0.1/publish", published("com.acme/tool", "1.0.0", "d"), http.StatusOK, nil)
}
