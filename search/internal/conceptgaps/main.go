// Command conceptgaps measures the concept layer's coverage of the corpus
// and derives the groups of entries it misses, for people to write concepts
// for (search/lexicon/concepts.txt):
//
//	go run ./search/internal/conceptgaps [-min 10] [-samples 6] [-queries FILE] [-extra FILE,...]
//	go run ./search/internal/conceptgaps -show SLUG [-extra FILE,...]
//	go run ./search/internal/conceptgaps -uncovered [-extra FILE,...]
//
// It reads the packages corpus as the index does (lexicon.Reader: name,
// title, tags and brief assign concepts) and prints:
//   - the share of entries assigned to at least one concept;
//   - with -queries, the share of those queries whose words trigger one;
//   - the candidate groups: words of the names and briefs of entries that no
//     concept has, in at least -min such entries, merged with the words
//     whose entries they mostly share (co-occurrence), the largest first,
//     each with sample entries;
//   - with -show, instead, the entries assigned to one concept;
//   - with -uncovered, instead, every entry without a concept whose brief
//     says something (name, tab, brief: one a line), to sample from.
//
// -extra adds concept blocks from files, to try them before they are
// written into concepts.txt.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mcpdir/mcpdir/search/internal/releval"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

func main() {
	minEntries := flag.Int("min", 10, "the fewest uncovered entries a group has")
	samples := flag.Int("samples", 6, "sample entries printed per group")
	queries := flag.String("queries", "", "judged queries whose concept triggers to count")
	extra := flag.String("extra", "", "comma-separated files of concept blocks to try beside concepts.txt")
	show := flag.String("show", "", "print the entries assigned to this concept (its slug) instead")
	uncovered := flag.Bool("uncovered", false, "print the entries without a concept instead, one a line")
	flag.Parse()
	for _, f := range strings.Split(*extra, ",") {
		if f == "" {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		lexicon.AddConcepts(string(text))
	}
	_, entries, err := releval.Corpus()
	if err != nil {
		log.Fatal(err)
	}
	var r lexicon.Reader
	shown := map[int]bool{} // with -show: the entries of that concept
	covered := 0
	var gaps []int // indexes of entries without a concept
	for i, e := range entries {
		r.Begin(e.Title, e.Brief)
		for _, text := range []string{e.Name, e.Title, e.Brief} {
			r.Field(text, true, func(string) {})
		}
		for _, t := range e.Tags {
			r.Field(t, true, func(string) {})
		}
		n := 0
		r.Concepts(func(c string) {
			n++
			if *show != "" && c == "§"+*show {
				shown[i] = true
			}
		})
		if n > 0 {
			covered++
		} else {
			gaps = append(gaps, i)
		}
	}
	if *show != "" {
		ids := make([]int, 0, len(shown))
		for i := range shown {
			ids = append(ids, i)
		}
		slices.Sort(ids)
		fmt.Printf("%s: %d entries\n", *show, len(ids))
		step := max(1, len(ids) / *samples)
		for k := 0; k < len(ids) && k/step < *samples; k += step {
			e := entries[ids[k]]
			fmt.Printf("  %s: %s\n", e.Name, oneLine(e.Brief, 140))
		}
		return
	}
	if *uncovered {
		for _, i := range gaps {
			if e := entries[i]; len(strings.Fields(e.Brief)) >= 4 {
				fmt.Printf("%s\t%s\n", e.Name, oneLine(e.Brief, 300))
			}
		}
		return
	}
	fmt.Printf("entries with a concept: %d of %d (%.1f%%)\n", covered, len(entries), 100*float64(covered)/float64(len(entries)))
	if *queries != "" {
		qs, err := releval.ReadQueries(*queries)
		if err != nil {
			log.Fatal(err)
		}
		for _, half := range []string{"tune", "check"} {
			part := releval.Split(qs, half)
			n := 0
			for _, q := range part {
				if len(lexicon.QueryConcepts(q.Query)) > 0 {
					n++
				}
			}
			fmt.Printf("%s-half queries that trigger a concept: %d of %d (%.1f%%)\n", half, n, len(part), 100*float64(n)/float64(max(1, len(part))))
		}
	}

	// The words of the uncovered entries' names and briefs, and which
	// entries have them.
	has := map[string][]int{}
	for _, i := range gaps {
		e := entries[i]
		seen := map[string]bool{}
		lexicon.ContentWords(e.Name+" "+e.Brief, func(w, stem string, part bool) {
			if len(stem) < 3 || seen[stem] || generic[stem] || isNumber(stem) {
				return
			}
			seen[stem] = true
			has[stem] = append(has[stem], i)
		})
	}
	var words []string
	for w, es := range has {
		if len(es) >= *minEntries {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool {
		if len(has[words[i]]) != len(has[words[j]]) {
			return len(has[words[i]]) > len(has[words[j]])
		}
		return words[i] < words[j]
	})
	// Greedy grouping: a word joins the first larger group whose entries
	// hold most of its own.
	type group struct {
		words   []string
		entries map[int]bool
	}
	var groups []*group
	for _, w := range words {
		var home *group
		for _, g := range groups {
			shared := 0
			for _, i := range has[w] {
				if g.entries[i] {
					shared++
				}
			}
			if shared*2 > len(has[w]) {
				home = g
				break
			}
		}
		if home == nil {
			home = &group{entries: map[int]bool{}}
			groups = append(groups, home)
		}
		home.words = append(home.words, w)
		for _, i := range has[w] {
			home.entries[i] = true
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].entries) > len(groups[j].entries) })
	fmt.Printf("\n%d candidate groups of at least %d entries without a concept:\n", len(groups), *minEntries)
	for _, g := range groups {
		ids := make([]int, 0, len(g.entries))
		for i := range g.entries {
			ids = append(ids, i)
		}
		slices.Sort(ids)
		fmt.Printf("\n## %s (%d entries)\n", strings.Join(g.words[:min(8, len(g.words))], ", "), len(ids))
		step := max(1, len(ids) / *samples)
		for k := 0; k < len(ids) && k/step < *samples; k += step {
			e := entries[ids[k]]
			fmt.Fprintf(os.Stdout, "  %s: %s\n", e.Name, oneLine(e.Brief, 140))
		}
	}
}

// generic are words of briefs that say what a package is, not what it is
// for: a group of them is no purpose.
var generic = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`api data integr provid access support base llm ai python interact enabl
		allow via built simpl server client tool servic manag featur implement assist
		model context protocol mcp pypi npm packag librari sdk framework modul version
		applic system platform enhanc seamless open sourc fast lightweight power toolkit
		capabl function comprehens  autom agent ai-pow realtim real time local remot connect
		text file search creat get list generat use build expos offer develop make
		handl work run perform custom option support multipl advanc secur easi
		add descript demo test tech exampl templat placehold hello world
		iflow mseep mcpbind claud desktop cursor gpt chatgpt windsurf codex opencod antigrav gemini cli
		cline copilot vscode ide fastmcp stdio sse http json read reader write updat delet
		服务 务器 基于 支持 功能 提供 一个 工具 实现 可以 进行 通过 器的 的服`) {
		m[w] = true
	}
	return m
}()

func isNumber(w string) bool {
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
