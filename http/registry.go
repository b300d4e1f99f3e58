package http

import (
	"net/http"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/wire"
)

// Who may read the registry API (Config.RegistryAccess).
const (
	RegistryPublic = "public" // anyone, at most RegistryPerMinute requests a minute per address (IPv6: per /64)
	RegistryKey    = "key"    // holders of a key; reading spends no search budget
)

// registryAccess wraps the registry API's handlers as its access says. Its
// refusals are in the registry API's own form, {"error": "…"}.
func registryAccess(cfg Config) func(http.Handler) http.Handler {
	if cfg.RegistryAccess == RegistryKey {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := cfg.Guard.Authenticate(r.Context(), r.Header.Get("Authorization")); err != nil {
					refused(insightOf(cfg), mcpdir.DoorRegistry, err)
					w.Header().Set("WWW-Authenticate", "Bearer")
					registryapi.Fail(w, http.StatusUnauthorized, "a key is required: Authorization: Bearer <key>")
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	return perAddress(cfg, "registry:", cfg.RegistryPerMinute, mcpdir.DoorRegistry, func(w http.ResponseWriter, r *http.Request) {
		registryapi.Fail(w, http.StatusTooManyRequests, "too many requests from this address: try again later")
	})
}

// registryAdmin lets admin keys through to the registry API's write side,
// spending their admin budget, and refuses others in the registry API's
// form (with the stable code beside the message).
func registryAdmin(cfg Config) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			refuse := func(err error) {
				code := mcpdir.ErrorCode(err)
				status, ok := statusOf[code]
				if !ok {
					status = http.StatusBadRequest
				}
				if status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", "Bearer")
				}
				if status == http.StatusInternalServerError && cfg.Logger != nil {
					cfg.Logger.ErrorContext(r.Context(), "registry API: authorize", "err", err)
				}
				writeJSON(w, status, map[string]string{"error": mcpdir.ErrorMessage(err), "code": code})
			}
			key, err := cfg.AdminGuard.Authenticate(r.Context(), r.Header.Get("Authorization"))
			if err != nil {
				refuse(err)
				return
			}
			if key.Scope != mcpdir.ScopeAdmin {
				refuse(mcpdir.Errorf(mcpdir.ECodeForbidden, "publishing needs an admin key: the key's scope is %s", key.Scope))
				return
			}
			d, err := cfg.AdminGuard.SpendAdmin(r.Context(), key)
			if err != nil {
				refuse(err)
				return
			}
			wire.SetRateLimitHeaders(w.Header(), d)
			if !d.Allowed {
				refuse(mcpdir.RateLimitedError(d))
				return
			}
			next.ServeHTTP(w, r.WithContext(mcpdir.WithActor(r.Context(), mcpdir.KeyActor(key))))
		})
	}
}
