package main

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
)

// An agent's task pasted whole, line breaks and tabs and all, longer than
// a line of keywords (1,400 bytes), is answered over REST and through
// search_mcp (the official SDK's client) as its words single-spaced are;
// keywords past what is searched are cut between words, and the echo says
// what was searched. Before, a line break or 1,025 bytes was a 400.
func TestPastedTaskIsAnswered(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	task := "Hi!\r\n\r\nBefore Monday's release I need an agent that goes through the open pull requests of our GitHub repository:\n" +
		"\t- list the ones waiting on review for more than three days,\n\t- comment on each with a friendly reminder,\n" +
		"\t- open an issue that sums up what is blocked.\n\n" +
		strings.Repeat("Please don't merge or close anything yourself, and keep the tone light, the team is tired after the launch. ", 9) +
		"\n\nThanks so much!\n"
	spaced := strings.Join(strings.Fields(task), " ")
	if len(spaced) <= 1024 || len(spaced) > mcpdir.SearchedKeywordsBytes {
		t.Fatalf("the task is %d bytes", len(spaced))
	}
	type echoed struct {
		searchBody
		Keywords string `json:"keywords"`
	}
	rest := func(keywords string) echoed {
		t.Helper()
		resp := get(t, s.URL+"/api/open/v1/search?keywords="+url.QueryEscape(keywords), "Bearer "+key)
		if resp.StatusCode != 200 {
			t.Fatalf("%.40q…: status %d", keywords, resp.StatusCode)
		}
		return decode[echoed](t, resp)
	}
	names := func(b searchBody) (out []string) {
		for _, d := range b.Data {
			out = append(out, d.Name)
		}
		return out
	}

	pasted, single := rest(task), rest(spaced)
	if pasted.Count == 0 || !strings.Contains(strings.ToLower(pasted.Data[0].Name), "github") {
		t.Fatalf("the pasted task answers %v, want GitHub first", names(pasted.searchBody))
	}
	if got, want := strings.Join(names(pasted.searchBody), "|"), strings.Join(names(single.searchBody), "|"); got != want || pasted.Keywords != spaced {
		t.Errorf("pasted %v (echo %.40q), single-spaced %v", got, pasted.Keywords, want)
	}

	// Through search_mcp, the same.
	cs := connectMCP(t, s, "Bearer "+key)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": task, "limit": 50}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("search_mcp: %v %+v", err, res)
	}
	var out struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out)
	var viaMCP []string
	for _, d := range out.Data {
		viaMCP = append(viaMCP, d.Name)
	}
	if got, want := strings.Join(viaMCP, "|"), strings.Join(names(pasted.searchBody), "|"); got != want {
		t.Errorf("search_mcp answers %v, REST %v", got, want)
	}

	// Keywords past what is searched: cut between words, and said.
	long := strings.Repeat(spaced+" ", mcpdir.MaxKeywordsBytes/len(spaced)+1)[:mcpdir.MaxKeywordsBytes]
	cut := rest(long)
	if n := len(cut.Keywords); n > mcpdir.SearchedKeywordsBytes || n < mcpdir.SearchedKeywordsBytes-20 ||
		!strings.HasPrefix(long, cut.Keywords+" ") || cut.Count == 0 {
		t.Errorf("%d bytes of keywords: echo of %d bytes ending %q, %d results", len(long), n, cut.Keywords[max(0, n-20):], cut.Count)
	}
}
