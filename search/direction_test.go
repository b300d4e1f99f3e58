package search

import (
	"testing"

	"github.com/mcpdir/mcpdir"
)

// TestAConversionGoesOneWay: "a to b" asks for converters from a to b. One
// that goes the other way ranks below those that go the query's way and
// those that say no way, however popular, the format being the word before
// what holds it ("markdown notes to pdf"), and a term that says a way
// ("image to text" of OCR) is an entry's only where its words go that way:
// an image generator that works "by text prompts" is not OCR.
func TestAConversionGoesOneWay(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("csv2json-pro", "Convert CSV to JSON in one call", 90000),
		entry("json-to-csv", "Convert JSON to CSV files", 0),
		entry("tabular-tools", "Read, filter and convert CSV and JSON data", 0),
		entry("image-studio", "Generate images by text prompts with Flux", 90000),
		entry("painter", "Text to image generation with Stable Diffusion", 90000),
		entry("tesseract-reader", "Extract text from images with Tesseract", 0),
		entry("screen-reader-ocr", "Image to text: read the words in screenshots", 0),
		entry("md2pdf", "Markdown to PDF with your own CSS", 0),
		entry("pdf2md", "Turn PDF documents into Markdown", 90000),
		entry("weather-mcp", "Weather forecasts for any city", 50),
		entry("slack-mcp", "Post messages to Slack channels", 1000),
		entry("github-mcp-server", "MCP server for the GitHub API: issues, pull requests", 9000),
	})
	for _, tc := range []struct {
		query        string
		first, below []string // each of below ranks below every one of first
	}{
		{"json to csv", []string{"json-to-csv", "tabular-tools"}, []string{"csv2json-pro"}},
		{"csv to json", []string{"csv2json-pro"}, []string{"json-to-csv"}},
		{"image to text", []string{"tesseract-reader", "screen-reader-ocr"}, []string{"image-studio", "painter"}},
		{"text to image", []string{"painter", "image-studio"}, []string{"tesseract-reader", "screen-reader-ocr"}},
		// The format is the word before what holds it ("markdown notes").
		{"turn markdown notes into pdf", []string{"md2pdf"}, []string{"pdf2md"}},
		{"convert my pdf files to markdown", []string{"pdf2md"}, []string{"md2pdf"}},
	} {
		r := x.Search(tc.query, 10)
		for _, want := range tc.first {
			i := rankOf(r, want)
			if i < 0 {
				t.Errorf("%q: %q, want %s", tc.query, names(r), want)
				continue
			}
			for _, other := range tc.below {
				if j := rankOf(r, other); j >= 0 && j < i {
					t.Errorf("%q: %q, want %s below %s", tc.query, names(r), other, want)
				}
			}
		}
	}
}
