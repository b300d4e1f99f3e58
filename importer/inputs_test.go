package importer

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// The schema's own examples (generic-server-json.md), in server.json's
// current camelCase names: what each client's configuration carries.
const (
	braveSearch = `{"name":"io.modelcontextprotocol/brave-search","description":"MCP server for Brave Search API integration","version":"1.0.2",
	 "packages":[{"registryType":"npm","registryBaseUrl":"https://registry.npmjs.org","identifier":"@modelcontextprotocol/server-brave-search","version":"1.0.2","transport":{"type":"stdio"},
	  "environmentVariables":[{"name":"BRAVE_API_KEY","description":"Brave Search API Key","isRequired":true,"isSecret":true}]}]}`
	filesystem = `{"name":"io.github.modelcontextprotocol/filesystem","description":"Node.js server implementing Model Context Protocol (MCP) for filesystem operations.","version":"1.0.2",
	 "packages":[{"registryType":"oci","identifier":"mcp/filesystem","version":"1.0.2","transport":{"type":"stdio"},
	  "runtimeArguments":[{"type":"named","description":"Mount a volume into the container","name":"--mount","value":"type=bind,src={source_path},dst={target_path}","isRequired":true,"isRepeated":true,
	   "variables":{"source_path":{"description":"Source path on host","format":"filepath","isRequired":true},"target_path":{"description":"Path to mount in the container. It should be rooted in ` + "`/project`" + ` directory.","isRequired":true,"default":"/project"}}}],
	  "packageArguments":[{"type":"positional","valueHint":"target_dir","value":"/project"}],
	  "environmentVariables":[{"name":"LOG_LEVEL","description":"Logging level (debug, info, warn, error)","default":"info"}]}]}`
	databaseManager = `{"name":"io.github.example/database-manager","description":"MCP server for database operations","version":"3.1.0",
	 "packages":[{"registryType":"oci","identifier":"example/database-manager-mcp","version":"3.1.0","transport":{"type":"stdio"},
	  "runtimeArguments":[{"type":"named","name":"--network","value":"host","description":"Use host network mode"},
	   {"type":"named","name":"-e","value":"DB_TYPE={db_type}","description":"Database type to connect to","isRepeated":true,"variables":{"db_type":{"description":"Type of database","choices":["postgres","mysql","mongodb","redis"],"isRequired":true}}}],
	  "packageArguments":[{"type":"named","name":"--host","description":"Database host","default":"localhost","isRequired":true},
	   {"type":"named","name":"--port","description":"Database port","format":"number"},
	   {"type":"positional","valueHint":"database_name","description":"Name of the database to connect to","isRequired":true}],
	  "environmentVariables":[{"name":"DB_USERNAME","description":"Database username","isRequired":true},
	   {"name":"DB_PASSWORD","description":"Database password","isRequired":true,"isSecret":true},
	   {"name":"SSL_MODE","description":"SSL connection mode","default":"prefer","choices":["disable","prefer","require"]}]}]}`
	hybrid = `{"name":"io.modelcontextprotocol.anonymous/hybrid-mcp","description":"MCP server available as both local package and remote service","version":"1.5.0",
	 "remotes":[{"type":"sse","url":"https://mcp.anonymous.modelcontextprotocol.io/sse",
	  "headers":[{"name":"X-API-Key","description":"API key for authentication","isRequired":true,"isSecret":true},
	   {"name":"X-Region","description":"Service region","default":"us-east-1","choices":["us-east-1","eu-west-1","ap-southeast-1"]}]},
	  {"type":"streamable-http","url":"https://mcp.anonymous.modelcontextprotocol.io/http"}]}`
)

