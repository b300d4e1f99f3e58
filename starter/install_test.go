package starter

import (
	"reflect"
	"slices"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// Every starter entry can be installed as it says, and those that need
// configuration say so: PostgreSQL's connection string, GitHub's token.
func TestInstallsAreCompleteAndSafe(t *testing.T) {
	byName := map[string]*mcpdir.Entry{}
	for _, e := range entries(t) {
		byName[e.Name] = e
		if err := mcpdir.CheckInstall(e); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
	pg, ok := mcpdir.InstallFor(byName["io.github.modelcontextprotocol/server-postgres"])
	if !ok || !reflect.DeepEqual(pg.Server.Args, []string{"-y", "--", "@modelcontextprotocol/server-postgres", "<your connection_string>"}) {
		t.Errorf("server-postgres: %+v", pg.Server)
	}
	if len(pg.Inputs) != 1 || pg.Inputs[0].ID != "connection_string" || !pg.Inputs[0].Password {
		t.Errorf("server-postgres's VS Code inputs: %+v", pg.Inputs)
	}
	gh := byName["io.github.github/github-mcp-server"]
	i := slices.IndexFunc(gh.Packages, func(p mcpdir.Package) bool { return p.RegistryType == "oci" })
	if i < 0 {
		t.Fatal("github-mcp-server has no OCI package")
	}
	local := *gh
	local.Remotes = nil
	in, ok := mcpdir.InstallFor(&local)
	want := []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"}
	if !ok || !reflect.DeepEqual(in.Server.Args, want) || in.Server.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "<your GITHUB_PERSONAL_ACCESS_TOKEN>" {
		t.Errorf("github-mcp-server's image: %+v", in.Server)
	}
	if v := gh.Packages[i].EnvironmentVariables; len(v) != 1 || !v[0].IsSecret || !v[0].IsRequired {
		t.Errorf("github-mcp-server's token: %+v", v)
	}
	brave, _ := mcpdir.InstallFor(byName["io.github.brave/brave-search-mcp-server"])
	if brave.Server.Env["BRAVE_API_KEY"] != "<your BRAVE_API_KEY>" {
		t.Errorf("brave-search-mcp-server: %+v", brave.Server)
	}
}
