// Package web is the directory as people see it: server-rendered pages
// (html/template, embedded), usable without JavaScript, under a strict
// Content-Security-Policy. The public directory: a search page at / and a
// page per server with ready install snippets and one-click install links,
// provenance, and its live checks drawn as SVG (uptime.go); sign-up, log-in
// and the API Keys page (accounts.go); the OAuth consent page (consent.go);
// and the operator's admin area (admin.go, insightchart.go).
package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// PageSize is how many results a search page shows; "More results" shows
// the next page.
const PageSize = 20

// maxPages bounds how deep "More results" goes (the index ranks the first
// PageSize*maxPages hits).
const maxPages = 10

// Index is what the pages read.
type Index interface {
	Find(q mcpdir.Query) mcpdir.SearchResult
	Get(id string) (*mcpdir.Entry, bool)
	Len() int
}

// Pages serves the public pages.
type Pages struct {
	index  Index
	logger *slog.Logger
	pages  map[string]*template.Template
	// accounts, when set, serves sign-up, log-in and the API Keys page
	// (accounts.go).
	accounts *AccountConfig
	// admin, when set with accounts, serves /admin (admin.go).
	admin *AdminConfig
	// insight counts the searches (WithInsight).
	insight mcpdir.InsightRecorder
}

// WithInsight makes the search page count its searches (package
// insight): a query's first page, not the "More results" that follow.
func (p *Pages) WithInsight(r mcpdir.InsightRecorder) { p.insight = r }

// Base is what every page has: its title, and who is signed in.
type Base struct {
	Title    string
	User     *mcpdir.Account
	Accounts bool // sign-up and log-in exist
	// formAction, when set, is a source the page's forms may also send
	// the browser to (the consent page's redirect URI).
	formAction string
}

func (b *Base) base() *Base { return b }

type page interface{ base() *Base }

// funcs are the templates' helpers. visible shows text from outside (a
// record's, a server's) with its invisible and direction-changing
// characters as escapes: a person reads what a model would.
var funcs = template.FuncMap{"visible": mcpdir.Visible}

// New parses the templates.
func New(index Index, logger *slog.Logger) (*Pages, error) {
	p := &Pages{index: index, logger: logger, pages: map[string]*template.Template{}, insight: mcpdir.NoInsight}
	for _, name := range []string{"search", "server", "notfound", "signup", "keys", "consent", "admin", "adminentry"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		p.pages[name] = t
	}
	return p, nil
}

// Static serves the stylesheet and the copy-button script.
func Static() http.Handler {
	sub, _ := fs.Sub(staticFiles, "static")
	files := http.StripPrefix("/static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// Favicon is the site's icon, at /favicon.ico where browsers look for it
// (an SVG, which they take there too).
func Favicon() http.Handler {
	icon, _ := staticFiles.ReadFile("static/favicon.svg")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(icon)
	})
}

// SecurityHeaders are every page's: no inline script or style, no framing,
// no sniffing, no referrer beyond the origin.
func SecurityHeaders(h http.Header) { securityHeaders(h, "") }

// securityHeaders lets the page's forms lead to formAction as well as to
// the page's own origin (Chromium applies form-action to the redirects
// that follow a form's submission too).
func securityHeaders(h http.Header, formAction string) {
	if formAction != "" {
		formAction = " " + formAction
	}
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'"+formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("X-Frame-Options", "DENY")
}

type searchPage struct {
	Base
	Query, Error   string
	Hits           []wire.SearchItem
	Total, Entries int
	More           string
	// PastEnd is a page beyond the last one: no hits, and no "no match".
	PastEnd bool
	// MaxKeywords is the search box's maxlength: what search takes.
	MaxKeywords int
	// Safe hides servers whose tools raised warnings (warnings=none).
	Safe bool
}

// Search is the directory's front page: a search box and, for a query, a
// page of results.
func (p *Pages) Search() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data := &searchPage{Base: Base{Title: "Search MCP servers"}, Entries: p.index.Len(), MaxKeywords: mcpdir.MaxKeywordsBytes}
		q := r.URL.Query()
		if raw := q.Get("q"); raw != "" {
			keywords, err := mcpdir.ValidateKeywords(raw)
			if err != nil {
				data.Query, data.Error = strings.ToValidUTF8(raw, ""), mcpdir.ErrorMessage(err)
				p.render(w, r, http.StatusBadRequest, "search", data)
				return
			}
			page, _ := strconv.Atoi(q.Get("page"))
			page = max(page, 1)
			// A page past the ones "More results" leads to is empty, not
			// the last one again.
			var filter mcpdir.Filter
			if data.Safe = q.Get("warnings") == mcpdir.WarningsFilterNone; data.Safe {
				filter.Warnings = mcpdir.WarningsFilterNone
			}
			res := p.index.Find(mcpdir.Query{Text: keywords, Limit: min(page, maxPages) * PageSize, Filter: filter})
			if page == 1 {
				p.insight.Searched(mcpdir.DoorWeb, keywords, max(res.Total, len(res.Hits)))
			}
			data.Query, data.Total, data.Base.Title = keywords, res.Total, keywords+" · search"
			data.PastEnd = page > 1 && res.Total > 0 && (page > maxPages || len(res.Hits) <= (page-1)*PageSize)
			if page > maxPages {
				res.Hits = nil
			}
			for _, h := range res.Hits[min(len(res.Hits), (page-1)*PageSize):] {
				data.Hits = append(data.Hits, wire.NewSearchItem(h))
			}
			if len(res.Hits) == page*PageSize && res.Total > len(res.Hits) && page < maxPages {
				more := url.Values{"q": {keywords}, "page": {strconv.Itoa(page + 1)}}
				if data.Safe {
					more.Set("warnings", mcpdir.WarningsFilterNone)
				}
				data.More = "/?" + more.Encode()
			}
		}
		p.render(w, r, http.StatusOK, "search", data)
	})
}