func TestInstallCarriesInputs(t *testing.T) {
	for _, tc := range []struct {
		what, record          string
		server, vscode        string // Server's and VS Code's configuration, as JSON
		inputs, claude        string
		fieldsInDetailPackage []string
	}{
		{
			what:   "brave search: a required secret",
			record: braveSearch,
			server: `{"command":"npx","args":["-y","--","@modelcontextprotocol/server-brave-search@1.0.2"],"env":{"BRAVE_API_KEY":"<your BRAVE_API_KEY>"}}`,
			vscode: `{"type":"stdio","command":"npx","args":["-y","--","@modelcontextprotocol/server-brave-search@1.0.2"],"env":{"BRAVE_API_KEY":"${input:BRAVE_API_KEY}"}}`,
			inputs: `[{"type":"promptString","id":"BRAVE_API_KEY","description":"Brave Search API Key","password":true}]`,
			claude: `claude mcp add brave-search -e 'BRAVE_API_KEY=<your BRAVE_API_KEY>' -- npx -y -- @modelcontextprotocol/server-brave-search@1.0.2`,
		},
		{
			what:   "filesystem: a runtime argument with variables, a fixed package argument, an optional variable left out",
			record: filesystem,
			server: `{"command":"docker","args":["run","-i","--rm","--mount=type=bind,src=<your source_path>,dst=/project","mcp/filesystem","/project"]}`,
			vscode: `{"type":"stdio","command":"docker","args":["run","-i","--rm","--mount=type=bind,src=${input:source_path},dst=${input:target_path}","mcp/filesystem","/project"]}`,
			inputs: `[{"type":"promptString","id":"source_path","description":"Source path on host"},{"type":"promptString","id":"target_path","description":"Path to mount in the container. It should be rooted in ` + "`/project`" + ` directory.","default":"/project"}]`,
			claude: `claude mcp add filesystem -- docker run -i --rm '--mount=type=bind,src=<your source_path>,dst=/project' mcp/filesystem /project`,
		},
		{
			what:   "database manager: env passed into the container, choices, named and positional arguments",
			record: databaseManager,
			server: `{"command":"docker","args":["run","-i","--rm","-e","DB_PASSWORD","-e","DB_USERNAME","--network=host","-e=DB_TYPE=<your db_type>","example/database-manager-mcp","--host=localhost","<your database_name>"],
			  "env":{"DB_USERNAME":"<your DB_USERNAME>","DB_PASSWORD":"<your DB_PASSWORD>"}}`,
			vscode: `{"type":"stdio","command":"docker","args":["run","-i","--rm","-e","DB_PASSWORD","-e","DB_USERNAME","--network=host","-e=DB_TYPE=${input:db_type}","example/database-manager-mcp","--host=${input:host}","${input:database_name}"],
			  "env":{"DB_USERNAME":"${input:DB_USERNAME}","DB_PASSWORD":"${input:DB_PASSWORD}"}}`,
			inputs: `[{"type":"promptString","id":"DB_USERNAME","description":"Database username"},{"type":"promptString","id":"DB_PASSWORD","description":"Database password","password":true},
			  {"type":"pickString","id":"db_type","description":"Type of database","options":["postgres","mysql","mongodb","redis"]},
			  {"type":"promptString","id":"host","description":"Database host","default":"localhost"},{"type":"promptString","id":"database_name","description":"Name of the database to connect to"}]`,
			claude: `claude mcp add database-manager -e 'DB_PASSWORD=<your DB_PASSWORD>' -e 'DB_USERNAME=<your DB_USERNAME>' -- docker run -i --rm -e DB_PASSWORD -e DB_USERNAME --network=host '-e=DB_TYPE=<your db_type>' example/database-manager-mcp --host=localhost '<your database_name>'`,
		},
		{
			what:   "hybrid: a remote's headers",
			record: hybrid,
			server: `{"type":"sse","url":"https://mcp.anonymous.modelcontextprotocol.io/sse","headers":{"X-API-Key":"<your X-API-Key>"}}`,
			vscode: `{"type":"sse","url":"https://mcp.anonymous.modelcontextprotocol.io/sse","headers":{"X-API-Key":"${input:X-API-Key}"}}`,
			inputs: `[{"type":"promptString","id":"X-API-Key","description":"API key for authentication","password":true}]`,
			claude: `claude mcp add --transport sse hybrid-mcp https://mcp.anonymous.modelcontextprotocol.io/sse --header 'X-API-Key: <your X-API-Key>'`,
		},
	} {
		t.Run(tc.what, func(t *testing.T) {
			e, err := ParseRecord([]byte(tc.record))
			if err != nil {
				t.Fatal(err)
			}
			if err := mcpdir.CheckInstall(e); err != nil {
				t.Fatal(err)
			}
			in, ok := mcpdir.InstallFor(e)
			if !ok {
				t.Fatal("no install")
			}
			b, _ := json.Marshal(in.Server)
			sameJSON(t, "server", string(b), tc.server)
			b, _ = json.Marshal(in.VSCode())
			sameJSON(t, "VS Code", string(b), tc.vscode)
			b, _ = json.Marshal(in.Inputs)
			sameJSON(t, "inputs", string(b), tc.inputs)
			if got := in.ClaudeCode(); got != tc.claude {
				t.Errorf("Claude Code:\n%s\nwant\n%s", got, tc.claude)
			}
			// The links carry the same.
			cursor, _ := url.Parse(in.CursorLink())
			config, _ := base64.StdEncoding.DecodeString(cursor.Query().Get("config"))
			sameJSON(t, "Cursor link", string(config), tc.server)
			raw, _ := url.PathUnescape(strings.TrimPrefix(in.VSCodeLink(), "vscode:mcp/install?"))
			var link map[string]any
			json.Unmarshal([]byte(raw), &link)
			gotInputs, _ := json.Marshal(link["inputs"])
			sameJSON(t, "VS Code link's inputs", string(gotInputs), tc.inputs)
			delete(link, "inputs")
			delete(link, "name")
			gotServer, _ := json.Marshal(link)
			sameJSON(t, "VS Code link", string(gotServer), tc.vscode)

			// The entry as the directory stores and exports it reads
			// back the same.
			doc, _ := json.Marshal(e)
			again, err := ParseRecord(doc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.Packages, e.Packages) || !reflect.DeepEqual(again.Remotes, e.Remotes) {
				t.Errorf("round trip:\n%+v\n%+v", again.Packages, e.Packages)
			}
		})
	}
}

