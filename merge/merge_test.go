package merge_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
	"github.com/mcpdir/mcpdir/merge"
)

// rec is a record as a store holds it: normalized, with its id.
func rec(t testing.TB, source, name string, set func(*mcpdir.Entry)) *mcpdir.Entry {
	t.Helper()
	e := &mcpdir.Entry{Name: name, Brief: "About " + name, Source: source}
	if source == mcpdir.SourceRegistry {
		e.Origin = mcpdir.OfficialRegistry // a verifying registry's record
	}
	if set != nil {
		set(e)
	}
	if err := e.Normalize(); err != nil {
		t.Fatal(err)
	}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	return e
}

// corpus is a record of the package corpus, parsed as the importer does.
func corpus(t testing.TB, registry, name string) *mcpdir.Entry {
	t.Helper()
	page := "https://www.npmjs.com/package/" + name
	if registry == "pypi" {
		page = "https://pypi.org/project/" + name + "/"
	}
	line, _ := json.Marshal(map[string]any{"name": name, "brief": "Add your description here", "website_url": page, "registry": registry, "version": "1.0.0", "downloads": 10})
	e, err := importer.ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	e.Source = mcpdir.SourceImport
	e.ID = mcpdir.EntryID(e.NaturalKey())
	return e
}

func npm(id string) mcpdir.Package  { return mcpdir.Package{RegistryType: "npm", Identifier: id} }
func pypi(id string) mcpdir.Package { return mcpdir.Package{RegistryType: "pypi", Identifier: id} }

// partition is the groups as sets of member ids, canonical first, in a
// form tests compare: "canonical+other+…" sorted.
func partition(gs []merge.Group) []string {
	var out []string
	for _, g := range gs {
		var ids []string
		for _, m := range g.Members[1:] {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		out = append(out, strings.Join(append([]string{g.Members[0].ID}, ids...), "+"))
	}
	slices.Sort(out)
	return out
}

// together reports whether the entries are all in one group, and nothing
// else is with them.
func together(gs []merge.Group, es ...*mcpdir.Entry) bool {
	for _, g := range gs {
		if g.Members[0] == es[0] || slices.Contains(g.Members, es[0]) {
			if len(g.Members) != len(es) {
				return false
			}
			for _, e := range es {
				if !slices.Contains(g.Members, e) {
					return false
				}
			}
			return true
		}
	}
	return false
}

func groupOf(gs []merge.Group, e *mcpdir.Entry) merge.Group {
	for _, g := range gs {
		if slices.Contains(g.Members, e) {
			return g
		}
	}
	panic("not grouped")
}

func TestRegistryRecordAndItsPackage(t *testing.T) {
	reg := rec(t, mcpdir.SourceRegistry, "io.github.acme/weather", func(e *mcpdir.Entry) {
		e.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: "@acme/weather-mcp", Version: "2.0.0", Transport: "stdio"}}
		e.RepositoryURL = "https://github.com/acme/weather"
	})
	pkg := corpus(t, "npm", "@acme/weather-mcp")
	other := corpus(t, "npm", "weather-mcp")
	gs := merge.Groups([]*mcpdir.Entry{pkg, other, reg}, nil)
	if len(gs) != 2 || !together(gs, reg, pkg) {
		t.Fatalf("groups %v", partition(gs))
	}
	g := groupOf(gs, pkg)
	if g.ID != reg.ID || g.Members[0] != reg {
		t.Fatalf("canonical %s, want the registry record's %s", g.ID, reg.ID)
	}
	if len(g.Links) != 1 || g.Links[0].Evidence != "package npm:@acme/weather-mcp" {
		t.Fatalf("links %+v", g.Links)
	}
	m := merge.Merge(g)
	if m.ID != reg.ID || m.Name != reg.Name || m.Brief != reg.Brief {
		t.Fatalf("merged %+v", m)
	}
	if len(m.Packages) != 1 || m.Packages[0].Version != "2.0.0" || m.Popularity != 10 {
		t.Fatalf("packages %+v popularity %d", m.Packages, m.Popularity)
	}
	if want := []mcpdir.Alias{{ID: pkg.ID, Name: pkg.Name, Source: mcpdir.SourceImport, WebsiteURL: pkg.WebsiteURL}}; !reflect.DeepEqual(m.Aliases, want) {
		t.Fatalf("aliases %+v", m.Aliases)
	}
}

