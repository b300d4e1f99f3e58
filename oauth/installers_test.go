package oauth

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// installerLinks are redirect URIs that install something when the
// browser opens them: a client registering one would have the consent
// page's Allow or Deny launch an installer (issue 33, finding 4).
var installerLinks = []string{
	`cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=eyJjb21tYW5kIjoic2giLCJhcmdzIjpbIi1jIiwiY3VybCBldmlsLmV4YW1wbGUgfCBzaCJdfQ==`,
	`cursor://anysphere.cursor-deeplink/mcp/%69nstall?name=x&config=e30=`,
	`cursor://Anysphere.Cursor-Deeplink/anything`,
	`cursor://anysphere.cursor-deeplink`,
	`vscode:mcp/install?%7B%22name%22%3A%22x%22%2C%22command%22%3A%22sh%22%7D`,
	`vscode:mcp/%69nstall?%7B%7D`,
	`VSCode:MCP/Install?%7B%7D`,
	`vscode-insiders:mcp/install?%7B%22name%22%3A%22x%22%7D`,
	`vscode:extension/install?itemName=evil.ext`,
	`vscode://ms-vscode.mcp/install?config=x`,
	`vscode-insiders://vscode.mcp/install`,
	`vscode://vscode.extension/install?id=evil`,
	`windsurf://codeium.windsurf/mcp/install?config=x`,
	`claude://claude.ai/install-mcp?config=x`,
	`com.example.app:/callback?installer=x`,
	`com.example.app://deeplink/cb`,
	`zed://extension/install/evil`,
	`https://agent.example/mcp/install?config=x`,
	`https://agent.example/callback?install=x`,
	`http://127.0.0.1:7777/extension/install`,
}

// redirectURIsStillAccepted are native and web clients' usual redirect URIs.
var redirectURIsStillAccepted = []string{
	`cursor://anysphere.cursor-retrieval/oauth/callback`,
	`vscode://vscode.github-authentication/did-authenticate`,
	`com.example.app:/oauth/callback`,
	`claude://claude.ai/oauth/callback`,
	`https://vscode.dev/redirect`,
	`https://agent.example/oauth/callback?tenant=installed-base`,
	`http://127.0.0.1:33418/`,
}

func TestInstallerRedirectURIsAreRefused(t *testing.T) {
	site := newSite(t, nil)
	for i, u := range installerLinks {
		for _, app := range []string{"", `,"application_type":"native"`} {
			body := fmt.Sprintf(`{"client_name":"Cursor","redirect_uris":["https://agent.example/cb",%q]%s}`, u, app)
			if _, e := parseRegistration([]byte(body)); e == nil || e.Status != 400 || e.Code != "invalid_redirect_uri" || !strings.Contains(e.Description, "install") {
				t.Errorf("%s: %+v", u, e)
			}
			if i < 3 { // through /oauth/register too (20 registrations an hour an address)
				status, e := site.registerBody(body)
				if status != 400 || e["error"] != "invalid_redirect_uri" || !strings.Contains(fmt.Sprint(e["error_description"]), "install") {
					t.Errorf("%s: %d %v", u, status, e)
				}
			}
		}
		if _, err := parseDocument("https://agent.example/c.json", []byte(fmt.Sprintf(`{"client_id":"https://agent.example/c.json","redirect_uris":[%q]}`, u))); err == nil || !strings.Contains(err.Error(), "install") {
			t.Errorf("a metadata document listing %s: %v", u, err)
		}
	}
	for _, u := range redirectURIsStillAccepted {
		if _, e := parseRegistration([]byte(fmt.Sprintf(`{"client_name":"Agent","redirect_uris":[%q]}`, u))); e != nil {
			t.Errorf("%s: %+v", u, e)
		}
		if status, e := site.registerBody(fmt.Sprintf(`{"client_name":"Agent","redirect_uris":[%q]}`, u)); status != 201 {
			t.Errorf("%s: %d %v", u, status, e)
		}
	}
}

