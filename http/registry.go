package http

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Who may read the registry API (Config.RegistryAccess).
const (
	RegistryPublic = "public" // anyone, at most RegistryPerMinute requests a minute per address
	RegistryKey    = "key"    // holders of a key; reading spends no search budget
)

// registryAccess wraps the registry API's handlers as its access says. Its
// refusals are in the registry API's own form, {"error": "…"}.
func registryAccess(cfg Config) func(http.Handler) http.Handler {
	if cfg.RegistryAccess == RegistryKey {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := cfg.Guard.Authenticate(r.Context(), r.Header.Get("Authorization")); err != nil {
					w.Header().Set("WWW-Authenticate", "Bearer")
					registryError(w, http.StatusUnauthorized, "a key is required: Authorization: Bearer <key>")
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	if cfg.RegistryPerMinute <= 0 || cfg.PageLimiter == nil {
		return func(h http.Handler) http.Handler { return h }
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, err := cfg.PageLimiter.Allow(r.Context(), "registry:"+cfg.TrustedProxies.ClientIP(r), cfg.RegistryPerMinute, time.Minute)
			if err == nil && !d.Allowed {
				w.Header().Set("Retry-After", strconv.Itoa(mcpdir.RetryAfterSeconds(d)))
				registryError(w, http.StatusTooManyRequests, "too many requests from this address: try again later")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func registryError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
