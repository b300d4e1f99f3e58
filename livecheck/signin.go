package livecheck

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpdir/mcpdir"
)

// maxIssuersRead bounds the authorization servers whose metadata a check
// reads: each costs up to three requests.
const maxIssuersRead = 3

// signIn finds out how a client would sign in to a server that answered
// 401 or 403, as the SDK's client does before it asks its user
// (auth.AuthorizationCodeHandler): the protected resource metadata (RFC
// 9728) that the challenge's resource_metadata names, else the one at the
// well-known URI under the endpoint's path, else at its root; the
// authorization servers it names (a server without one: its own origin, as
// MCP 2025-03-26 had it, when that serves metadata); and, from their
// metadata (RFC 8414, else OpenID Connect discovery), whether a client
// that has not registered can sign in with a Client ID Metadata Document
// or by registering itself. The SDK's functions validate what they read
// (the resource it names, issuers, URL schemes); every request goes
// through hc, the check's guarded and bounded client.
func signIn(ctx context.Context, hc *http.Client, ch *challenge) *mcpdir.LiveAuth {
	a := &mcpdir.LiveAuth{}
	if ch == nil {
		return a
	}
	// A malformed challenge still leaves the well-known URIs to try.
	challenges, _ := oauthex.ParseWWWAuthenticate(ch.header)
	for _, u := range resourceMetadataURLs(resourceMetadata(challenges), ch.url) {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, hc)
		if err == nil && prm != nil {
			a.ResourceMetadata, a.AuthorizationServers = u.url, prm.AuthorizationServers
			break
		}
	}
	issuers := a.AuthorizationServers
	if o := origin(ch.url); a.ResourceMetadata == "" && o != "" {
		issuers = []string{o}
	}
	for _, issuer := range issuers[:min(len(issuers), maxIssuersRead)] {
		asm, err := auth.GetAuthServerMetadata(ctx, issuer, hc)
		if err != nil || asm == nil {
			continue
		}
		if a.ResourceMetadata == "" {
			a.AuthorizationServers = []string{issuer}
		}
		a.ClientIDMetadataDocuments = a.ClientIDMetadataDocuments || asm.ClientIDMetadataDocumentSupported
		a.DynamicRegistration = a.DynamicRegistration || asm.RegistrationEndpoint != ""
	}
	return mcpdir.CleanLiveAuth(a)
}

// resourceMetadata is the resource_metadata a challenge names, if any.
func resourceMetadata(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if u := c.Params["resource_metadata"]; u != "" {
			return u
		}
	}
	return ""
}

// metadataURL is where protected resource metadata may be, and the
// resource it must then name (RFC 9728 §3.3).
type metadataURL struct{ url, resource string }

// resourceMetadataURLs are the URLs the SDK's client tries, in its order:
// the challenge's, then the well-known URI with the endpoint's path, then
// at the root (for the origin as the resource).
func resourceMetadataURLs(fromChallenge, endpoint string) []metadataURL {
	var out []metadataURL
	if fromChallenge != "" {
		out = append(out, metadataURL{fromChallenge, endpoint})
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return out
	}
	m := *u
	m.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	out = append(out, metadataURL{m.String(), endpoint})
	m.Path = "/.well-known/oauth-protected-resource"
	return append(out, metadataURL{m.String(), origin(endpoint)})
}

// origin is a URL without its path (the SDK keeps the query and fragment:
// an endpoint has neither in practice).
func origin(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	u.Path = ""
	return u.String()
}