// The legacy registry seed's names read as server.json's do.
func TestLegacyInputNames(t *testing.T) {
	legacy := `{"name":"io.modelcontextprotocol/brave-search","packages":[{"registry_name":"npm","name":"@modelcontextprotocol/server-brave-search","version":"1.0.2",
	  "environment_variables":[{"name":"BRAVE_API_KEY","description":"Brave Search API Key","is_required":true,"is_secret":true}],
	  "package_arguments":[{"type":"positional","value_hint":"target_dir","is_required":true,"is_repeated":true,"default":"/Users/username/Desktop"}],
	  "runtime_arguments":[]}],
	 "remotes":[{"transport_type":"sse","url":"https://mcp.example.com/sse","headers":[{"name":"X-API-Key","is_required":true,"is_secret":true}]}]}`
	e, err := ParseRecord([]byte(legacy))
	if err != nil {
		t.Fatal(err)
	}
	p := e.Packages[0]
	want := mcpdir.Package{RegistryType: "npm", Identifier: "@modelcontextprotocol/server-brave-search", Version: "1.0.2",
		EnvironmentVariables: []mcpdir.KeyValueInput{{Name: "BRAVE_API_KEY", Input: mcpdir.Input{Description: "Brave Search API Key", IsRequired: true, IsSecret: true}}},
		PackageArguments:     []mcpdir.Argument{{Type: mcpdir.ArgPositional, ValueHint: "target_dir", IsRepeated: true, Input: mcpdir.Input{IsRequired: true, Default: "/Users/username/Desktop"}}}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("%+v\nwant %+v", p, want)
	}
	if h := e.Remotes[0].Headers; len(h) != 1 || h[0].Name != "X-API-Key" || !h[0].IsSecret || !h[0].IsRequired {
		t.Errorf("headers %+v", h)
	}
	in, _ := mcpdir.InstallFor(e)
	if got := in.Server.Headers["X-API-Key"]; got != "<your X-API-Key>" {
		t.Errorf("headers %+v", in.Server)
	}
	// A default is the value the configuration starts with.
	e.Remotes = nil
	in, _ = mcpdir.InstallFor(e)
	if got := in.Server.Args; !reflect.DeepEqual(got, []string{"-y", "--", "@modelcontextprotocol/server-brave-search@1.0.2", "/Users/username/Desktop"}) {
		t.Errorf("args %q", got)
	}
}

// Inputs are bounded like the rest of a record; a list of another shape
// is left out and the package kept.
func TestInputBounds(t *testing.T) {
	many := make([]string, maxInputs+1)
	for i := range many {
		many[i] = `{"name":"V"}`
	}
	for _, tc := range []struct{ record, reason string }{
		{`{"name":"a","packages":[{"registryType":"npm","identifier":"a","environmentVariables":[` + strings.Join(many, ",") + `]}]}`, "too many list items"},
		{`{"name":"a","remotes":[{"type":"sse","url":"https://a.example/","headers":[` + strings.Join(many, ",") + `]}]}`, "too many list items"},
		{`{"name":"a","packages":[{"registryType":"npm","identifier":"a","packageArguments":[{"type":"positional","value":"` + strings.Repeat("v", maxInputValue+1) + `"}]}]}`, "field too long"},
		{`{"name":"a","packages":[{"registryType":"npm","identifier":"a","runtimeArguments":[{"type":"named","name":"` + strings.Repeat("n", maxInputName+1) + `"}]}]}`, "field too long"},
	} {
		_, err := ParseRecord([]byte(tc.record))
		if re, ok := err.(*mcpdir.RecordError); !ok || re.Reason != tc.reason {
			t.Errorf("%.80s…: %v, want %s", tc.record, err, tc.reason)
		}
	}
	e, err := ParseRecord([]byte(`{"name":"a","packages":[{"registryType":"npm","identifier":"a","environmentVariables":{"A":"b"},"packageArguments":[{"type":"positional","value":8080,"isRequired":true}]}]}`))
	if err != nil || len(e.Packages) != 1 || e.Packages[0].EnvironmentVariables != nil || e.Packages[0].PackageArguments[0].Value != "8080" {
		t.Errorf("%v %+v", err, e)
	}
}

// A record no client could run safely is kept when it is parsed, as a
// registry sync or an import parses it, without links.
func TestParsedUninstallableKept(t *testing.T) {
	line := `{"name":"io.example/evil","version":"1.0.0","packages":[{"registryType":"npm","identifier":"--call=touch x","version":"1.0.0","transport":{"type":"stdio"}}]}`
	pe, err := ParseRecord([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mcpdir.InstallFor(pe); ok || !strings.HasPrefix(mcpdir.InstallUnavailable(pe), "packages[0].identifier: not an npm package name") {
		t.Errorf("parsed: %v %q", ok, mcpdir.InstallUnavailable(pe))
	}
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: %s, want %s", what, got, want)
	}
}
