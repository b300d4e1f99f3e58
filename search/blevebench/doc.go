// Package blevebench compares the directory's search index with Bleve on
// the shared corpus and judged queries: ranking quality (nDCG@10,
// recall@50) and latency side by side. It is a separate package so that
// only its benchmark links Bleve:
//
//	go test ./search/blevebench -run '^$' -bench Compare -benchtime 800x
//
// The project keeps its own index only while this comparison shows that it
// ranks better and runs faster than the library.
package blevebench
