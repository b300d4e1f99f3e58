package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlite"
)

// importBatch is how many records go into one transaction: each committed
// batch is acknowledged, and a crash loses nothing acknowledged.
const importBatch = 500

func importFiles(ctx context.Context, args []string, env envLookup, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, dataDir := newFlags("import", env, stderr)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usageError{"usage: mcpdir import FILE... (NDJSON; - for standard input)"}
	}
	store, err := sqlite.Open(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	for _, name := range args {
		if err := importFile(ctx, store, name, stdin, stdout, stderr); err != nil {
			return err
		}
	}
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

	total := mcpdir.ImportResult{SkipReasons: map[string]int{}}
	skipLines := map[string][]int{}
	skip := func(line int, reason string) {
		total.Skipped++
		total.SkipReasons[reason]++
		if len(skipLines[reason]) < 5 {
			skipLines[reason] = append(skipLines[reason], line)
		}
	}
	var batch []*mcpdir.Entry
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res, err := store.UpsertEntries(ctx, batch)
		if err != nil {
			return fmt.Errorf("import %s: %w", name, err)
		}
		total.Added += res.Added
		total.Updated += res.Updated
		total.Unchanged += res.Unchanged
		batch = batch[:0]
		p.committed(total.Added + total.Updated + total.Unchanged)
		return nil
	}

	lines := newLineReader(counted, mcpdir.MaxRecordBytes)
	for n := 1; ; n++ {
		line, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("import %s: line %d: %w", name, n, err)
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			break
		}
		if line == nil {
			skip(n, "record too large")
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := mcpdir.ParseRecord(line)
		if err != nil {
			var re *mcpdir.RecordError
			if errors.As(err, &re) {
				skip(n, re.Reason)
				continue
			}
			return fmt.Errorf("import %s: line %d: %w", name, n, err)
		}
		batch = append(batch, e)
		if len(batch) == importBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	p.done()
	fmt.Fprintf(stdout, "imported %s in %s: %d added, %d updated, %d unchanged, %d skipped\n",
		name, time.Since(start).Round(time.Millisecond), total.Added, total.Updated, total.Unchanged, total.Skipped)
	reasons := make([]string, 0, len(total.SkipReasons))
	for r := range total.SkipReasons {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		fmt.Fprintf(stdout, "  skipped %d: %s (lines %s)\n", total.SkipReasons[r], r, joinInts(skipLines[r]))
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

// lineReader reads lines of at most max bytes; a longer line is consumed
// whole and returned as nil, so that one bad record cannot exhaust memory or
// stop the import.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+1 {
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(l.buf) == 0 && !tooLong {
				return nil, io.EOF
			}
		case err != nil:
			return nil, err
		}
		if tooLong {
			return nil, nil
		}
		return l.buf, nil
	}
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
	p := &progress{name: name, size: size, read: read, w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
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
