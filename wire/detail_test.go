package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

// The detail carries the entry's install links, or why there are none.
func TestDetailInstall(t *testing.T) {
	e := &mcpdir.Entry{Name: "hosted", Remotes: []mcpdir.Remote{{Transport: "streamable-http", URL: "https://e.example/mcp"}}}
	in, ok := mcpdir.InstallFor(e)
	d := NewDetail(e)
	if !ok || d.Install == nil || d.Install.Cursor != in.CursorLink() || d.Install.VSCode != in.VSCodeLink() || d.InstallUnavailable != "" {
		t.Errorf("detail's install: %v %+v %q", ok, d.Install, d.InstallUnavailable)
	}
	// Nothing a client runs: no links, and no reason either.
	for _, e := range []mcpdir.Entry{
		{Name: "docs only"},
		{Name: "dotnet", Packages: []mcpdir.Package{{RegistryType: "nuget", Identifier: "Example.Server"}, {RegistryType: "npm"}}},
	} {
		d := NewDetail(&e)
		if d.Install != nil || d.InstallUnavailable != "" {
			t.Errorf("%s: detail's install %+v %q", e.Name, d.Install, d.InstallUnavailable)
		}
		if b, _ := json.Marshal(d); strings.Contains(string(b), `"install"`) {
			t.Errorf("%s: %s", e.Name, b)
		}
	}
	// Parsed as a registry sync or an import parses it: the record is
	// kept, without links, and the detail says why.
	line := `{"name":"io.example/evil","version":"1.0.0","packages":[{"registryType":"npm","identifier":"--call=touch x","version":"1.0.0","transport":{"type":"stdio"}}]}`
	pe, err := importer.ParseRecord([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(NewDetail(pe))
	if strings.Contains(string(b), `"install":`) || !strings.Contains(string(b), `"install_unavailable":"packages[0].identifier: not an npm package name`) {
		t.Errorf("%s", b)
	}
}
