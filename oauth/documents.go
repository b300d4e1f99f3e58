package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir/netguard"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// as the MCP authorization specification uses them): a client names itself
// by the https URL of a JSON document that lists its name and redirect
// URIs. The directory fetches it through an HTTP client that reaches
// public addresses only (netguard), bounded in size and time, and keeps it
// as long as HTTP caching allows.
const (
	maxDocumentBytes = 16 << 10
	documentTimeout  = 5 * time.Second
	defaultDocAge    = 5 * time.Minute // a document without caching headers
	maxDocAge        = 24 * time.Hour
	failedDocAge     = time.Minute // a document that could not be fetched or was refused
	maxCachedDocs    = 1000
)

// Documents fetches and caches client metadata documents.
type Documents struct {
	client *http.Client
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cachedDocument
}

type cachedDocument struct {
	client  *client
	err     error // the document could not be used: said again until expires
	expires time.Time
}

// NewDocuments fetches documents with client, which must refuse private,
// loopback and link-local addresses (netguard's). Redirects are not
// followed: the document is at its URL or nowhere.
func NewDocuments(c *http.Client) *Documents {
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Documents{client: &cc, now: time.Now, cache: map[string]cachedDocument{}}
}

// IsDocumentURL reports whether a client_id is a metadata document's URL:
// https, with a host and a path, no user information or fragment.
func IsDocumentURL(id string) bool {
	u, err := url.Parse(id)
	return err == nil && len(id) <= maxRedirectURIBytes && u.Scheme == "https" && u.Host != "" && u.User == nil &&
		u.Fragment == "" && !strings.Contains(id, "#") && u.Path != "" && u.Path != "/"
}

// document is what the directory reads of a client metadata document.
type document struct {
	ClientID                string          `json:"client_id"`
	ClientName              string          `json:"client_name"`
	RedirectURIs            []string        `json:"redirect_uris"`
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method"`
	ApplicationType         string          `json:"application_type"`
	ClientSecret            json.RawMessage `json:"client_secret"`
}

// Client returns the client the document at id describes. A failure is
// kept for failedDocAge, so that a stranger cannot make the server fetch
// the same failing URL on every request.
func (d *Documents) Client(ctx context.Context, id string) (*client, error) {
	now := d.now()
	d.mu.Lock()
	c, ok := d.cache[id]
	d.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.client, c.err
	}
	cl, age, err := d.fetch(ctx, id)
	if err != nil {
		if ctx.Err() != nil { // the asker left: no verdict on the document
			return nil, err
		}
		cl, age = nil, failedDocAge
	}
	if age > 0 {
		d.mu.Lock()
		if len(d.cache) >= maxCachedDocs {
			clear(d.cache)
		}
		d.cache[id] = cachedDocument{client: cl, err: err, expires: now.Add(age)}
		d.mu.Unlock()
	}
	return cl, err
}

// fetch reads and checks a document; age is how long it may be kept.
func (d *Documents) fetch(ctx context.Context, id string) (*client, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, documentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, errors.New("the client_id is not a URL the directory can fetch")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("it could not be fetched (%s)", fetchProblem(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("its URL answered %d, not 200", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("it could not be read (%s)", fetchProblem(err))
	}
	if len(body) > maxDocumentBytes {
		return nil, 0, fmt.Errorf("it is larger than %d KiB", maxDocumentBytes>>10)
	}
	c, err := parseDocument(id, body)
	if err != nil {
		return nil, 0, err
	}
	return c, cacheAge(resp.Header), nil
}

// parseDocument checks a document fetched from id.
func parseDocument(id string, body []byte) (*client, error) {
	var doc document
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, errors.New("it is not a JSON object")
	}
	switch {
	case doc.ClientID != id:
		return nil, errors.New("its client_id is not its own URL")
	case len(doc.ClientSecret) > 0:
		return nil, errors.New("it has a client_secret, which a document must not")
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return nil, errors.New(`its token_endpoint_auth_method is not "none": the directory takes public clients only`)
	case len(doc.RedirectURIs) == 0 || len(doc.RedirectURIs) > maxRedirectURIs:
		return nil, fmt.Errorf("it must list 1 to %d redirect_uris", maxRedirectURIs)
	}
	for _, u := range doc.RedirectURIs {
		if e := checkRedirectURI(u, doc.ApplicationType); e != nil {
			return nil, errors.New(e.Description)
		}
	}
	host, _ := url.Parse(id)
	name := strings.TrimSpace(doc.ClientName)
	if name == "" || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) || strings.ContainsFunc(name, isBidi) ||
		utf8.RuneCountInString(name) > maxClientNameRunes {
		name = host.Host
		if a, ok := asciiHost(host.Host); ok {
			name = a // as the page shows hosts
		}
	}
	return &client{ID: id, Name: name, Host: host.Host, RedirectURIs: doc.RedirectURIs}, nil
}

// cacheAge is how long a response may be kept (Cache-Control max-age, or
// Expires), within bounds; no-store and no-cache keep nothing.
func cacheAge(h http.Header) time.Duration {
	cc := strings.ToLower(h.Get("Cache-Control"))
	if strings.Contains(cc, "no-store") || strings.Contains(cc, "no-cache") {
		return 0
	}
	for _, d := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(d), "max-age="); ok {
			n, err := strconv.Atoi(strings.Trim(v, `"`))
			if err != nil || n < 0 {
				return 0
			}
			return min(time.Duration(n)*time.Second, maxDocAge)
		}
	}
	if exp, err := http.ParseTime(h.Get("Expires")); err == nil {
		return min(max(time.Until(exp), 0), maxDocAge)
	}
	return defaultDocAge
}

// fetchProblem says what went wrong in words that leak nothing of the
// network beyond the refusal.
func fetchProblem(err error) string {
	switch {
	case errors.Is(err, netguard.ErrRefused):
		return "its host is not a public address"
	case errors.Is(err, context.DeadlineExceeded):
		return "it took too long"
	}
	return "the connection failed"
}