type serverPage struct {
	Base
	Entry    *mcpdir.Entry
	Live     *wire.LiveDetail // nil: never checked
	Snippets []snippet
	// CursorLink and VSCodeLink install the server in one click. They are
	// built here from escaped parts: html/template would refuse their
	// schemes in a plain string.
	CursorLink, VSCodeLink template.URL
	// Placeholders: the snippets hold values the user must replace.
	Placeholders bool
	// InstallUnavailable is why a server that has packages or remotes
	// has no install (mcpdir.InstallUnavailable).
	InstallUnavailable string
	// Provenance says which source gave which fields, and when.
	Provenance []mcpdir.Provenance
	// Uptime draws the last days' live checks; nil if never checked.
	Uptime *uptimeChart
}

// Server is an entry's page: everything get_mcp_detail returns, and
// snippets and one-click links to install it in the common clients.
func (p *Pages) Server() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.ToLower(r.PathValue("id"))
		e, ok := p.index.Get(id)
		if !mcpdir.IsUUID(id) || !ok {
			p.NotFound(w, r, "No MCP server has this id. It may have been removed from the directory.")
			return
		}
		if e.ID != id {
			// A record merged into another entry: its page is the entry's.
			http.Redirect(w, r, "/servers/"+e.ID, http.StatusMovedPermanently)
			return
		}
		// The tab reads as the heading does: "Gmail", not the package name.
		title := e.Name
		if e.Title != "" {
			title = e.Title
		}
		data := &serverPage{Base: Base{Title: title}, Entry: e, Live: wire.NewDetail(e).Live, Provenance: mcpdir.ProvenanceOf(e)}
		if data.Live != nil {
			data.Uptime = newUptimeChart(data.Live.History)
		}
		if in, ok := mcpdir.InstallFor(e); ok {
			data.Snippets = snippets(in)
			data.CursorLink, data.VSCodeLink = template.URL(in.CursorLink()), template.URL(in.VSCodeLink())
			data.Placeholders = strings.Contains(in.ClaudeCode(), "<your ")
		} else {
			data.InstallUnavailable = mcpdir.InstallUnavailable(e)
		}
		p.render(w, r, http.StatusOK, "server", data)
	})
}

// NotFound answers a page that does not exist.
func (p *Pages) NotFound(w http.ResponseWriter, r *http.Request, message string) {
	p.Message(w, r, http.StatusNotFound, "Not found", message)
}

// Message answers a page that only says something, with a status.
func (p *Pages) Message(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	p.render(w, r, status, "notfound", &messagePage{Base: Base{Title: title}, Message: message})
}

type messagePage struct {
	Base
	Message string
}

func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, data page) {
	if b := data.base(); p.accounts != nil {
		b.Accounts = true
		if b.User == nil {
			b.User = p.SignedIn(r)
		}
	}
	var buf bytes.Buffer
	if err := p.pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		p.logger.ErrorContext(r.Context(), "web: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	securityHeaders(h, data.base().formAction)
	h.Set("Content-Type", "text/html; charset=utf-8")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// snippet is a ready configuration for one client.
type snippet struct {
	Client, Where, Text string
}

// snippets are the install configurations of an entry, for the common
// clients, all written from the one configuration of in. VS Code's asks
// for what the user must give with its inputs; the others hold
// placeholders.
func snippets(in mcpdir.Install) []snippet {
	pretty := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // the template escapes; a snippet reads as pasted
		enc.SetIndent("", "  ")
		enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n")
	}
	servers := map[string]any{in.Name: in.Server}
	vscode := map[string]any{"servers": map[string]any{in.Name: in.VSCode()}}
	if len(in.Inputs) > 0 {
		vscode["inputs"] = in.Inputs
	}
	return []snippet{
		{"Claude Desktop", "claude_desktop_config.json", pretty(map[string]any{"mcpServers": servers})},
		{"Claude Code", "", in.ClaudeCode()},
		{"Cursor", "~/.cursor/mcp.json", pretty(map[string]any{"mcpServers": servers})},
		{"VS Code", ".vscode/mcp.json", pretty(vscode)},
		{"Any MCP client (JSON)", "", pretty(servers)},
	}
}
