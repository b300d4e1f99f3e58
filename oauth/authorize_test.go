package oauth

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/netguard"
)

// registerBody registers a client and returns the status and the answer.
func (s *site) registerBody(body string) (int, map[string]any) {
	s.t.Helper()
	resp, err := http.Post(s.URL+"/oauth/register", "application/json", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// get fetches a page with the browser (no redirects followed).
func (s *site) get(path string) (*http.Response, string) {
	s.t.Helper()
	resp, err := s.browser.Get(s.URL + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// The open redirector of finding 1: anyone can register any https
// redirect URI, so an invalid request of a registered client is an error
// page of the directory (400, no Location), signed in or not; only the
// person's Deny on the consent page sends an error back to it.
func TestAuthorizeErrorsOfRegisteredClientsAreNotRedirected(t *testing.T) {
	site := newSite(t, nil)
	status, reg := site.registerBody(`{"redirect_uris":["https://evil.example/landing"]}`)
	if status != 201 {
		t.Fatalf("register: %d %v", status, reg)
	}
	id := reg["client_id"].(string)
	good := authQuery(id, "https://evil.example/landing", strings.Repeat("v", 43))
	bad := map[string]url.Values{
		"only client_id":   {"client_id": {id}},
		"response_type":    cloneValues(good, "response_type", "token"),
		"plain PKCE":       cloneValues(good, "code_challenge_method", "plain"),
		"short challenge":  cloneValues(good, "code_challenge", "abc"),
		"another resource": cloneValues(good, "resource", "https://elsewhere.example/mcp"),
	}
	check := func(when string) {
		for name, q := range bad {
			resp, page := site.get("/oauth/authorize?" + q.Encode())
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(page, "evil.example") {
				t.Errorf("%s, %s: %d %q", when, name, resp.StatusCode, resp.Header.Get("Location"))
			}
		}
	}
	check("no session")
	site.signUp()
	check("signed in")
	// The consent form sent back altered: a page too.
	form := cloneValues(bad["plain PKCE"], "decision", "allow")
	if resp := site.post("/oauth/authorize", form); resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Errorf("an altered consent form: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Deny, after the person saw the consent page, goes back to the app.
	resp, page := site.get("/oauth/authorize?" + good.Encode())
	if resp.StatusCode != 200 || !strings.Contains(page, ">Deny</button>") {
		t.Fatalf("consent: %d", resp.StatusCode)
	}
	resp = site.post("/oauth/authorize", cloneValues(good, "decision", "deny"))
	back, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || back.Host != "evil.example" || back.Query().Get("error") != "access_denied" {
		t.Fatalf("deny: %d %v", resp.StatusCode, back)
	}
}

// A client with a metadata document may get errors back at its loopback
// or its own host's redirect URI; not at another https host.
func TestAuthorizeErrorsOfMetadataDocumentClients(t *testing.T) {
	h, docs := newDocumentHost(t)
	site := newSite(t, docs)
	id := h.base + "/agent.json"
	own := h.base + "/cb"
	h.serveJSON("/agent.json", fmt.Sprintf(`{"client_id":%q,"client_name":"Doc Agent","redirect_uris":["http://127.0.0.1:7777/callback",%q,"https://evil.example/cb"]}`, id, own), "")
	for redirect, wantRedirect := range map[string]bool{"http://127.0.0.1:7777/callback": true, own: true, "https://evil.example/cb": false} {
		q := cloneValues(authQuery(id, redirect, strings.Repeat("v", 43)), "code_challenge_method", "plain")
		resp, _ := site.get("/oauth/authorize?" + q.Encode())
		loc := resp.Header.Get("Location")
		if redirected := resp.StatusCode == http.StatusFound && strings.HasPrefix(loc, redirect+"?error=invalid_request"); redirected != wantRedirect ||
			!wantRedirect && (resp.StatusCode != 400 || loc != "") {
			t.Errorf("%s: %d %q", redirect, resp.StatusCode, loc)
		}
	}
}

// Finding 7: look-alike hosts. A host is shown in its ASCII form only
// (issue 33: also when it is in one script, with a warning); format and
// bidi characters are refused at registration; the consent page's
// form-action names the ASCII host.
func TestConsentShowsASCIIHosts(t *testing.T) {
	site := newSite(t, nil)
	for _, body := range []string{
		`{"redirect_uris":["https://apple.com\u202e/cb"]}`,
		`{"redirect_uris":["https://apple.com/c\u202eb"]}`,
		`{"redirect_uris":["https://app\u200ble.com/cb"]}`,
		`{"redirect_uris":["https://a%E2%80%AEpple.com/cb"]}`,
		`{"redirect_uris":["com.example.app:/c\u2066b"]}`,
	} {
		if status, e := site.registerBody(body); status != 400 || e["error"] != "invalid_redirect_uri" {
			t.Errorf("%s: %d %v", body, status, e)
		}
	}
	for _, name := range []string{`Good\u202eApp`, `Zero\u200bWidth`, `Iso\u2066late`, `Mark\u200e`} {
		if status, e := site.registerBody(`{"client_name":"` + name + `","redirect_uris":["https://a.example/cb"]}`); status != 400 || e["error"] != "invalid_client_metadata" {
			t.Errorf("client_name %s: %d %v", name, status, e)
		}
	}
	site.signUp()
	for redirect, want := range map[string][2]string{
		"https://аpple.com/cb":        {"xn--pple-43d.com", ""},      // Cyrillic а among Latin: ASCII only
		"https://аррӏе.com/cb":        {"xn--80ak6aa92e.com", ""},    // Cyrillic with a Latin "com": ASCII only
		"https://xn--pple-43d.com/cb": {"xn--pple-43d.com", ""},      // the same, registered in punycode
		"https://пример.рф/cb":        {"xn--e1afmkfd.xn--p1ai", ""}, // one script: ASCII only too (issue 33)
		"https://bücher.example/cb":   {"xn--bcher-kva.example", ""}, // Latin only: ASCII only too
	} {
		status, reg := site.registerBody(`{"redirect_uris":["` + redirect + `"]}`)
		if status != 201 {
			t.Fatalf("%s: %d %v", redirect, status, reg)
		}
		resp, page := site.get("/oauth/authorize?" + authQuery(reg["client_id"].(string), redirect, strings.Repeat("v", 43)).Encode())
		shown := "<strong>" + want[0] + "</strong>"
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(page, "the app at "+shown+".") || !strings.Contains(csp, "form-action 'self' https://"+want[0]+";") {
			t.Errorf("%s: %d %q\n%s", redirect, resp.StatusCode, csp, page)
		}
		if strings.Contains(page, "(аpple.com)") || strings.Contains(page, "(аррӏе.com)") || strings.Contains(page, "(пример.рф)") || strings.Contains(page, "(bücher.example)") {
			t.Errorf("%s: the Unicode form is shown", redirect)
		}
	}
}

func cloneValues(v url.Values, k, val string) url.Values {
	out := url.Values{}
	for key, vs := range v {
		out[key] = append([]string(nil), vs...)
	}
	out.Set(k, val)
	return out
}

// A metadata document at an international host: the consent page names
// the host in ASCII, and the mixed-script Unicode form is not shown.
func TestConsentShowsTheASCIIHostOfAMetadataDocument(t *testing.T) {
	ts := httptest.NewTLSServer(nil)
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	id := "https://аpple.com:" + port + "/agent.json"
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Look-alike","redirect_uris":["http://127.0.0.1:7777/callback"]}`, id)
	})
	g := netguard.New(netguard.Options{
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
		},
		Dial: func(ctx context.Context, network string, _ netip.AddrPort) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, ts.Listener.Addr().String())
		},
	})
	tr := g.Transport()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} // the test server's certificate names example.com only
	site := newSite(t, NewDocuments(&http.Client{Transport: tr}))
	site.signUp()
	resp, page := site.get("/oauth/authorize?" + authQuery(id, "http://127.0.0.1:7777/callback", strings.Repeat("v", 43)).Encode())
	if resp.StatusCode != 200 || !strings.Contains(page, "Look-alike</strong> from <strong>xn--pple-43d.com:"+port+"</strong> wants") || strings.Contains(page, "(аpple.com") ||
		!strings.Contains(page, "The client's address, xn--pple-43d.com:"+port+", uses letters that are not plain ASCII: it may imitate another.") {
		t.Fatalf("consent: %d\n%s", resp.StatusCode, page)
	}
}
