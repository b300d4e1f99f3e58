package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/postgres"
	"github.com/mcpdir/mcpdir/sqlite"
)

const usage = `mcpdir — the Open MCP Directory

Usage:
  mcpdir serve   [--addr 127.0.0.1:8080] [--data-dir DIR] [--no-starter]
  mcpdir keys    create --name NAME [--expires 90d|never] [--rate-limit 20/h|unlimited] [--scope search|admin] [--owner EMAIL]
  mcpdir keys    list
  mcpdir keys    revoke PREFIX
  mcpdir accounts list | disable EMAIL | enable EMAIL | promote EMAIL | demote EMAIL
  mcpdir import  FILE...          (NDJSON, one entry a line; "-" reads standard input)
  mcpdir search  KEYWORDS...
  mcpdir sync    --from URL       (the official MCP Registry's list API, or one like it)
  mcpdir check   [ID...] [--concurrency 8] [--timeout 10s] [--allow-private]   (live checks of remote endpoints)
  mcpdir migrate --from-data-dir DIR --to postgres://… [--merge]   (the embedded store into PostgreSQL)
  mcpdir backup  FILE             (a consistent copy of the embedded store, while it serves)
  mcpdir health  URL             (exits 0 when a server's /readyz answers 200: container health checks)
  mcpdir version

Every command takes --data-dir (env MCPDIR_DATA_DIR, default ./mcpdir-data) for
the embedded SQLite store, or --database-url (env MCPDIR_DATABASE_URL, postgres://…)
for a PostgreSQL store that many replicas share.
Run "mcpdir COMMAND -h" for a command's flags and their MCPDIR_* variables.
`

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func exitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// run is the whole program, so that tests can start it like a user does.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	err := dispatch(ctx, args, envLookup(getenv), stdin, stdout, stderr)
	var help helpRequested
	if errors.As(err, &help) {
		// Asked for help: the usage on standard output, and success.
		help.print(stdout)
		return nil
	}
	return err
}

// command is a subcommand that takes its arguments and the settings and
// writes to the output.
type command func(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error

// commands are the subcommands of that kind, by name; import (which reads
// standard input), health, version and help are dispatch's own.
var commands = map[string]command{
	"serve": serve, "keys": keys, "search": searchCmd, "sync": syncCmd, "check": checkCmd,
	"accounts": accountsCmd, "migrate": migrateCmd, "backup": backupCmd,
}

func dispatch(ctx context.Context, args []string, env envLookup, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd, rest := args[1], args[2:]
	if c, ok := commands[cmd]; ok {
		return c(ctx, rest, env, stdout, stderr)
	}
	switch cmd {
	case "import":
		return importFiles(ctx, rest, env, stdin, stdout, stderr)
	case "health":
		return healthCmd(ctx, rest, stdout, stderr)
	case "version", "--version":
		if len(rest) > 0 && isHelp(rest[0]) {
			return helpRequested{synopsis: "mcpdir version\n\nPrints the version the binary was built as."}
		}
		fmt.Fprintln(stdout, "mcpdir", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// envLookup reads MCPDIR_* settings with defaults.
type envLookup func(string) string

func (e envLookup) or(name, def string) string {
	if v := strings.TrimSpace(e(name)); v != "" {
		return v
	}
	return def
}

// newFlags returns a flag set whose errors go to stderr and that takes the
// store flags every command shares.
func newFlags(name string, env envLookup, stderr io.Writer) (*flag.FlagSet, *storeFlags) {
	fs := flag.NewFlagSet("mcpdir "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := &storeFlags{}
	fs.StringVar(&sf.dataDir, "data-dir", env.or("MCPDIR_DATA_DIR", "./mcpdir-data"), "data directory of the embedded SQLite store (env MCPDIR_DATA_DIR)")
	fs.StringVar(&sf.databaseURL, "database-url", env("MCPDIR_DATABASE_URL"), "PostgreSQL URL (postgres://…), shared by many replicas; instead of --data-dir (env MCPDIR_DATABASE_URL)")
	return fs, sf
}

// storeFlags choose the store: PostgreSQL when a database URL is given,
// else SQLite in the data directory.
type storeFlags struct {
	dataDir     string
	databaseURL string
}

func (f *storeFlags) open(ctx context.Context) (mcpdir.Store, error) {
	if f.databaseURL == "" {
		return sqlite.Open(ctx, f.dataDir)
	}
	if !strings.HasPrefix(f.databaseURL, "postgres://") && !strings.HasPrefix(f.databaseURL, "postgresql://") {
		return nil, usageError{"--database-url must be a postgres:// URL"}
	}
	return postgres.Open(ctx, f.databaseURL)
}

// where names the store for messages, without the URL's password.
func (f *storeFlags) where() string {
	if f.databaseURL == "" {
		return "--data-dir " + f.dataDir
	}
	if u, err := url.Parse(f.databaseURL); err == nil {
		return "--database-url " + u.Redacted()
	}
	return "--database-url"
}

// parseFlags parses flags placed anywhere among the arguments (the flag
// package alone stops at the first positional one) and returns the
// positional arguments; "--" ends the flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	// run prints the usage, on standard output, when -h is given.
	fs.Usage = func() {}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequested{fs: fs}
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional, args = append(positional, args[0]), args[1:]
	}
}

// helpRequested is -h, --help or help given to a command: run prints
// the command's usage on standard output and exits 0.
type helpRequested struct {
	fs       *flag.FlagSet // the command's flags, if it has any
	synopsis string        // for a command without flags of its own
}

func (h helpRequested) Error() string { return "help requested" }

func (h helpRequested) print(w io.Writer) {
	if h.fs == nil {
		fmt.Fprintf(w, "Usage:\n  %s\n", h.synopsis)
		return
	}
	fmt.Fprintf(w, "Usage:\n  %s\n\nFlags:\n", synopsis(h.fs.Name()))
	h.fs.SetOutput(w)
	h.fs.PrintDefaults()
}

// synopsis is the command's line of the usage text, or NAME [flags].
func synopsis(name string) string {
	want := strings.Fields(name)
	for line := range strings.Lines(usage) {
		f := strings.Fields(line)
		if len(f) >= len(want) && slices.Equal(f[:len(want)], want) {
			return strings.Join(strings.Fields(strings.TrimSpace(line)), " ")
		}
	}
	return name + " [flags]"
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

func newLogger(w io.Writer, level, format string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	w = &lockedWriter{w: w} // slog's handler and plainLines write to it in turn
	return slog.New(secondsHandler{Handler: slog.NewJSONHandler(w, opts), plain: &plainLines{w: w}})
}

// groupSynopsis is the usage lines of a command with subcommands (keys,
// accounts), and how to see each one's flags.
func groupSynopsis(cmd string) string {
	var lines []string
	for line := range strings.Lines(usage) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "mcpdir" && f[1] == cmd {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return strings.Join(lines, "\n  ") + fmt.Sprintf("\n\nRun \"mcpdir %s SUBCOMMAND -h\" for a subcommand's flags.", cmd)
}
