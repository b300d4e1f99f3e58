package oauth

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/netguard"
)

// documentHost serves client metadata documents over TLS as example.com,
// which an injected resolver places at a public address (and other names
// at private ones): the guard sees the addresses a real lookup would give.
type documentHost struct {
	ts      *httptest.Server
	base    string // https://example.com:PORT
	fetches atomic.Int32
	docs    map[string]func(w http.ResponseWriter)
}

func newDocumentHost(t *testing.T) (*documentHost, *Documents) {
	h := &documentHost{docs: map[string]func(http.ResponseWriter){}}
	h.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fetches.Add(1)
		if serve, ok := h.docs[r.URL.Path]; ok {
			serve(w)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(h.ts.Close)
	_, port, _ := net.SplitHostPort(h.ts.Listener.Addr().String())
	h.base = "https://example.com:" + port
	g := netguard.New(netguard.Options{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "example.com":
				return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
			case "intranet.example.com":
				return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
			case "metadata.example.com":
				return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
			}
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
		Dial: func(ctx context.Context, network string, _ netip.AddrPort) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, h.ts.Listener.Addr().String())
		},
	})
	tr := g.Transport()
	tr.TLSClientConfig = h.ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return h, NewDocuments(&http.Client{Transport: tr})
}

// serveJSON makes path serve body with a Cache-Control header.
func (h *documentHost) serveJSON(path, body, cacheControl string) {
	h.docs[path] = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		io.WriteString(w, body)
	}
}

func TestClientMetadataDocuments(t *testing.T) {
	h, docs := newDocumentHost(t)
	ctx := context.Background()
	good := h.base + "/client.json"
	h.serveJSON("/client.json", fmt.Sprintf(`{"client_id":%q,"client_name":"Example Agent","redirect_uris":["http://127.0.0.1/cb","https://agent.example/cb"],"token_endpoint_auth_method":"none"}`, good), "max-age=60")
	c, err := docs.Client(ctx, good)
	if err != nil || c.Name != "Example Agent" || c.Host != "example.com:"+strings.Split(h.base, ":")[2] || len(c.RedirectURIs) != 2 {
		t.Fatalf("a good document: %+v %v", c, err)
	}
	if _, err := docs.Client(ctx, good); err != nil || h.fetches.Load() != 1 {
		t.Fatalf("max-age=60 was not kept: %d fetches, %v", h.fetches.Load(), err)
	}
	nostore := h.base + "/nostore.json"
	h.serveJSON("/nostore.json", fmt.Sprintf(`{"client_id":%q,"redirect_uris":["https://agent.example/cb"]}`, nostore), "no-store")
	for range 2 {
		if c, err := docs.Client(ctx, nostore); err != nil || c.Name != c.Host {
			t.Fatalf("no-store: %+v %v", c, err)
		}
	}
	if n := h.fetches.Load(); n != 3 {
		t.Fatalf("no-store was kept: %d fetches", n)
	}

	bad := map[string]string{
		"/other-id.json":   `{"client_id":"https://elsewhere.example/c.json","redirect_uris":["https://a.example/cb"]}`,
		"/secret.json":     `{"client_id":"%s","client_secret":"s","redirect_uris":["https://a.example/cb"]}`,
		"/jwt.json":        `{"client_id":"%s","token_endpoint_auth_method":"private_key_jwt","redirect_uris":["https://a.example/cb"]}`,
		"/redirect.json":   `{"client_id":"%s","redirect_uris":["http://evil.example/cb"]}`,
		"/noredirect.json": `{"client_id":"%s"}`,
		"/notjson.json":    `<html>`,
		"/huge.json":       `{"client_id":"%s","redirect_uris":["https://a.example/cb"],"pad":"` + strings.Repeat("x", 20<<10) + `"}`,
	}
	for path, body := range bad {
		id := h.base + path
		if strings.Contains(body, "%s") {
			body = fmt.Sprintf(body, id)
		}
		h.serveJSON(path, body, "")
		if _, err := docs.Client(ctx, id); err == nil {
			t.Errorf("%s: accepted", path)
		}
	}
	h.docs["/moved.json"] = func(w http.ResponseWriter) {
		w.Header().Set("Location", good)
		w.WriteHeader(http.StatusFound)
	}
	for _, id := range []string{h.base + "/missing.json", h.base + "/moved.json"} {
		if _, err := docs.Client(ctx, id); err == nil || !strings.Contains(err.Error(), "answered") {
			t.Errorf("%s: %v", id, err)
		}
	}
	// A failure is kept a minute (issue 28): asking again does not fetch.
	before := h.fetches.Load()
	for range 5 {
		if _, err := docs.Client(ctx, h.base+"/missing.json"); err == nil || !strings.Contains(err.Error(), "answered") {
			t.Errorf("the kept failure: %v", err)
		}
	}
	if n := h.fetches.Load() - before; n != 0 {
		t.Errorf("a failing URL asked again: %d more fetches", n)
	}
	docs.now = func() time.Time { return time.Now().Add(failedDocAge + time.Second) }
	docs.Client(ctx, h.base+"/missing.json")
	if n := h.fetches.Load() - before; n != 1 {
		t.Errorf("a minute later: %d fetches, want 1", n)
	}
	docs.now = time.Now
	port := strings.Split(h.base, ":")[2]
	for _, host := range []string{"intranet.example.com", "metadata.example.com", "localhost", "127.0.0.1"} {
		before := h.fetches.Load()
		_, err := docs.Client(ctx, "https://"+host+":"+port+"/client.json")
		if err == nil || !strings.Contains(err.Error(), "not a public address") || h.fetches.Load() != before {
			t.Errorf("%s: %v (fetched: %v)", host, err, h.fetches.Load() != before)
		}
	}
	for _, id := range []string{"https://example.com", "https://example.com/", "http://example.com/c.json", "https://u:p@example.com/c.json", "mcpdc_x"} {
		if IsDocumentURL(id) {
			t.Errorf("%q taken for a document URL", id)
		}
	}
}

// A client that names itself by its document's URL goes through the whole
// flow: the consent page shows the document's name and the URL's host,
// Allow redirects with a code, the code gives tokens; a document that
// cannot be fetched is an error page with no redirect.
func TestAuthorizationWithAMetadataDocument(t *testing.T) {
	h, docs := newDocumentHost(t)
	site := newSite(t, docs)

	id := h.base + "/agent.json"
	redirect := "http://127.0.0.1:7777/callback"
	h.serveJSON("/agent.json", fmt.Sprintf(`{"client_id":%q,"client_name":"Doc Agent","redirect_uris":[%q]}`, id, redirect), "")
	site.signUp()
	verifier := strings.Repeat("v", 50)
	q := authQuery(id, redirect, verifier)
	resp, err := site.browser.Get(site.URL + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "Doc Agent") || !strings.Contains(string(page), "example.com") || strings.Contains(string(page), "not verified") {
		t.Fatalf("consent: %d\n%s", resp.StatusCode, page)
	}
	code := site.allow(q)
	tok, err := http.PostForm(site.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "client_id": {id}, "code_verifier": {verifier}})
	if err != nil || tok.StatusCode != 200 {
		t.Fatalf("token: %v %v", err, tok.StatusCode)
	}
	tok.Body.Close()

	for _, bad := range []string{h.base + "/missing.json", "https://intranet.example.com:" + strings.Split(h.base, ":")[2] + "/agent.json"} {
		q.Set("client_id", bad)
		resp, err := site.browser.Get(site.URL + "/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d %q", bad, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
