package main

import (
	"bytes"
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// /admin as an ordinary and as a promoted account, the roles given at the
// command line (audited as the cli's), accounts list showing them; a
// demoted account is ordinary again.
func TestAdminPageAndAccountRoles(t *testing.T) {
	s := startServer(t, "")
	boss, ada := newBrowser(t, s.URL), newBrowser(t, s.URL)
	boss.do("POST", "/signup", url.Values{"email": {"boss@example.com"}, "password": {"a long enough password"}})
	ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}})
	if code, body := boss.do("GET", "/admin", nil); code != 403 || !strings.Contains(body, "Forbidden") {
		t.Fatalf("before promotion: %d", code)
	}
	if out := cli(t, s.DataDir, "accounts", "promote", "Boss@example.com"); !strings.Contains(out, "promoted boss@example.com") {
		t.Fatalf("promote: %s", out)
	}
	if out := cli(t, s.DataDir, "accounts", "list"); !strings.Contains(out, "ROLE") || !strings.Contains(out, "boss@example.com  admin") {
		t.Errorf("accounts list:\n%s", out)
	}
	code, body := boss.do("GET", "/admin", nil)
	if code != 200 {
		t.Fatalf("promoted: %d", code)
	}
	for _, want := range []string{"Searches of the last 7 days", "Answered nothing", "Keys and apps by use", "Recent tool changes",
		"Poisoning warnings", "Registry sync", "Conflicts", "Recent actions (audit)", `id="entries"`, "account.promote"} {
		if !strings.Contains(body, want) {
			t.Errorf("/admin lacks %q", want)
		}
	}
	if code, _ := ada.do("GET", "/admin", nil); code != 403 {
		t.Errorf("an ordinary account: %d", code)
	}
	// An action from the page, in the audit as the account's.
	m := regexp.MustCompile(`action="/admin/entries/([0-9a-f-]{36})/approve"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no entry to approve on /admin")
	}
	e := m[1]
	if code, _ := boss.do("POST", "/admin/entries/"+e+"/approve", url.Values{}); code != 200 { // followed to /admin
		t.Fatalf("approve: %d", code)
	}
	if _, body := boss.do("GET", "/admin", nil); !strings.Contains(body, "account boss@example.com") || !strings.Contains(body, "entry.approve") {
		t.Error("the approval is not in the audit")
	}
	cli(t, s.DataDir, "accounts", "demote", "boss@example.com")
	if code, _ := boss.do("GET", "/admin", nil); code != 403 {
		t.Errorf("demoted: %d", code)
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"mcpdir", "accounts", "promote", "nobody@example.com", "--data-dir", s.DataDir}, noEnv, nil, &bytes.Buffer{}, &stderr); err == nil {
		t.Error("promoting an unknown account")
	}
}
