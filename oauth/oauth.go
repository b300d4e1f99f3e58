// Package oauth is the directory's OAuth 2.1 authorization server for MCP
// clients (the MCP authorization specification): protected-resource and
// authorization-server metadata, dynamic client registration, Client ID
// Metadata Documents, authorization with PKCE and a consent page, a token
// endpoint with refresh-token rotation, and revocation. Its access tokens
// are a second way in to the MCP endpoint and REST search, beside API
// keys: each grant spends a budget of its own, where key budgets live.
//
// It is written on the standard library and the official Go SDK's
// metadata types rather than on a general OAuth library: the directory
// needs one public-client flow (authorization code + PKCE, refresh,
// revocation), no OpenID Connect, no JWTs and no client secrets, and opaque
// tokens stored as hashes fit the stores and the change feed the keys
// already use.
package oauth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/clientnet"
	"github.com/mcpdir/mcpdir/web"
)

// Lifetimes.
const (
	CodeLifetime    = 60 * time.Second
	AccessLifetime  = time.Hour
	RefreshIdle     = 30 * 24 * time.Hour // a refresh token unused this long expires
	UnusedClientTTL = time.Hour           // a registration no grant or code uses is deleted after this
	SweepEvery      = 10 * time.Minute    // how often Sweep should run: unused registrations go fast
)

// Bounds.
const (
	MaxClients            = 10_000 // registered clients at once (Config.MaxClients)
	MaxClientsPerNetwork  = 100    // of them from one IPv4 /24 or IPv6 /64 (Config.MaxClientsPerNetwork)
	RegistrationsPerHour  = 20     // per client address (IPv6: per /64)
	maxRegistrationBytes  = 16 << 10
	maxTokenRequestBytes  = 16 << 10
	maxRedirectURIs       = 10
	maxRedirectURIBytes   = 2048
	maxClientNameRunes    = 100
	maxStateBytes         = 1024 // state and scope of an authorization request
	maxCachedAccessTokens = 10_000
	// MaxGrantsPerAccount bounds an account's grants like its keys: a new
	// grant past it revokes the one unused for the longest.
	MaxGrantsPerAccount = 20
	// TokenRequestsPerMinute bounds the token endpoint per client address
	// (every request) and per client (requests that bring a valid code or
	// refresh token of it).
	TokenRequestsPerMinute = 60
)

// Token prefixes: secret scanners can recognise them, and the guard tells
// an access token from an API key (mcpd_…) by its start.
const (
	AccessPrefix  = "mcpdat_"
	RefreshPrefix = "mcpdrt_"
	clientPrefix  = "mcpdc_"
	// grantKeyPrefix starts the key id a grant's requests carry: its
	// budget's name and what the access log shows.
	grantKeyPrefix = "oauth:"
)

// Pages is what the authorization pages need of the web side (web.Pages).
type Pages interface {
	SignedIn(r *http.Request) *mcpdir.Account
	ShowConsent(w http.ResponseWriter, r *http.Request, c *web.Consent)
	Message(w http.ResponseWriter, r *http.Request, status int, title, message string)
}

// Accounts tells whether the account behind a code or a grant is still
// active (the account store).
type Accounts interface {
	AccountByID(ctx context.Context, id string) (*mcpdir.Account, error)
}

// Budgets tells how much of a grant's budget is spent (auth.Service).
type Budgets interface {
	Used(ctx context.Context, k *mcpdir.APIKey) (int, bool)
}

// Observer counts what happens (metrics).
type Observer interface {
	OAuthRegistered()
	OAuthAuthorized(allowed bool)
	OAuthGranted(grantType string)
	OAuthRefused(reason string)
}

// Config is what the server needs.
type Config struct {
	Store    mcpdir.OAuthStore
	Accounts Accounts
	// Limiter counts registrations per client address (the shared limiter
	// when replicas share Redis).
	Limiter mcpdir.RateLimiter
	Budgets Budgets
	Pages   Pages
	// ClientIP is the client's address; every per-address limit here
	// counts it by clientnet.Key (an IPv6 address by its /64).
	ClientIP func(*http.Request) string
	// MaxClients and MaxClientsPerNetwork bound registered clients (0:
	// the defaults of the same names).
	MaxClients, MaxClientsPerNetwork int
	// PublicURL is the issuer and the base of the resource,
	// PublicURL/api/open/mcp.
	PublicURL string
	// Documents fetches Client ID Metadata Documents; nil: clients must
	// register.
	Documents *Documents
	Logger    *slog.Logger
	Observer  Observer // nil: none
}