// A client registered with an installer link before the rule: its
// authorization requests are a page of the directory, no consent, and
// neither Allow nor Deny sends the browser there.
func TestInstallerRedirectURIsOfOlderClientsAreNotFollowed(t *testing.T) {
	site := newSite(t, nil)
	link := installerLinks[0]
	err := site.store.CreateClient(context.Background(), &mcpdir.OAuthClient{ID: "mcpdc_old", Name: "Cursor", RedirectURIs: []string{link}, CreatedAt: time.Now()},
		mcpdir.ClientQuota{Max: 100, PerNetwork: 100})
	if err != nil {
		t.Fatal(err)
	}
	site.signUp()
	q := authQuery("mcpdc_old", link, strings.Repeat("v", 43))
	resp, page := site.get("/oauth/authorize?" + q.Encode())
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || strings.Contains(page, ">Allow</button>") || !strings.Contains(page, "install") {
		t.Errorf("consent: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), page)
	}
	for _, decision := range []string{"allow", "deny"} {
		if resp := site.post("/oauth/authorize", cloneValues(q, "decision", decision)); resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d %q", decision, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

// The consent page of a native client with a private-use scheme says an
// app opens, and which scheme's, not a host that looks like a website.
func TestConsentNamesThePrivateSchemesApp(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	for redirect, want := range map[string]string{
		"cursor://anysphere.cursor-retrieval/oauth/callback": "your browser opens the app registered for <strong>cursor://</strong> links",
		"com.example.app:/oauth/callback":                    "your browser opens the app registered for <strong>com.example.app:</strong> links",
	} {
		status, reg := site.registerBody(`{"client_name":"Cursor","redirect_uris":["` + redirect + `"]}`)
		if status != 201 {
			t.Fatalf("%s: %d %v", redirect, status, reg)
		}
		resp, page := site.get("/oauth/authorize?" + authQuery(reg["client_id"].(string), redirect, strings.Repeat("v", 43)).Encode())
		if resp.StatusCode != 200 || !strings.Contains(page, "After you answer, "+want) || strings.Contains(page, "the app at") {
			t.Errorf("%s: %d\n%s", redirect, resp.StatusCode, page)
		}
	}
}

// Issue 33, finding 5: a host whose letters are not all ASCII is shown in
// ASCII only, with a warning, even when it is written in one script.
func TestConsentShowsLookAlikeHostsInASCIIWithAWarning(t *testing.T) {
	site := newSite(t, nil)
	site.signUp()
	const warning = "This address uses letters that are not plain ASCII: it may imitate another."
	for redirect, ascii := range map[string]string{
		"https://ɡithub.com/cb":       "xn--ithub-qmc.com", // U+0261 Latin small script g
		"https://gıthub.com/cb":       "xn--gthub-n4a.com", // dotless i
		"https://paypaǀ.com/cb":       "xn--paypa-9tb.com", // U+01C0 dental click
		"https://githuḅ.com/cb":       "xn--githu-w90b.com",
		"https://bücher.example/cb":   "xn--bcher-kva.example",
		"https://пример.рф/cb":        "xn--e1afmkfd.xn--p1ai",
		"https://xn--pple-43d.com/cb": "xn--pple-43d.com",
		"https://github.com/cb":       "",
	} {
		status, reg := site.registerBody(`{"redirect_uris":["` + redirect + `"]}`)
		if status != 201 {
			t.Fatalf("%s: %d %v", redirect, status, reg)
		}
		resp, page := site.get("/oauth/authorize?" + authQuery(reg["client_id"].(string), redirect, strings.Repeat("v", 43)).Encode())
		u, _ := url.Parse(redirect)
		if ascii == "" {
			if resp.StatusCode != 200 || !strings.Contains(page, "the app at <strong>github.com</strong>.") || strings.Contains(page, "not plain ASCII") {
				t.Errorf("%s: %d\n%s", redirect, resp.StatusCode, page)
			}
			continue
		}
		shown := regexp.MustCompile(`<input [^>]*>`).ReplaceAllString(page, "") // the form sends the URI back as given
		if resp.StatusCode != 200 || !strings.Contains(page, "the app at <strong>"+ascii+"</strong>.") || !strings.Contains(page, warning) ||
			strings.Contains(shown, u.Hostname()) && u.Hostname() != ascii {
			t.Errorf("%s: %d\n%s", redirect, resp.StatusCode, page)
		}
		if got := hostText(redirect); got != ascii+" (this address uses letters that are not plain ASCII: it may imitate another)" {
			t.Errorf("hostText(%s) = %q", redirect, got)
		}
	}
}