// The case: the starter's io.github.modelcontextprotocol/server-postgres
// and the corpus's @modelcontextprotocol/server-postgres.
func TestStarterRecordAndCorpusPackage(t *testing.T) {
	st := rec(t, "", "io.github.modelcontextprotocol/server-postgres", func(e *mcpdir.Entry) {
		e.WebsiteURL = "https://github.com/modelcontextprotocol/servers-archived/tree/main/src/postgres"
		e.RepositoryURL = "https://github.com/modelcontextprotocol/servers-archived"
		e.Packages = []mcpdir.Package{npm("@modelcontextprotocol/server-postgres")}
	})
	pkg := corpus(t, "npm", "@modelcontextprotocol/server-postgres")
	gs := merge.Groups([]*mcpdir.Entry{pkg, st}, nil)
	if len(gs) != 1 || gs[0].ID != st.ID {
		t.Fatalf("groups %v", partition(gs))
	}
}

// conflictsOf is Resolve's conflicts under the default rules, as
// "kind key: n entries".
func conflictsOf(es ...*mcpdir.Entry) (gs []merge.Group, cs []string) {
	gs, conflicts := merge.Resolve(es, merge.DefaultRules())
	for _, c := range conflicts {
		cs = append(cs, fmt.Sprintf("%s %s: %d", c.Kind, c.Key, len(c.Entries)))
	}
	return gs, cs
}

// The npm scope @x/y beside io.github.x/y is a guess: a conflict for an
// admin, never a join.
func TestScopeGuess(t *testing.T) {
	remote := rec(t, mcpdir.SourceRegistry, "io.github.Acme/Tool", func(e *mcpdir.Entry) {
		e.Remotes = []mcpdir.Remote{{URL: "https://mcp.acme.example/mcp", Transport: "streamable-http"}}
	})
	pkg := corpus(t, "npm", "@acme/tool")
	// A record that declares its npm package joins it, and guesses nothing.
	declared := rec(t, mcpdir.SourceRegistry, "io.github.beta/tool", func(e *mcpdir.Entry) { e.Packages = []mcpdir.Package{npm("beta-tool")} })
	betaScoped := corpus(t, "npm", "@beta/tool")
	betaDeclared := corpus(t, "npm", "beta-tool")
	gs, cs := conflictsOf(remote, pkg, declared, betaScoped, betaDeclared)
	if len(gs) != 4 || !together(gs, declared, betaDeclared) || !together(gs, remote) || !together(gs, pkg) {
		t.Fatalf("groups %v", partition(gs))
	}
	if !slices.Equal(cs, []string{"scope npm:@acme/tool: 2"}) {
		t.Fatalf("conflicts %v", cs)
	}
}

// A repository is a hint: two records sharing one are a conflict, three or
// more (a monorepo), or one pointing into a folder of it, nothing.
func TestRepositoryIsAHint(t *testing.T) {
	a := rec(t, mcpdir.SourceImport, "foo-mcp", func(e *mcpdir.Entry) {
		e.RepositoryURL = "https://github.com/Foo/Bar.git"
		e.Packages = []mcpdir.Package{npm("foo-mcp")}
	})
	b := rec(t, mcpdir.SourceImport, "foo_mcp", func(e *mcpdir.Entry) {
		e.WebsiteURL = "https://github.com/foo/bar/"
		e.Packages = []mcpdir.Package{pypi("foo_mcp")}
	})
	if gs, cs := conflictsOf(a, b); len(gs) != 2 || !slices.Equal(cs, []string{"repository github.com/foo/bar: 2"}) {
		t.Fatalf("groups %v conflicts %v", partition(gs), cs)
	}
	var es []*mcpdir.Entry
	for _, n := range []string{"a", "b", "c"} {
		es = append(es, rec(t, mcpdir.SourceImport, "mono-"+n, func(e *mcpdir.Entry) {
			e.RepositoryURL = "https://github.com/org/servers"
			e.Packages = []mcpdir.Package{npm("mono-" + n)}
		}))
	}
	if gs, cs := conflictsOf(es...); len(gs) != 3 || len(cs) != 0 {
		t.Fatalf("monorepo: %v %v", partition(gs), cs)
	}
	x := rec(t, mcpdir.SourceImport, "x-mcp", func(e *mcpdir.Entry) { e.RepositoryURL = "https://github.com/org/mono" })
	y := rec(t, mcpdir.SourceImport, "y-mcp", func(e *mcpdir.Entry) { e.RepositoryURL = "https://github.com/org/mono" })
	z := rec(t, "", "io.github.org/z", func(e *mcpdir.Entry) {
		e.WebsiteURL = "https://github.com/org/mono/tree/main/src/z"
		e.RepositoryURL = "https://github.com/org/mono"
	})
	w := rec(t, mcpdir.SourceImport, "z-mcp", func(e *mcpdir.Entry) { e.RepositoryURL = "https://github.com/Org/mono/tree/master/src/z/" })
	// The folder says monorepo; the same folder is a hint.
	if gs, cs := conflictsOf(x, y, z, w); len(gs) != 4 || !slices.Equal(cs, []string{"repository github.com/org/mono/src/z: 2"}) {
		t.Fatalf("monorepo with a folder: %v %v", partition(gs), cs)
	}
}

