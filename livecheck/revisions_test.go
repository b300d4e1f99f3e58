package livecheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/netguard"
)

// sent is what a server was sent: each request's method (the HTTP one,
// then the JSON-RPC one) and MCP headers.
type sent struct {
	mu       sync.Mutex
	requests []request
}

type request struct {
	httpMethod, rpcMethod, version, mcpMethod, metaVersion string
}

func (s *sent) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		meta, _ := msg.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
		s.mu.Lock()
		s.requests = append(s.requests, request{r.Method, msg.Method, r.Header.Get("MCP-Protocol-Version"), r.Header.Get("Mcp-Method"), meta})
		s.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (s *sent) methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		if r.rpcMethod != "" {
			out = append(out, r.rpcMethod)
		}
	}
	return out
}

var legacy = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// The official Go SDK's server in each revision it serves: the checker
// finds each up, with the revision agreed and those the server lists. The
// 2026-07-28 revision needs the SDK's stateless Streamable HTTP handler;
// a server restricted to it answers no initialize, so a check of it is a
// check in that revision alone.
func TestProtocolRevisions(t *testing.T) {
	only := func(v string) *sdk.ServerOptions { return &sdk.ServerOptions{SupportedProtocolVersions: []string{v}} }
	streamable := func(o *sdk.ServerOptions, ho *sdk.StreamableHTTPOptions) http.Handler {
		s := mcpServerOf(o)
		return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, ho)
	}
	stateless := &sdk.StreamableHTTPOptions{Stateless: true}
	for _, c := range []struct {
		name, transport string
		handler         http.Handler
		agreed          string
		versions        []string
		initialize      bool // whether the check falls back to initialize
	}{
		{"2024-11-05 over SSE", mcpdir.TransportSSE, func() http.Handler {
			s := mcpServerOf(only("2024-11-05"))
			return sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil)
		}(), "2024-11-05", []string{"2024-11-05"}, true},
		{"2025-03-26", mcpdir.TransportStreamableHTTP, streamable(only("2025-03-26"), nil), "2025-03-26", []string{"2025-03-26"}, true},
		{"2025-06-18", mcpdir.TransportStreamableHTTP, streamable(only("2025-06-18"), nil), "2025-06-18", []string{"2025-06-18"}, true},
		{"2025-11-25", mcpdir.TransportStreamableHTTP, streamable(only("2025-11-25"), nil), "2025-11-25", []string{"2025-11-25"}, true},
		// A stateful handler lists the revisions before 2026-07-28 in its
		// answer to server/discover.
		{"every revision before 2026-07-28", mcpdir.TransportStreamableHTTP, streamable(nil, nil), "2025-11-25", legacy, true},
		{"2026-07-28 alone", mcpdir.TransportStreamableHTTP, streamable(only("2026-07-28"), stateless), "2026-07-28", []string{"2026-07-28"}, false},
		{"2026-07-28 and before", mcpdir.TransportStreamableHTTP, streamable(nil, stateless), "2026-07-28", append([]string{"2026-07-28"}, legacy...), false},
		{"2026-07-28 in JSON", mcpdir.TransportStreamableHTTP, streamable(nil, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}),
			"2026-07-28", append([]string{"2026-07-28"}, legacy...), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s sent
			res := check(t, checker(true), serve(t, s.record(c.handler)), c.transport)
			wantUp(t, res)
			if res.ProtocolVersion != c.agreed || !slices.Equal(res.ProtocolVersions, c.versions) {
				t.Errorf("protocol %s of %v, want %s of %v", res.ProtocolVersion, res.ProtocolVersions, c.agreed, c.versions)
			}
			// The stateless revision is asked first, then initialize if need be.
			methods := s.methods()
			if len(methods) == 0 || methods[0] != "server/discover" || slices.Contains(methods, "initialize") != c.initialize {
				t.Errorf("sent %v", methods)
			}
		})
	}
}

// A request in the 2026-07-28 revision carries what the revision requires:
// the MCP-Protocol-Version and Mcp-Method headers, and the version in
// _meta, matching; and no session.
func TestStatelessRequests(t *testing.T) {
	s := mcpServerOf(&sdk.ServerOptions{SupportedProtocolVersions: []string{"2026-07-28"}})
	var got sent
	url := serve(t, got.record(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})))
	wantUp(t, check(t, checker(true), url, mcpdir.TransportStreamableHTTP))
	got.mu.Lock()
	defer got.mu.Unlock()
	var methods []string
	for _, r := range got.requests {
		methods = append(methods, r.rpcMethod)
		if r.httpMethod != http.MethodPost || r.version != "2026-07-28" || r.mcpMethod != r.rpcMethod || r.metaVersion != "2026-07-28" {
			t.Errorf("request %+v", r)
		}
	}
	if !slices.Equal(methods, []string{"server/discover", "tools/list"}) {
		t.Errorf("sent %v, want server/discover then tools/list", methods)
	}
}

