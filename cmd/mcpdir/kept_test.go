package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a server keeps of searches and answers follows every write: an
// entry added, replaced and deleted through the admin API shows at once in
// REST, in search_mcp (through the official SDK's client) and in
// get_mcp_detail, asked the same questions before and after; the same
// with nothing kept (--search-cache 0).
func TestKeptAnswersFollowWrites(t *testing.T) {
	for _, flags := range [][]string{nil, {"--search-cache", "0"}} {
		t.Run(strings.Join(append([]string{"defaults"}, flags...), " "), func(t *testing.T) {
			s := startServer(t, "", append([]string{"--no-starter"}, flags...)...)
			admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "unlimited")
			key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
			cs := connectMCP(t, s, "Bearer "+key)
			write := func(method, path, body string, want int) string {
				t.Helper()
				req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+admin)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != want {
					t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
				}
				return string(b)
			}
			call := func(tool string, args map[string]any) map[string]any {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
				if err != nil || len(res.Content) == 0 {
					t.Fatalf("%s: %v %+v", tool, err, res)
				}
				var out map[string]any
				json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out)
				return out
			}
			// Both doors, each asked twice: the second from what was kept.
			briefs := func() (rest, mcp []string) {
				for range 2 {
					rest, mcp = nil, nil
					for _, d := range s.search(t, key, "heron").Data {
						rest = append(rest, d.Brief)
					}
					for _, d := range call("search_mcp", map[string]any{"keywords": "heron"})["data"].([]any) {
						mcp = append(mcp, d.(map[string]any)["brief"].(string))
					}
				}
				return rest, mcp
			}
			// A write reaches the index through the change feed, a moment
			// later: the searches made meanwhile are kept too.
			same := func(what string, want ...string) {
				t.Helper()
				var rest, mcp []string
				waitFor(t, 3*time.Second, what, func() bool {
					rest, mcp = briefs()
					return strings.Join(rest, "|") == strings.Join(want, "|")
				})
				if strings.Join(rest, "|") != strings.Join(want, "|") || strings.Join(mcp, "|") != strings.Join(want, "|") {
					t.Errorf("%s: REST %q, search_mcp %q, want %q", what, rest, mcp, want)
				}
			}

			same("before the entry")
			var created struct{ ID string }
			json.Unmarshal([]byte(write("POST", "/api/admin/v1/entries", `{"name": "heron-mcp", "brief": "Heron sightings", "website_url": "https://example.com/heron"}`, 201)), &created)
			same("after it was added", "Heron sightings")
			detail := func() string { // asked once more than the searches were
				var brief string
				for range 3 {
					data, _ := call("get_mcp_detail", map[string]any{"mcp_id": created.ID})["data"].(map[string]any)
					brief, _ = data["brief"].(string)
				}
				return brief
			}
			if got := detail(); got != "Heron sightings" {
				t.Errorf("detail: brief %q", got)
			}
			write("PUT", "/api/admin/v1/entries/"+created.ID, `{"name": "heron-mcp", "brief": "Heron and egret sightings", "website_url": "https://example.com/heron"}`, 200)
			same("after it was replaced", "Heron and egret sightings")
			if got := detail(); got != "Heron and egret sightings" {
				t.Errorf("detail after the replacement: brief %q", got)
			}
			write("DELETE", "/api/admin/v1/entries/"+created.ID, "", 204)
			same("after it was deleted")
		})
	}
}

// --search-cache takes a count of searches, 0 for none.
func TestSearchCacheFlag(t *testing.T) {
	for _, v := range []string{"-1", "many", "2000000"} {
		var stderr bytes.Buffer
		err := run(t.Context(), []string{"mcpdir", "serve", "--search-cache", v, "--data-dir", t.TempDir()}, noEnv, nil, io.Discard, &stderr)
		if exitCode(err) != 2 {
			t.Errorf("serve --search-cache %s: %v, want a usage error", v, err)
		}
	}
	env := func(name string) string {
		if name == "MCPDIR_SEARCH_CACHE" {
			return "lots"
		}
		return ""
	}
	if err := run(t.Context(), []string{"mcpdir", "serve", "--data-dir", t.TempDir()}, env, nil, io.Discard, io.Discard); exitCode(err) != 2 {
		t.Errorf("MCPDIR_SEARCH_CACHE=lots: %v, want a usage error", err)
	}
}