func TestTwoRegistryNamesNeverMerge(t *testing.T) {
	set := func(e *mcpdir.Entry) {
		e.Packages = []mcpdir.Package{npm("shared-mcp")}
		e.RepositoryURL = "https://github.com/acme/shared"
		e.WebsiteURL = "https://acme.example"
	}
	r1 := rec(t, mcpdir.SourceRegistry, "io.github.acme/shared", set)
	r2 := rec(t, mcpdir.SourceRegistry, "io.github.fork/shared", set)
	pkg := corpus(t, "npm", "shared-mcp")
	gs := merge.Groups([]*mcpdir.Entry{r1, r2, pkg}, nil)
	// The package is both names': it cannot say which one the corpus's
	// record is, so it joins neither.
	if len(gs) != 3 {
		t.Fatalf("groups %v", partition(gs))
	}
	// A third record of one of the names: the name decides.
	again := rec(t, "", "io.github.acme/shared", set)
	gs = merge.Groups([]*mcpdir.Entry{r1, r2, pkg, again}, nil)
	if len(gs) != 3 || !together(gs, r1, again) {
		t.Fatalf("groups %v", partition(gs))
	}
}

// Two named servers never join, whatever they share: not a repository, not
// a package that both claim (which then joins neither).
func TestNamedServersShareRepository(t *testing.T) {
	a := rec(t, "", "io.github.neo/cypher", func(e *mcpdir.Entry) {
		e.RepositoryURL = "https://github.com/neo/mcp"
		e.Packages = []mcpdir.Package{pypi("mcp-neo-cypher")}
	})
	b := rec(t, "", "io.github.neo/memory", func(e *mcpdir.Entry) {
		e.RepositoryURL = "https://github.com/neo/mcp"
		e.Packages = []mcpdir.Package{pypi("mcp-neo-memory")}
	})
	renamed := rec(t, mcpdir.SourceRegistry, "io.github.neo4j/cypher", func(e *mcpdir.Entry) { e.Packages = []mcpdir.Package{pypi("mcp_neo_cypher")} })
	pkg := corpus(t, "pypi", "mcp-neo-cypher")
	gs, cs := conflictsOf(a, b, renamed, pkg)
	if len(gs) != 4 {
		t.Fatalf("groups %v", partition(gs))
	}
	if !slices.Equal(cs, []string{"package pypi:mcp-neo-cypher: 3", "repository github.com/neo/mcp: 2"}) {
		t.Fatalf("conflicts %v", cs)
	}
	// An admin's join makes them one.
	rules := merge.DefaultRules()
	rules.Joins = merge.Splits{}
	rules.Joins.Add(a.ID, renamed.ID)
	gs, _ = merge.Resolve([]*mcpdir.Entry{a, b, renamed, pkg}, rules)
	if len(gs) != 3 || !together(gs, a, renamed) {
		t.Fatalf("joined: %v", partition(gs))
	}
}