// metadata serves a JSON document.
func metadata(doc any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}
}

// asMetadata is an authorization server's metadata (RFC 8414), with PKCE,
// and more.
func asMetadata(issuer string, more map[string]any) map[string]any {
	m := map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}}
	for k, v := range more {
		m[k] = v
	}
	return m
}

// prMetadata is protected resource metadata (RFC 9728).
func prMetadata(resource string, servers ...string) map[string]any {
	return map[string]any{"resource": resource, "authorization_servers": servers}
}

// authServer is an authorization server whose issuer is its URL plus
// path, its metadata where RFC 8414 puts it, or with oidc where OpenID
// Connect discovery does (appended to the issuer).
func authServer(t *testing.T, path string, oidc bool, more map[string]any) string {
	var issuer string
	at := "GET /.well-known/oauth-authorization-server" + path
	if oidc {
		at = "GET " + path + "/.well-known/openid-configuration"
	}
	mux := http.NewServeMux()
	mux.HandleFunc(at, func(w http.ResponseWriter, r *http.Request) { metadata(asMetadata(issuer, more))(w, r) })
	issuer = serve(t, mux) + path
	return issuer
}

// protected is an MCP endpoint at /mcp that answers every request with
// code and challenge, and serves docs; %s in either is the server's URL.
func protected(t *testing.T, code int, challenge string, docs map[string]func(base string) any) string {
	mux := http.NewServeMux()
	for path, doc := range docs {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) { metadata(doc("http://"+r.Host))(w, r) })
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if challenge != "" {
			w.Header().Set("WWW-Authenticate", strings.ReplaceAll(challenge, "%s", "http://"+r.Host))
		}
		http.Error(w, "sign in", code)
	})
	return serve(t, mux) + "/mcp"
}

// A server behind OAuth needs sign-in; the check records, as the SDK's
// client would find them, its resource metadata, the authorization
// servers it names and how a client that has not registered signs in.
func TestSignInDiscovery(t *testing.T) {
	both := authServer(t, "", false, map[string]any{"registration_endpoint": "https://as.example/register", "client_id_metadata_document_supported": true})
	dcr := authServer(t, "/tenant", true, map[string]any{"registration_endpoint": "https://as.example/register"})
	cimd := authServer(t, "/cimd", false, map[string]any{"client_id_metadata_document_supported": true})
	noPKCE := authServer(t, "", false, map[string]any{"registration_endpoint": "https://as.example/register", "code_challenge_methods_supported": nil})
	type docs = map[string]func(base string) any
	for _, c := range []struct {
		name      string
		code      int
		challenge string
		docs      docs
		want      mcpdir.LiveAuth // %s in its URLs: the server's URL
	}{
		{"named in the challenge", http.StatusUnauthorized, `Bearer realm="x", resource_metadata="%s/meta/prm"`,
			docs{"/meta/prm": func(base string) any { return prMetadata(base+"/mcp", both) }},
			mcpdir.LiveAuth{ResourceMetadata: "%s/meta/prm", AuthorizationServers: []string{both}, ClientIDMetadataDocuments: true, DynamicRegistration: true}},
		{"403 and several servers", http.StatusForbidden, `Bearer resource_metadata="%s/meta/prm"`,
			docs{"/meta/prm": func(base string) any { return prMetadata(base+"/mcp", dcr, cimd) }},
			mcpdir.LiveAuth{ResourceMetadata: "%s/meta/prm", AuthorizationServers: []string{dcr, cimd}, ClientIDMetadataDocuments: true, DynamicRegistration: true}},
		{"at the well-known URI of the endpoint", http.StatusUnauthorized, `Bearer realm="x"`,
			docs{"/.well-known/oauth-protected-resource/mcp": func(base string) any { return prMetadata(base+"/mcp", dcr) }},
			mcpdir.LiveAuth{ResourceMetadata: "%s/.well-known/oauth-protected-resource/mcp", AuthorizationServers: []string{dcr}, DynamicRegistration: true}},
		// At the root, the resource is the origin.
		{"at the well-known URI of the root, no challenge", http.StatusUnauthorized, "",
			docs{"/.well-known/oauth-protected-resource": func(base string) any { return prMetadata(base, cimd) }},
			mcpdir.LiveAuth{ResourceMetadata: "%s/.well-known/oauth-protected-resource", AuthorizationServers: []string{cimd}, ClientIDMetadataDocuments: true}},
		// The SDK's client signs in with PKCE only.
		{"an authorization server without PKCE", http.StatusUnauthorized, `Bearer resource_metadata="%s/meta/prm"`,
			docs{"/meta/prm": func(base string) any { return prMetadata(base+"/mcp", noPKCE) }},
			mcpdir.LiveAuth{ResourceMetadata: "%s/meta/prm", AuthorizationServers: []string{noPKCE}}},
		// RFC 9728 §3.3: a document for another resource is not the server's.
		{"metadata of another resource", http.StatusUnauthorized, `Bearer resource_metadata="%s/meta/prm"`,
			docs{"/meta/prm": func(string) any { return prMetadata("https://other.example/mcp", both) }},
			mcpdir.LiveAuth{}},
		// MCP 2025-03-26: without resource metadata, the server's origin is
		// its authorization server.
		{"the server's own origin", http.StatusUnauthorized, `Bearer`,
			docs{"/.well-known/oauth-authorization-server": func(base string) any {
				return asMetadata(base, map[string]any{"registration_endpoint": base + "/register"})
			}},
			mcpdir.LiveAuth{AuthorizationServers: []string{"%s"}, DynamicRegistration: true}},
		{"no metadata", http.StatusUnauthorized, `Bearer realm="x"`, nil, mcpdir.LiveAuth{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := protected(t, c.code, c.challenge, c.docs)
			base := strings.TrimSuffix(url, "/mcp")
			want := c.want
			want.ResourceMetadata = strings.ReplaceAll(want.ResourceMetadata, "%s", base)
			want.AuthorizationServers = nil
			for _, s := range c.want.AuthorizationServers {
				want.AuthorizationServers = append(want.AuthorizationServers, strings.ReplaceAll(s, "%s", base))
			}
			for _, transport := range []string{mcpdir.TransportStreamableHTTP, mcpdir.TransportSSE} {
				res := check(t, checker(true), url, transport)
				if res.Status != mcpdir.LiveAuthRequired || res.Auth == nil {
					t.Fatalf("over %s: %s (%s), auth %+v, want auth_required", transport, res.Status, res.Reason, res.Auth)
				}
				if !reflect.DeepEqual(*res.Auth, want) {
					t.Errorf("over %s: auth %+v, want %+v", transport, *res.Auth, want)
				}
				if res.ProtocolVersion != "" || res.ProtocolVersions != nil || res.Tools != nil {
					t.Errorf("over %s: a server that wants sign-in has versions or tools: %+v", transport, res)
				}
			}
		})
	}
}

