package mcpdir

// Input is a value a server needs to run, as server.json describes one: an
// environment variable's, a header's, an argument's, or a variable in one
// of their values. Value, when set, is fixed (not the user's to choose);
// otherwise the user gives one, Default when they give none.
type Input struct {
	Value       string   `json:"value,omitempty"`
	Default     string   `json:"default,omitempty"`
	IsRequired  bool     `json:"is_required,omitempty"`
	IsSecret    bool     `json:"is_secret,omitempty"`
	Description string   `json:"description,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	Format      string   `json:"format,omitempty"` // string, number, boolean, filepath
	Placeholder string   `json:"placeholder,omitempty"`
	// Variables are the inputs that the {curly_braces} of Value name.
	Variables map[string]Input `json:"variables,omitempty"`
}

// KeyValueInput is an environment variable of a package or a header of a
// remote.
type KeyValueInput struct {
	Name string `json:"name"`
	Input
}

// Argument is a command-line argument of a package (after the package) or
// of its runtime (npx, uvx, docker: before the package). A positional one
// is its value; a named one is Name=value ("--port=8080").
type Argument struct {
	Type       string `json:"type"` // positional or named
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"value_hint,omitempty"`
	IsRepeated bool   `json:"is_repeated,omitempty"`
	Input
}

// Argument types.
const (
	ArgPositional = "positional"
	ArgNamed      = "named"
)