// The review's takeover: a record in the attacker's namespace that lists
// GitHub's image, repository and website, and a remote of its own. Whether
// from the official registry, another registry, a publisher or an import,
// it stays an entry of its own; GitHub's keeps its name, remotes, packages
// and id.
func TestNoTakeover(t *testing.T) {
	github := func() *mcpdir.Entry {
		return rec(t, "", "io.github.github/github-mcp-server", func(e *mcpdir.Entry) {
			e.WebsiteURL, e.RepositoryURL = "https://github.com/github/github-mcp-server", "https://github.com/github/github-mcp-server"
			e.Packages = []mcpdir.Package{{RegistryType: "oci", Identifier: "ghcr.io/github/github-mcp-server"}}
			e.Remotes = []mcpdir.Remote{{URL: "https://api.githubcopilot.com/mcp/", Transport: "streamable-http"}}
			e.IsOfficial, e.Popularity = true, 24000
			e.CreatedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		})
	}
	hostile := func(e *mcpdir.Entry) {
		e.WebsiteURL, e.RepositoryURL = "https://github.com/github/github-mcp-server", "https://github.com/github/github-mcp-server"
		e.Packages = []mcpdir.Package{{RegistryType: "oci", Identifier: "ghcr.io/github/github-mcp-server:latest"}}
		e.Remotes = []mcpdir.Remote{{URL: "https://evil.example/mcp", Transport: "streamable-http"}}
		e.Popularity = 1 << 40
	}
	attackers := map[string]*mcpdir.Entry{
		"official registry, own name": rec(t, mcpdir.SourceRegistry, "io.github.attacker/gh", hostile),
		"other registry, own name":    rec(t, mcpdir.SourceRegistry, "io.github.attacker/gh", func(e *mcpdir.Entry) { hostile(e); e.Origin = "http://127.0.0.1:9" }),
		"other registry, GitHub's name": rec(t, mcpdir.SourceRegistry, "io.github.github/github-mcp-server", func(e *mcpdir.Entry) {
			hostile(e)
			e.Origin = "http://127.0.0.1:9"
		}),
		"publisher, GitHub's name": rec(t, mcpdir.SourceRegistry, "io.github.github/github-mcp-server", func(e *mcpdir.Entry) {
			hostile(e)
			e.Origin = mcpdir.OriginPublish
		}),
		"import, GitHub's name": rec(t, mcpdir.SourceImport, "io.github.github/github-mcp-server", func(e *mcpdir.Entry) { hostile(e); e.WebsiteURL = "https://evil.example" }),
	}
	for what, bad := range attackers {
		gh := github()
		gs, conflicts := merge.Resolve([]*mcpdir.Entry{bad, gh}, merge.DefaultRules())
		if len(gs) != 2 {
			t.Errorf("%s: joined GitHub's entry: %v", what, partition(gs))
			continue
		}
		m := merge.Merge(groupOf(gs, gh))
		if m.ID != gh.ID || m.Name != gh.Name || len(m.Remotes) != 1 || m.Remotes[0].URL != gh.Remotes[0].URL || m.Popularity != 24000 {
			t.Errorf("%s: GitHub's entry became %+v", what, m)
		}
		if len(conflicts) == 0 {
			t.Errorf("%s: no conflict listed for an admin", what)
		}
	}
	// An import's record of GitHub's own image joins GitHub's entry (it is
	// the package's record) and gives it nothing of its identity.
	gh := github()
	imp := rec(t, mcpdir.SourceImport, "github-mcp-server", func(e *mcpdir.Entry) { hostile(e); e.WebsiteURL = "" })
	gs := merge.Groups([]*mcpdir.Entry{imp, gh}, nil)
	if len(gs) != 1 {
		t.Fatalf("the image's record: %v", partition(gs))
	}
	if m := merge.Merge(gs[0]); m.ID != gh.ID || m.Name != gh.Name || len(m.Remotes) != 1 || m.Remotes[0].URL != gh.Remotes[0].URL ||
		len(m.Packages) != 1 || m.Packages[0].Identifier != "ghcr.io/github/github-mcp-server" {
		t.Fatalf("GitHub's entry became %+v", m)
	}
}

// A record of another source adds to an entry only what it may: downloads,
// a description; never packages, remotes, tools or marks.
func TestOwnerGivesIdentity(t *testing.T) {
	owner := rec(t, mcpdir.SourceRegistry, "io.github.acme/tool", func(e *mcpdir.Entry) {
		e.Packages = []mcpdir.Package{npm("@acme/tool")}
		e.Tools = []mcpdir.Tool{{Name: "forecast"}}
		e.UpdatedAt = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	})
	pkg := corpus(t, "npm", "@acme/tool")
	pkg.Brief = "Forecasts for agents, by Acme, with alerts and maps"
	pkg.Packages = append(pkg.Packages, npm("evil-extra"))
	pkg.Remotes = []mcpdir.Remote{{URL: "https://evil.example/mcp"}}
	pkg.Tools = []mcpdir.Tool{{Name: "exfiltrate"}}
	pkg.IsOfficial, pkg.IsVerified, pkg.Popularity = true, true, 5000
	gs := merge.Groups([]*mcpdir.Entry{pkg, owner}, nil)
	if len(gs) != 1 {
		t.Fatalf("groups %v", partition(gs))
	}
	m := merge.Merge(gs[0])
	if len(m.Packages) != 1 || len(m.Remotes) != 0 || len(m.Tools) != 1 || m.IsOfficial || m.IsVerified {
		t.Fatalf("identity from the import: %+v", m)
	}
	if m.Popularity != 5000 || m.Brief != pkg.Brief || m.Name != owner.Name {
		t.Fatalf("what the import may give: %+v", m)
	}
	var got []string
	for _, p := range m.Provenance {
		got = append(got, p.Label+": "+strings.Join(p.Fields, ", "))
	}
	want := []string{"the MCP Registry: name, packages, tools", "an import: brief, website_url, version, popularity"}
	if !slices.Equal(got, want) || !m.Provenance[0].At.Equal(owner.UpdatedAt) {
		t.Fatalf("provenance %q, want %q", got, want)
	}
}

