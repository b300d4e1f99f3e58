package oauth

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/auth"
)

// BenchmarkAuthenticate measures what a request pays to be let in, side by
// side in one run: an API key, and an OAuth access token (both already
// seen, as on every request after the first).
//
//	go test -run XXX -bench Authenticate -count 5 ./oauth
func BenchmarkAuthenticate(b *testing.B) {
	site := newSite(b, nil)
	ctx := context.Background()
	key, _, err := auth.CreateKey(ctx, site.store, auth.KeySpec{Name: "bench", Scope: mcpdir.ScopeSearch, RateLimit: mcpdir.DefaultRateLimit})
	if err != nil {
		b.Fatal(err)
	}
	site.signUp()
	clientID, redirect := site.register()
	verifier := strings.Repeat("v", 43)
	code := site.allow(authQuery(clientID, redirect, verifier))
	_, tok := site.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}})
	for name, header := range map[string]string{"key": "Bearer " + key, "token": "Bearer " + tok["access_token"].(string)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := site.guard.Authenticate(ctx, header); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
