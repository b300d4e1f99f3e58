package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// browser is an HTTP client with cookies, as a person's browser is.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, client: &http.Client{Jar: jar}}
}

func (b *browser) do(method, path string, form url.Values, headers ...string) (int, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

var keyInPage = regexp.MustCompile(`<pre tabindex="0" id="new-key">(mcpd_[A-Za-z0-9]+)</pre>`)

// Accounts end to end: sign up, make a key and use it, see only its prefix
// afterwards, revoke it (REST then refuses it), log out (the old cookie no
// longer works), a wrong password, two accounts that cannot touch each
// other's keys, and a cross-origin POST refused.
func TestAccountsAndKeysPage(t *testing.T) {
	s := startServer(t, "")
	ada := newBrowser(t, s.URL)
	if code, body := ada.do("GET", "/keys", nil); code != 200 || !strings.Contains(body, `<h1>Log in</h1>`) {
		t.Fatalf("/keys logged out: %d (want the log-in page)", code)
	}
	if code, body := ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"short"}}); code != 400 || !strings.Contains(body, "10 to 256") {
		t.Fatalf("a short password: %d", code)
	}
	if code, body := ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 || !strings.Contains(body, "API Keys") || !strings.Contains(body, "Log out") {
		t.Fatalf("sign up: %d", code)
	}
	code, body := ada.do("POST", "/keys", url.Values{"name": {"laptop"}, "expires": {"never"}})
	m := keyInPage.FindStringSubmatch(body)
	if code != 201 || m == nil || !strings.Contains(body, "claude mcp add") {
		t.Fatalf("create a key: %d %.300s", code, body)
	}
	key := m[1]
	s.search(t, key, "github") // the key works at once
	if resp, err := ada.client.Get(s.URL + "/keys"); err != nil || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the keys page may be cached: %v %v", err, resp.Header)
	} else {
		resp.Body.Close()
	}
	if _, body = ada.do("GET", "/keys", nil); strings.Contains(body, key) || !strings.Contains(body, key[:13]) || !strings.Contains(body, "1 of 20") {
		t.Fatalf("the keys page after a reload shows the key, or not its prefix and use:\n%s", body)
	}

	// Another account sees none of Ada's keys and cannot revoke them.
	bob := newBrowser(t, s.URL)
	bob.do("POST", "/signup", url.Values{"email": {"bob@example.com"}, "password": {"bob's long password"}})
	if _, body := bob.do("GET", "/keys", nil); strings.Contains(body, key[:13]) {
		t.Fatal("Bob sees Ada's key")
	}
	if code, _ := bob.do("POST", "/keys/"+key[:13]+"/revoke", url.Values{}); code != 404 {
		t.Fatalf("Bob revoking Ada's key: %d", code)
	}
	// A page of another origin cannot make Ada's browser act.
	if code, _ := ada.do("POST", "/keys", url.Values{"name": {"evil"}, "expires": {"never"}}, "Origin", "https://evil.example.com", "Sec-Fetch-Site", "cross-site"); code != 403 {
		t.Fatalf("a cross-origin POST: %d", code)
	}

	if code, body = ada.do("POST", "/keys/"+key[:13]+"/revoke", url.Values{}); code != 200 || !strings.Contains(body, "revoked") {
		t.Fatalf("revoke: %d", code)
	}
	resp := get(t, s.URL+"/api/open/v1/search?keywords=github", "Bearer "+key)
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("a revoked key on REST: %d", resp.StatusCode)
	}

	// Log out ends the session on the server: the old cookie is refused.
	u, _ := url.Parse(s.URL)
	old := ada.client.Jar.Cookies(u)
	ada.do("POST", "/logout", url.Values{})
	stale := newBrowser(t, s.URL)
	stale.client.Jar.SetCookies(u, old)
	if _, body := stale.do("GET", "/keys", nil); !strings.Contains(body, `<h1>Log in</h1>`) {
		t.Fatal("the cookie still works after logging out")
	}
	// Wrong password: said in plain words, as an unknown email is.
	for _, email := range []string{"ada@example.com", "nobody@example.com"} {
		if code, body := ada.do("POST", "/login", url.Values{"email": {email}, "password": {"not the password"}}); code != 401 || !strings.Contains(body, "Invalid email or password") {
			t.Fatalf("a failed login for %s: %d", email, code)
		}
	}
	if code, body := ada.do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 || !strings.Contains(body, "revoked") {
		t.Fatalf("log in again: %d", code)
	}
}

// The operator's side: a key made for an account shows on its page;
// accounts list; disabling ends its sessions; sign-up closed.
func TestAccountsForTheOperator(t *testing.T) {
	s := startServer(t, "", "--signup", "closed")
	if code, _ := newBrowser(t, s.URL).do("GET", "/signup", nil); code != 403 {
		t.Fatalf("closed sign-up: %d", code)
	}
	if code, _ := newBrowser(t, s.URL).do("POST", "/signup", url.Values{"email": {"x@example.com"}, "password": {"a long enough password"}}); code != 403 {
		t.Fatalf("closed sign-up, POST: %d", code)
	}
	open := startServer(t, s.DataDir) // the same store, sign-up open
	ada := newBrowser(t, open.URL)
	ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}})
	key := newKey(t, s.DataDir, "--owner", "Ada@example.com")
	waitFor(t, 5*time.Second, "the key on Ada's page", func() bool {
		_, body := ada.do("GET", "/keys", nil)
		return strings.Contains(body, key[:13])
	})
	if out := cli(t, s.DataDir, "accounts", "list"); !strings.Contains(out, "ada@example.com") || !strings.Contains(out, "  1  ") {
		t.Errorf("accounts list:\n%s", out)
	}
	cli(t, s.DataDir, "accounts", "disable", "ada@example.com")
	if _, body := ada.do("GET", "/keys", nil); !strings.Contains(body, `<h1>Log in</h1>`) {
		t.Error("a disabled account's session lives on")
	}
	if code, _ := ada.do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 401 {
		t.Errorf("a disabled account logged in: %d", code)
	}
}

// Ten failed logins for an account from one address in 15 minutes: the
// next from there is 429 with Retry-After, even with the right password.
func TestLoginThrottle(t *testing.T) {
	s := startServer(t, "")
	ada := newBrowser(t, s.URL)
	ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}})
	for range 10 {
		if code, _ := ada.do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"wrong password!"}}); code != 401 {
			t.Fatalf("a failed login: %d", code)
		}
	}
	req, _ := http.NewRequest("POST", s.URL+"/login", strings.NewReader(url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("the 11th login: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