func TestSplits(t *testing.T) {
	a := rec(t, mcpdir.SourceRegistry, "io.github.x/y", func(e *mcpdir.Entry) { e.Packages = []mcpdir.Package{npm("@x/y")} })
	b := corpus(t, "npm", "@x/y")
	c := rec(t, mcpdir.SourceAdmin, "X tool", func(e *mcpdir.Entry) { e.Packages = []mcpdir.Package{npm("@x/y")} })
	all := []*mcpdir.Entry{a, b, c}
	if gs := merge.Groups(all, nil); len(gs) != 1 {
		t.Fatalf("groups %v", partition(gs))
	}
	s := merge.Splits{}
	s.Add(a.ID, b.ID)
	if !s.Has(b.ID, a.ID) || s.Has(a.ID, c.ID) {
		t.Fatal("Has")
	}
	// A/B split: C joins the better ranked, A; B stays alone.
	gs := merge.Groups(all, s)
	if len(gs) != 2 || !together(gs, a, c) || !together(gs, b) {
		t.Fatalf("split A/B: %v", partition(gs))
	}
	// A/C split: B goes with A (the registry record ranks before the
	// admin's), never A with C.
	s = merge.Splits{}
	s.Add(c.ID, a.ID)
	for range 10 {
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		gs = merge.Groups(all, s)
		if len(gs) != 2 || !together(gs, a, b) || !together(gs, c) {
			t.Fatalf("split A/C: %v", partition(gs))
		}
	}
	// Splitting each pair: three entries.
	s.Add(a.ID, b.ID)
	s.Add(b.ID, c.ID)
	if gs := merge.Groups(all, s); len(gs) != 3 {
		t.Fatalf("all split: %v", partition(gs))
	}
}

func TestCanonical(t *testing.T) {
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	set := func(e *mcpdir.Entry) { e.Packages = []mcpdir.Package{pypi("Shared.Pkg")} }
	imp := rec(t, mcpdir.SourceImport, "shared-pkg", set)
	oldImp := rec(t, mcpdir.SourceImport, "Shared_Pkg", func(e *mcpdir.Entry) { set(e); e.CreatedAt = old })
	st := rec(t, "", "Shared", set)
	admin := rec(t, mcpdir.SourceAdmin, "Shared (admin)", set)
	reg := rec(t, mcpdir.SourceRegistry, "io.github.shared/pkg", set)
	// The owner is the verified registry record; the id stays the oldest
	// stored record's, which held the entry first.
	want := []*mcpdir.Entry{reg, admin, st, oldImp, imp}
	for range 10 {
		in := slices.Clone(want)
		rand.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		gs := merge.Groups(in, nil)
		if len(gs) != 1 || !slices.Equal(gs[0].Members, want) || gs[0].ID != oldImp.ID || gs[0].Owners != 3 {
			var names []string
			for _, m := range gs[0].Members {
				names = append(names, m.Name+"/"+m.Source)
			}
			t.Fatalf("rank %v, id %s", names, gs[0].ID)
		}
		if m := merge.Merge(gs[0]); m.ID != oldImp.ID || m.Name != reg.Name || !m.CreatedAt.Equal(old) {
			t.Fatalf("merged %+v", m)
		}
	}
}