// Server is the authorization server and the verifier of its tokens.
type Server struct {
	cfg      Config
	issuer   string
	resource string
	now      func() time.Time

	mu    sync.Mutex
	cache map[[32]byte]*mcpdir.APIKey // access tokens seen, by hash
	gone  map[string]time.Time        // grants revoked, kept as long as their access tokens could live
	used  map[string]time.Time        // grants' last-used times not yet written

	lookups map[string]*lookupWindow // store lookups of unseen tokens, by client address
}

// ResourcePath is the protected resource, the MCP endpoint.
const ResourcePath = "/api/open/mcp"

// New returns the server.
func New(cfg Config) *Server {
	issuer := strings.TrimRight(cfg.PublicURL, "/")
	s := &Server{cfg: cfg, issuer: issuer, resource: issuer + ResourcePath, now: time.Now,
		cache: map[[32]byte]*mcpdir.APIKey{}, gone: map[string]time.Time{}, used: map[string]time.Time{}, lookups: map[string]*lookupWindow{}}
	if s.cfg.Observer == nil {
		s.cfg.Observer = nopObserver{}
	}
	if ip := cfg.ClientIP; ip != nil {
		s.cfg.ClientIP = func(r *http.Request) string { return clientnet.Key(ip(r)) }
	}
	s.cfg.MaxClients = cmp.Or(s.cfg.MaxClients, MaxClients)
	s.cfg.MaxClientsPerNetwork = cmp.Or(s.cfg.MaxClientsPerNetwork, MaxClientsPerNetwork)
	return s
}

// ResourceMetadataURL is where the protected resource's metadata is: what
// a 401 from the MCP endpoint points clients to.
func (s *Server) ResourceMetadataURL() string {
	return s.issuer + "/.well-known/oauth-protected-resource" + ResourcePath
}

// ProtectedResourceMetadata is the MCP endpoint's protected resource
// metadata (RFC 9728), served at /.well-known/oauth-protected-resource and
// under it at the endpoint's path (ResourcePath).
func (s *Server) ProtectedResourceMetadata() http.Handler {
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               s.resource,
		AuthorizationServers:   []string{s.issuer},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Open MCP Directory",
		ResourceDocumentation:  s.issuer + "/",
	})
}

// The authorization server's handlers, which http/routes.go maps: its
// metadata (RFC 8414), the authorization page (GET) and the person's
// answer (POST; the page limit and cross-origin protection are the
// router's), registration (RFC 7591), tokens and revocation. Those that
// clients call from browsers answer CORS preflights.
func (s *Server) Metadata() http.Handler  { return cors("GET", http.HandlerFunc(s.metadata)) }
func (s *Server) Authorize() http.Handler { return http.HandlerFunc(s.authorize) }
func (s *Server) Decide() http.Handler    { return http.HandlerFunc(s.decide) }
func (s *Server) Register() http.Handler  { return cors("POST", http.HandlerFunc(s.register)) }
func (s *Server) Token() http.Handler     { return cors("POST", http.HandlerFunc(s.token)) }
func (s *Server) Revoke() http.Handler    { return cors("POST", http.HandlerFunc(s.revoke)) }

// metadata is the authorization server's metadata (RFC 8414).
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + "/oauth/authorize",
		"token_endpoint":                                 s.issuer + "/oauth/token",
		"registration_endpoint":                          s.issuer + "/oauth/register",
		"revocation_endpoint":                            s.issuer + "/oauth/revoke",
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"client_id_metadata_document_supported":          s.cfg.Documents != nil,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          s.issuer + "/",
	})
}

// cors lets pages of any origin call an endpoint that takes no cookies:
// browser-based MCP clients discover, register and exchange tokens too.
func cors(method string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch {
		case r.Method == http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", method+", OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		case r.Method == method, method == http.MethodGet && r.Method == http.MethodHead:
			next.ServeHTTP(w, r)
		default:
			h.Set("Allow", method+", OPTIONS")
			writeOAuthError(w, http.StatusMethodNotAllowed, "invalid_request", "use "+method)
		}
	})
}

// newSecret is a random token with a prefix.
func newSecret(prefix string) string { return prefix + rand.Text() }

func hashOf(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

type nopObserver struct{}

func (nopObserver) OAuthRegistered()     {}
func (nopObserver) OAuthAuthorized(bool) {}
func (nopObserver) OAuthGranted(string)  {}
func (nopObserver) OAuthRefused(string)  {}
