package toolsearch_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/toolsearch"
	"github.com/mcpdir/mcpdir/wire"
)

func server(name, brief string, tools ...mcpdir.Tool) *mcpdir.Entry {
	e := &mcpdir.Entry{Name: name, Brief: brief, WebsiteURL: "https://example.com/" + name, Tools: mcpdir.CleanTools(tools)}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	return e
}

func directory() (*toolsearch.Index, map[string]*mcpdir.Entry) {
	var fsTools []mcpdir.Tool
	for _, n := range []string{"read_file", "write_file", "list_files", "move_file", "delete_file", "search_files"} {
		fsTools = append(fsTools, mcpdir.Tool{Name: n, Description: "Work with a file on disk: " + n})
	}
	es := map[string]*mcpdir.Entry{
		"maps": server("maps-mcp", "Maps for agents",
			mcpdir.Tool{Name: "geocode", Title: "Geocode an address", Description: "Turn a street address into latitude and longitude",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"address":{"type":"string"}},"required":["address"]}`)},
			mcpdir.Tool{Name: "directions", Description: "Driving directions between two places"}),
		"fs":     server("filesystem-mcp", "Local files", fsTools...),
		"files2": server("cloud-drive", "Files in the cloud", mcpdir.Tool{Name: "upload_file", Description: "Upload a file to the drive"}),
		"mail":   server("mailer", "Email", mcpdir.Tool{Name: "send_email", Description: "Send an email"}),
	}
	x := toolsearch.New(search.New())
	for _, e := range es {
		x.Upsert(e)
	}
	return x, es
}

func TestFindsToolsByWhatTheyDo(t *testing.T) {
	x, es := directory()
	res := x.FindTools(mcpdir.Query{Text: "something that can geocode an address", Limit: 5})
	if len(res.Hits) == 0 || res.Hits[0].Tool.Name != "geocode" || res.Hits[0].Server != es["maps"] {
		t.Fatalf("geocode: %v", hitNames(res))
	}
	it := wire.NewToolItem(res.Hits[0])
	if it.ServerID != es["maps"].ID || it.Title != "Geocode an address" || string(it.InputSchema) != `{"properties":{"address":{"type":"string"}},"required":["address"],"type":"object"}` || it.Fingerprint == "" {
		t.Fatalf("item: %+v", it)
	}
	// The server is still a server: its own index finds it.
	if r := x.Find(mcpdir.Query{Text: "geocode", Limit: 5}); len(r.Hits) == 0 || r.Hits[0].Entry.ID != es["maps"].ID {
		t.Fatalf("servers by their tools: %+v", r.Hits)
	}
}

func TestThreeToolsOfAServerInATen(t *testing.T) {
	x, es := directory()
	res := x.FindTools(mcpdir.Query{Text: "file", Limit: 10})
	fromFS := 0
	for _, h := range res.Hits[:min(4, len(res.Hits))] {
		if h.Server == es["fs"] {
			fromFS++
		}
	}
	if fromFS > toolsearch.PerServer || !containsServer(res, es["files2"]) {
		t.Fatalf("file: %v", hitNames(res))
	}
	// Its other tools come after the other servers', not never.
	if n := countServer(res, es["fs"]); n != 6 {
		t.Fatalf("file: %d filesystem tools of 6: %v", n, hitNames(res))
	}
	// Naming the server lifts the cap.
	named := x.FindTools(mcpdir.Query{Text: "filesystem file", Limit: 10})
	for i, h := range named.Hits[:6] {
		if h.Server != es["fs"] {
			t.Fatalf("filesystem file: hit %d is %s: %v", i, h.Server.Name, hitNames(named))
		}
	}
}

func TestToolsFollowTheirServers(t *testing.T) {
	x, es := directory()
	// Asked before each change, so that an answer kept from before it
	// would show (FindTools keeps its answers for one generation).
	if r := x.FindTools(mcpdir.Query{Text: "send email", Limit: 5}); !containsTool(r, "send_email") {
		t.Fatalf("the server's tool: %v", hitNames(r))
	}
	if r := x.FindTools(mcpdir.Query{Text: "geocode", Limit: 5}); len(r.Hits) == 0 {
		t.Fatal("no geocoding tool before the server is removed")
	}
	mail := *es["mail"]
	mail.Tools = mcpdir.CleanTools([]mcpdir.Tool{{Name: "send_message", Description: "Send a chat message"}})
	x.Upsert(&mail)
	if r := x.FindTools(mcpdir.Query{Text: "send email", Limit: 5}); containsTool(r, "send_email") {
		t.Fatalf("a tool the server no longer offers: %v", hitNames(r))
	}
	if r := x.FindTools(mcpdir.Query{Text: "chat message", Limit: 5}); !containsTool(r, "send_message") {
		t.Fatalf("its new tool: %v", hitNames(r))
	}
	x.Remove(es["maps"].ID)
	if r := x.FindTools(mcpdir.Query{Text: "geocode", Limit: 5}); len(r.Hits) != 0 {
		t.Fatalf("a removed server's tools: %v", hitNames(r))
	}
	// A server's live check's tools are what it offers.
	live := *es["files2"]
	live.Remotes = []mcpdir.Remote{{URL: "https://drive.example.com/mcp", Transport: mcpdir.TransportStreamableHTTP}}
	live.Live = &mcpdir.LiveCheck{URL: "https://drive.example.com/mcp", Status: mcpdir.LiveUp, Tools: mcpdir.CleanTools([]mcpdir.Tool{{Name: "share_link", Description: "Make a share link"}})}
	x.Upsert(&live)
	r := x.FindTools(mcpdir.Query{Text: "share link", Limit: 5})
	if !containsTool(r, "share_link") || wire.NewToolItem(r.Hits[0]).LiveStatus != "up" {
		t.Fatalf("live tools: %v", hitNames(r))
	}
}

func hitNames(r mcpdir.ToolResult) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, fmt.Sprintf("%s/%s", h.Server.Name, h.Tool.Name))
	}
	return out
}

func containsServer(r mcpdir.ToolResult, e *mcpdir.Entry) bool { return countServer(r, e) > 0 }

func countServer(r mcpdir.ToolResult, e *mcpdir.Entry) int {
	n := 0
	for _, h := range r.Hits {
		if h.Server == e {
			n++
		}
	}
	return n
}

func containsTool(r mcpdir.ToolResult, name string) bool {
	for _, h := range r.Hits {
		if h.Tool.Name == name {
			return true
		}
	}
	return false
}

// A server written again packed with no tools (packed.Entry.Plain) loses
// the tools it had, and one that has tools is indexed with them.
func TestPackedWrites(t *testing.T) {
	x, es := directory()
	maps := *es["maps"]
	maps.Tools = nil
	x.UpsertPacked(packed.Pack(&maps))
	if res := x.FindTools(mcpdir.Query{Text: "geocode an address", Limit: 5}); len(res.Hits) != 0 {
		t.Fatalf("geocode after the server dropped its tools: %v", hitNames(res))
	}
	x.UpsertPacked(packed.Pack(es["maps"]))
	if res := x.FindTools(mcpdir.Query{Text: "geocode an address", Limit: 5}); len(res.Hits) == 0 || res.Hits[0].Tool.Name != "geocode" {
		t.Fatalf("geocode after the server has it again: %v", hitNames(res))
	}
}

// TestAToolWeighsAsItsServer: two servers' tools that do the same rank as
// their servers would: one found down, or deprecated by its registry,
// after the other, whichever was indexed first.
func TestAToolWeighsAsItsServer(t *testing.T) {
	send := mcpdir.Tool{Name: "send_email", Description: "Send an email"}
	for _, flaw := range []string{"down", "deprecated"} {
		for _, flawedFirst := range []bool{true, false} {
			// Equal but for the flaw, the flawed server's name would win the tie.
			good, bad := server("mailer-b", "Email", send), server("mailer-a", "Email", send)
			switch flaw {
			case "down":
				bad.Remotes = []mcpdir.Remote{{URL: "https://mail.example.com/mcp", Transport: mcpdir.TransportStreamableHTTP}}
				bad.Live = &mcpdir.LiveCheck{URL: "https://mail.example.com/mcp", Status: mcpdir.LiveDown, CheckedAt: time.Now()}
			case "deprecated":
				bad.Extra = mcpdir.NewExtra(map[string]json.RawMessage{"registry_status": json.RawMessage(`"deprecated"`)})
			}
			x := toolsearch.New(search.New())
			if flawedFirst {
				x.Upsert(bad, good)
			} else {
				x.Upsert(good, bad)
			}
			r := x.FindTools(mcpdir.Query{Text: "send an email", Limit: 5})
			if len(r.Hits) != 2 || r.Hits[0].Server != good {
				t.Errorf("%s server indexed first=%v: %v, want mailer-b's send_email first", flaw, flawedFirst, hitNames(r))
			}
		}
	}
}