func TestMergedFacts(t *testing.T) {
	a := rec(t, mcpdir.SourceRegistry, "io.github.acme/all", func(e *mcpdir.Entry) {
		e.Brief = "Add your description here"
		e.Tags = []string{"Weather", "api"}
		e.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: "@Acme/All", Transport: "stdio"}, {RegistryType: "docker", Identifier: "docker.io/acme/all:1.0"}, {RegistryType: "unknown", Identifier: "@acme/all"}}
		e.Remotes = []mcpdir.Remote{{URL: "https://MCP.acme.example/mcp/"}, {URL: "https://mcp.acme.example/mcp", Transport: "streamable-http"}}
		e.Tools = []mcpdir.Tool{{Name: "forecast"}}
		e.Popularity = 5
		e.UpdatedAt = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	})
	b := rec(t, mcpdir.SourceImport, "@acme/all", func(e *mcpdir.Entry) {
		e.Brief = "Weather forecasts for agents"
		e.Tags = []string{"weather", "forecast"}
		e.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: "@acme/all@1.2.3", Version: "1.2.3"}, {RegistryType: "oci", Identifier: "acme/all"}, pypi("acme-all")}
		e.Remotes = []mcpdir.Remote{{URL: "https://mcp.acme.example/mcp", Transport: "streamable-http"}, {URL: "https://sse.acme.example/sse", Transport: "sse"}}
		e.Tools = []mcpdir.Tool{{Name: "forecast", Description: "Forecast"}, {Name: "alerts"}}
		e.Popularity = 900
		e.IsVerified = true
		e.CreatedAt = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		e.UpdatedAt = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	})
	before, _ := json.Marshal([]*mcpdir.Entry{a, b})
	gs := merge.Groups([]*mcpdir.Entry{b, a}, nil)
	if len(gs) != 1 {
		t.Fatalf("groups %v", partition(gs))
	}
	m := merge.Merge(gs[0])
	if after, _ := json.Marshal([]*mcpdir.Entry{a, b}); string(after) != string(before) {
		t.Fatal("Merge changed its records")
	}
	// Identity is the owner's alone: its packages (deduplicated), remotes
	// and tools; none of the import's.
	wantPkgs := []mcpdir.Package{{RegistryType: "npm", Identifier: "@Acme/All", Transport: "stdio"}, {RegistryType: "docker", Identifier: "docker.io/acme/all:1.0"}}
	if !reflect.DeepEqual(m.Packages, wantPkgs) {
		t.Errorf("packages %+v", m.Packages)
	}
	if want := []mcpdir.Remote{{URL: "https://MCP.acme.example/mcp/", Transport: "streamable-http"}}; !reflect.DeepEqual(m.Remotes, want) {
		t.Errorf("remotes %+v", m.Remotes)
	}
	if want := []mcpdir.Tool{{Name: "forecast"}}; !reflect.DeepEqual(m.Tools, want) {
		t.Errorf("tools %+v", m.Tools)
	}
	if !slices.Equal(m.Tags, []string{"Weather", "api", "forecast"}) {
		t.Errorf("tags %v", m.Tags)
	}
	// The id is the import's, which was stored first; the name the owner's.
	if m.Brief != b.Brief || m.Name != a.Name || m.ID != b.ID || m.Source != mcpdir.SourceRegistry {
		t.Errorf("brief %q name %q id %s", m.Brief, m.Name, m.ID)
	}
	if m.Popularity != 900 || m.IsVerified || m.IsOfficial || !m.CreatedAt.Equal(b.CreatedAt) || !m.UpdatedAt.Equal(a.UpdatedAt) {
		t.Errorf("popularity %d verified %v official %v times %v %v", m.Popularity, m.IsVerified, m.IsOfficial, m.CreatedAt, m.UpdatedAt)
	}
	if !slices.Equal(m.Transports, []string{"stdio", "streamable-http"}) {
		t.Errorf("transports %v", m.Transports)
	}
}

// world is a random directory in which records collide often: registry
// names shared by several records, packages declared by several, shared
// repositories, and some splits.
func world(t testing.TB, seed uint64, n int) ([]*mcpdir.Entry, merge.Splits) {
	r := rand.New(rand.NewPCG(seed, 1))
	var es []*mcpdir.Entry
	ids := map[string]bool{}
	sources := []string{mcpdir.SourceRegistry, mcpdir.SourceImport, mcpdir.SourceImport, "", mcpdir.SourceAdmin}
	for i := range n {
		src := sources[r.IntN(len(sources))]
		owner, server := r.IntN(n/20+1), r.IntN(4)
		name := fmt.Sprintf("pkg-%d-%d", i, r.IntN(1000))
		if src == mcpdir.SourceRegistry || r.IntN(4) == 0 {
			name = fmt.Sprintf("io.github.o%d/s%d", owner, server)
		}
		e := rec(t, src, name, func(e *mcpdir.Entry) {
			if src != mcpdir.SourceRegistry {
				e.WebsiteURL = fmt.Sprintf("https://example.com/%d", i)
			}
			switch r.IntN(5) {
			case 0:
				e.Packages = append(e.Packages, npm(fmt.Sprintf("@o%d/s%d", owner, server)))
			case 1:
				e.Packages = append(e.Packages, pypi(fmt.Sprintf("P_%d", r.IntN(n/3+1))))
			case 2:
				e.WebsiteURL = fmt.Sprintf("https://pypi.org/project/p-%d/", r.IntN(n/3+1))
			}
			if r.IntN(3) == 0 {
				e.RepositoryURL = fmt.Sprintf("https://github.com/o%d/r%d", owner, r.IntN(3))
			}
			if r.IntN(10) == 0 {
				e.WebsiteURL = fmt.Sprintf("https://github.com/o%d/r%d/tree/main/x", owner, r.IntN(3))
			}
			e.Tools = []mcpdir.Tool{{Name: fmt.Sprint("t", r.IntN(3))}}
			e.Popularity = int64(r.IntN(100))
		})
		if !ids[e.ID] {
			ids[e.ID] = true
			es = append(es, e) // a store holds one record per id
		}
	}
	s := merge.Splits{}
	for range n / 20 {
		s.Add(es[r.IntN(len(es))].ID, es[r.IntN(len(es))].ID)
	}
	return es, s
}

