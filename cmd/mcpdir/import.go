package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
	"github.com/mcpdir/mcpdir/starter"
	"golang.org/x/term"
)

func importFiles(ctx context.Context, args []string, env envLookup, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("import", env, stderr)
	withStarter := fs.Bool("starter", false, "when the store has no entries yet, load the starter directory too (serve loads it only into an empty store)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usageError{"usage: mcpdir import FILE... (NDJSON; - for standard input)"}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := offerStarter(ctx, store, *withStarter, stdout, stderr); err != nil {
		return err
	}
	for _, name := range args {
		if err := importFile(ctx, store, name, stdin, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// offerStarter loads the starter directory into a store with no entries
// yet when asked to, and otherwise says that importing first means going
// without it: serve loads it only into an empty store.
func offerStarter(ctx context.Context, store mcpdir.EntryStore, load bool, stdout, stderr io.Writer) error {
	n, err := store.CountEntries(ctx)
	if err != nil || n > 0 {
		return err
	}
	if !load {
		fmt.Fprintln(stderr, "import: the store has no entries yet, so serve will not load the starter directory after this import (it loads it only into an empty store); add --starter to load it too")
		return nil
	}
	added, err := starter.Seed(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loaded the starter directory into the empty store: %d entries\n", added)
	return nil
}

func importFile(ctx context.Context, store mcpdir.EntryStore, name string, stdin io.Reader, stdout, stderr io.Writer) error {
	var in io.Reader = stdin
	var size int64
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		in = f
	}
	counted := &countingReader{r: in}
	p := newProgress(name, size, counted, stderr)
	start := time.Now()
	sum, err := importer.Import(ctx, store, counted, p.committed)
	p.done()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("import %s: %w", name, err)
	}
	fmt.Fprintf(stdout, "imported %s in %s: %d added, %d updated, %d unchanged, %d skipped\n",
		terminalSafe(name), time.Since(start).Round(time.Millisecond), sum.Added, sum.Updated, sum.Unchanged, sum.Skipped)
	for _, r := range slices.Sorted(maps.Keys(sum.SkipReasons)) {
		fmt.Fprintf(stdout, "  skipped %d: %s (lines %s)\n", sum.SkipReasons[r], r, joinInts(sum.SkipLines[r]))
	}
	return ctx.Err()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// progress shows a bar on a terminal, and otherwise a line per 5,000 records
// acknowledged (committed), which a log or a script can follow.
type progress struct {
	name     string
	size     int64
	read     *countingReader
	w        io.Writer
	terminal bool
	lastLine int
	lastDraw time.Time
}

func newProgress(name string, size int64, read *countingReader, w io.Writer) *progress {
	return &progress{name: name, size: size, read: read, w: w, terminal: isTerminal(w)}
}

// isTerminal reports whether w is a terminal, where progress is drawn in
// place rather than logged line by line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) // a terminal, not any character device (/dev/null is one)
}

func (p *progress) committed(records int) {
	if !p.terminal {
		if records/5000 > p.lastLine/5000 {
			fmt.Fprintf(p.w, "import %s: %d records committed\n", p.name, records)
		}
		p.lastLine = records
		return
	}
	if time.Since(p.lastDraw) < 100*time.Millisecond {
		return
	}
	p.lastDraw = time.Now()
	const width = 30
	frac := 0.0
	if p.size > 0 {
		frac = min(1, float64(p.read.n)/float64(p.size))
	}
	filled := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d records", p.name, strings.Repeat("=", filled), strings.Repeat(" ", width-filled), frac*100, records)
}

func (p *progress) done() {
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
