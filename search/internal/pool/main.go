// Command pool gathers what judges grade: for each query of a set, the top
// entries of several rankers over the packages corpus (the engine as this
// tree builds it, and the plain BM25 baseline), less what is already
// judged, written as grading sheets in which nothing says which ranker
// found an entry. Pools of an earlier ranking are made by running this
// command at that commit.
//
//	go run ./search/internal/pool -queries search/testdata/nl.jsonl -depth 20 -out pool.jsonl
//	go run ./search/internal/pool -queries search/testdata/nl.jsonl -pool a.jsonl,b.jsonl -sheets DIR -parts 6
//
// The first form writes the pool (qid, url, rankers) as JSON lines; the
// second merges pools, leaves out what the queries' judgments already
// grade, and writes the sheets: per query its text, what it means and the
// candidates by name, each with a number the judge grades.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// pooled is one candidate of one query.
type pooled struct {
	QID     string   `json:"qid"`
	URL     string   `json:"url"`
	Rankers []string `json:"rankers"`
}

func main() {
	queries := flag.String("queries", "", "judged queries (JSON lines, with optional \"intent\")")
	depth := flag.Int("depth", 20, "how many of each ranker's top entries are pooled")
	out := flag.String("out", "", "write the pool here")
	name := flag.String("name", "engine", "what the engine of this tree is called in the pool")
	pools := flag.String("pool", "", "comma-separated pools to merge into sheets")
	sheets := flag.String("sheets", "", "write grading sheets into this directory")
	parts := flag.Int("parts", 1, "how many sheets to split the queries into")
	flag.Parse()
	if *queries == "" || (*out == "") == (*sheets == "") {
		flag.Usage()
		os.Exit(2)
	}
	_, entries, err := releval.Corpus()
	if err != nil {
		log.Fatal(err)
	}
	qs, err := releval.ReadLines[query](*queries)
	if err != nil {
		log.Fatal(err)
	}
	if *out != "" {
		if err := writePool(*out, *name, *depth, entries, qs); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := writeSheets(*sheets, *parts, strings.Split(*pools, ","), entries, qs); err != nil {
		log.Fatal(err)
	}
}

// query is a judged query and what it means, for the judges.
type query struct {
	releval.Query
	Intent string `json:"intent"`
}

func writePool(path, name string, depth int, entries []*mcpdir.Entry, qs []query) error {
	x := search.New()
	x.SetResultCache(0)
	x.Upsert(entries...)
	bm := releval.NewBM25(entries)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, q := range qs {
		found := map[string][]string{}
		var order []string
		add := func(ranker string, urls []string) {
			for _, u := range urls {
				if found[u] == nil {
					order = append(order, u)
				}
				found[u] = append(found[u], ranker)
			}
		}
		var ours []string
		for _, h := range x.Search(q.Query.Query, depth).Hits {
			ours = append(ours, h.Entry.WebsiteURL)
		}
		add(name, ours)
		bmTop, _ := bm.Search(q.Query.Query, depth)
		add("bm25", bmTop)
		for _, u := range order {
			if err := enc.Encode(pooled{q.QID, u, found[u]}); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func writeSheets(dir string, parts int, pools []string, entries []*mcpdir.Entry, qs []query) error {
	byURL := map[string]*mcpdir.Entry{}
	for _, e := range entries {
		byURL[e.WebsiteURL] = e
	}
	cands := map[string]map[string]bool{}
	for _, p := range pools {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(data)) {
			var c pooled
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if cands[c.QID] == nil {
				cands[c.QID] = map[string]bool{}
			}
			cands[c.QID][c.URL] = true
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for part := range parts {
		var b strings.Builder
		n := 0
		for i, q := range qs {
			if i%parts != part {
				continue // every sheet gets every kind
			}
			var urls []string
			for u := range cands[q.QID] {
				if _, judged := q.Judgments[u]; !judged && byURL[u] != nil {
					urls = append(urls, u)
				}
			}
			if len(urls) == 0 {
				continue
			}
			// By name: nothing in the order says which ranker found what.
			sort.Slice(urls, func(i, j int) bool {
				a, b := byURL[urls[i]], byURL[urls[j]]
				return a.Name < b.Name || a.Name == b.Name && urls[i] < urls[j]
			})
			fmt.Fprintf(&b, "### %s [%s]\nquery: %s\n", q.QID, q.Kind, q.Query.Query)
			if q.Intent != "" {
				fmt.Fprintf(&b, "meaning: %s\n", q.Intent)
			}
			for _, u := range urls {
				e := byURL[u]
				brief := strings.Join(strings.Fields(e.Brief), " ")
				if brief == "" {
					brief = "(no brief)"
				}
				fmt.Fprintf(&b, "%s | %s | %s\n", u, e.Name, brief)
				n++
			}
			b.WriteString("\n")
		}
		path := filepath.Join(dir, fmt.Sprintf("sheet-%d.txt", part+1))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d candidates\n", path, n)
	}
	return nil
}