// check holds what every grouping must: two registry names or a split pair
// never share a group, and the links span each group.
func check(t *testing.T, gs []merge.Group, s merge.Splits) {
	t.Helper()
	for _, g := range gs {
		regs := map[string]bool{}
		for i, m := range g.Members {
			if m.Source == mcpdir.SourceRegistry {
				regs[strings.ToLower(m.Name)] = true
			}
			for _, o := range g.Members[i+1:] {
				if s.Has(m.ID, o.ID) {
					t.Fatalf("split pair %s %s in group %s", m.ID, o.ID, g.ID)
				}
			}
		}
		if len(regs) > 1 {
			t.Fatalf("group %s holds registry names %v", g.ID, regs)
		}
		if len(g.Links) != len(g.Members)-1 || g.ID != g.Members[0].ID {
			t.Fatalf("group %s: %d members, %d links", g.ID, len(g.Members), len(g.Links))
		}
	}
}

func TestOrderIndependence(t *testing.T) {
	for seed := range uint64(5) {
		es, s := world(t, seed, 2000)
		gs := merge.Groups(es, s)
		check(t, gs, s)
		if len(gs) == len(es) || len(gs) < len(es)/10 {
			t.Fatalf("seed %d: %d groups of %d records: the world does not exercise merging", seed, len(gs), len(es))
		}
		want := partition(gs)
		for range 5 {
			in := slices.Clone(es)
			rand.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			if got := partition(merge.Groups(in, s)); !slices.Equal(got, want) {
				t.Fatalf("seed %d: another order groups otherwise", seed)
			}
		}
	}
}

func TestIdempotent(t *testing.T) {
	for seed := range uint64(5) {
		idempotent(t, seed)
	}
}

func idempotent(t *testing.T, seed uint64) {
	es, s := world(t, seed, 2000)
	gs := merge.Groups(es, s)
	var merged []*mcpdir.Entry
	for _, g := range gs {
		m := merge.Merge(g)
		ids := map[string]bool{}
		for _, o := range g.Members {
			ids[o.ID] = true
		}
		if len(m.Aliases) != len(ids)-1 {
			t.Fatalf("group %s: %d aliases, %d ids", g.ID, len(m.Aliases), len(ids))
		}
		merged = append(merged, m)
	}
	again := merge.Groups(merged, s)
	if len(again) != len(merged) {
		t.Fatalf("merged entries grouped again: %d groups of %d", len(again), len(merged))
	}
	for i, g := range again {
		if m := merge.Merge(g); !reflect.DeepEqual(m, merged[i]) {
			a, _ := json.Marshal(m)
			b, _ := json.Marshal(merged[i])
			t.Fatalf("merge of a merged entry changed it:\n%s\n%s", a, b)
		}
	}
	// The merged entries beside their records: the same groups, since a
	// merged entry carries its members' ids.
	both := merge.Groups(append(slices.Clone(merged), es...), s)
	if len(both) != len(gs) {
		t.Fatalf("%d groups with the merged entries, %d without", len(both), len(gs))
	}
	for i := range both {
		if both[i].ID != gs[i].ID || len(both[i].Members) != len(gs[i].Members)+1 {
			t.Fatalf("group %s: %d members with its merged entry, %d without", gs[i].ID, len(both[i].Members), len(gs[i].Members))
		}
	}
}

func TestPackageKey(t *testing.T) {
	for _, tc := range []struct{ typ, id, want string }{
		{"npm", "@Acme/Tool", "npm:@acme/tool"},
		{"npm", "@acme/tool@1.2.3", "npm:@acme/tool"},
		{"npm", "tool@latest", "npm:tool"},
		{"PyPI", "Mcp_Server.Fetch", "pypi:mcp-server-fetch"},
		{"pypi", "mcp--server__fetch", "pypi:mcp-server-fetch"},
		{"docker", "docker.io/library/postgres:16", "oci:postgres"},
		{"oci", "ghcr.io/github/github-mcp-server:v1@sha256:abc", "oci:ghcr.io/github/github-mcp-server"},
		{"oci", "localhost:5000/img", "oci:localhost:5000/img"},
		{"unknown", "@elastic/x", ""},
		{"", "x", ""},
		{"npm", " ", ""},
	} {
		if got := merge.PackageKey(tc.typ, tc.id); got != tc.want {
			t.Errorf("PackageKey(%q, %q) = %q, want %q", tc.typ, tc.id, got, tc.want)
		}
	}
}

