package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/service"
)

// searchCmd runs the server's ranked search from the command line.
func searchCmd(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("search", env, stderr)
	limit := fs.Int("limit", 10, "how many results to show (1..1000)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *limit < 1 || *limit > 1000 {
		return usageError{"--limit must be between 1 and 1000"}
	}
	keywords, err := mcpdir.ValidateKeywords(strings.Join(args, " "))
	if err != nil {
		return usageError{err.Error()}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	index, _, _, err := service.BuildDirectory(ctx, store, 0, mcpdir.Trust{}, false)
	if err != nil {
		return err
	}
	res := index.Search(keywords, *limit)
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	// A record's title is what people call it ("Gmail"); its name
	// (io.github.gongrzhe/gmail-mcp-server) stays beside it, as it is
	// what identifies it.
	fmt.Fprintln(tw, "SCORE\tTITLE\tNAME\tBRIEF\tWEBSITE\tID")
	for _, h := range res.Hits {
		e := h.Entry
		fmt.Fprintf(tw, "%.2f\t%s\t%s\t%s\t%s\t%s\n", h.Score, terminalSafe(clip(e.Title, 40)), terminalSafe(e.Name), terminalSafe(clip(e.Brief, 60)), terminalSafe(e.WebsiteURL), e.ID)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d of %d matches\n", len(res.Hits), res.Total)
	return nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