// Sign-in is looked for through the guard: a server on a public address
// whose challenge names a document on a private one has it refused, never
// fetched.
func TestSignInStaysOutOfPrivateNetworks(t *testing.T) {
	var reached atomic.Int32
	private := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		metadata(prMetadata("x", "https://as.example"))(w, r)
	}))
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+private+`/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(public.Close)
	// mcp.example is on a public address; a test dialer reaches it on
	// loopback, past the guard's check.
	addr := netip.MustParseAddrPort(public.Listener.Addr().String())
	guard := netguard.New(netguard.Options{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "mcp.example" {
				return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
		Dial: func(ctx context.Context, network string, ap netip.AddrPort) (net.Conn, error) {
			if ap.Addr() != netip.MustParseAddr("93.184.215.14") {
				t.Errorf("dialled %s", ap)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr.String())
		},
	})
	c := &livecheck.Checker{Guard: guard, Timeout: testTimeout, Version: "test"}
	res := check(t, c, "http://mcp.example:"+strconv.Itoa(int(addr.Port()))+"/mcp", mcpdir.TransportStreamableHTTP)
	if res.Status != mcpdir.LiveAuthRequired || res.Auth == nil || res.Auth.ResourceMetadata != "" || len(res.Auth.AuthorizationServers) != 0 {
		t.Fatalf("%s (%s), auth %+v", res.Status, res.Reason, res.Auth)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the private document was fetched %d times", n)
	}
}

// Looking for sign-in keeps to the check's bounds: a metadata document
// that never ends is cut short (at the byte budget, or the SDK's own 1 MiB
// a document), one that never comes at the check's timeout.
func TestSignInIsBounded(t *testing.T) {
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"resource": "`)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, strings.Repeat("x", 4000)); err != nil {
				return
			}
		}
	}
	silent := func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	for name, h := range map[string]http.HandlerFunc{"endless": endless, "silent": silent} {
		t.Run(name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/prm", h)
			mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/prm"`)
				w.WriteHeader(http.StatusUnauthorized)
			})
			c := checker(true)
			c.MaxBytes = 64 << 10
			res := check(t, c, serve(t, mux)+"/mcp", mcpdir.TransportStreamableHTTP) // within the timeout
			if res.Status != mcpdir.LiveAuthRequired || res.Auth == nil || res.Auth.ResourceMetadata != "" || res.Latency > testTimeout/2 {
				t.Fatalf("%s (%s) in %s, auth %+v", res.Status, res.Reason, res.Latency, res.Auth)
			}
		})
	}
}