// A website that is a package's page links the record to that package;
// other websites link nothing.
func TestPackagePages(t *testing.T) {
	for _, tc := range []struct {
		page string
		pkg  mcpdir.Package
		same bool
	}{
		{"https://www.npmjs.com/package/@acme/tool", npm("@Acme/Tool"), true},
		{"https://npmjs.com/package/%40acme%2Ftool/v/1.0.0", npm("@acme/tool"), true},
		{"https://pypi.org/project/Acme_Tool/1.0/", pypi("acme-tool"), true},
		{"https://pypi.org/project/acme-tool/", npm("acme-tool"), false},
		{"https://example.com/package/acme-tool", npm("acme-tool"), false},
	} {
		a := rec(t, mcpdir.SourceImport, "a", func(e *mcpdir.Entry) { e.WebsiteURL = tc.page })
		b := rec(t, mcpdir.SourceImport, "b", func(e *mcpdir.Entry) { e.Packages = []mcpdir.Package{tc.pkg} })
		if gs := merge.Groups([]*mcpdir.Entry{a, b}, nil); (len(gs) == 1) != tc.same {
			t.Errorf("%s and %+v: %d groups", tc.page, tc.pkg, len(gs))
		}
	}
}

func TestRepositoryURLs(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://github.com/Acme/Tool", "https://github.com/acme/tool.git", true},
		{"https://github.com/acme/tool/", "http://www.github.com/acme/tool", true},
		{"https://github.com/acme/tool", "https://github.com/acme/tool-2", false},
		{"https://gitlab.com/group/sub/tool", "https://gitlab.com/group/sub/tool.git", true},
		{"https://gitlab.com/group/sub/tool", "https://gitlab.com/group/sub", false},
	} {
		a := rec(t, mcpdir.SourceImport, "a", func(e *mcpdir.Entry) { e.RepositoryURL = tc.a })
		b := rec(t, mcpdir.SourceImport, "b", func(e *mcpdir.Entry) { e.RepositoryURL = tc.b })
		if gs, cs := conflictsOf(a, b); len(gs) != 2 || (len(cs) == 1) != tc.same {
			t.Errorf("%s and %s: %d groups, conflicts %v", tc.a, tc.b, len(gs), cs)
		}
	}
	// A home page is not a repository, but a github.com website is.
	a := rec(t, mcpdir.SourceImport, "a", func(e *mcpdir.Entry) { e.WebsiteURL = "https://acme.example/tool" })
	b := rec(t, mcpdir.SourceImport, "b", func(e *mcpdir.Entry) { e.RepositoryURL = "https://acme.example/tool" })
	if _, cs := conflictsOf(a, b); len(cs) != 0 {
		t.Error("a home page taken for a repository")
	}
}

// Two versions of a registry record (one id): one group, the newer first.
func TestSameID(t *testing.T) {
	old := rec(t, mcpdir.SourceRegistry, "io.github.a/b", func(e *mcpdir.Entry) { e.Version = "1"; e.UpdatedAt = time.Unix(1, 0) })
	nu := rec(t, mcpdir.SourceRegistry, "io.github.a/b", func(e *mcpdir.Entry) { e.Version = "2"; e.UpdatedAt = time.Unix(2, 0) })
	for _, in := range [][]*mcpdir.Entry{{old, nu}, {nu, old}} {
		gs := merge.Groups(in, nil)
		if len(gs) != 1 || gs[0].Members[0] != nu {
			t.Fatalf("groups %v", partition(gs))
		}
		if m := merge.Merge(gs[0]); m.Version != "2" || len(m.Aliases) != 0 {
			t.Fatalf("merged %+v", m)
		}
	}
}

func TestMergeEmpty(t *testing.T) {
	if merge.Merge(merge.Group{}) != nil || len(merge.Groups(nil, nil)) != 0 {
		t.Fatal("empty")
	}
}

// BenchmarkGroups groups a random directory where records collide often
// (see world), at the size of a large directory and ten times that.
func BenchmarkGroups(b *testing.B) {
	for _, n := range []int{30_000, 300_000} {
		es, s := world(b, 1, n)
		b.Run(fmt.Sprintf("records=%d", len(es)), func(b *testing.B) {
			for b.Loop() {
				merge.Groups(es, s)
			}
		})
	}
}
