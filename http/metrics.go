package http

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"

	"github.com/mcpdir/mcpdir"
)

// handleMetrics serves the metrics to a scraper on this machine, and to
// anyone else with an admin key. A request relayed by a proxy (which says
// so in Forwarded, X-Forwarded-For or X-Real-IP) is not local, even though
// it comes from loopback: the public would otherwise reach it through the
// proxy in front. `serve --metrics-addr` serves them on a listener of
// their own instead.
func handleMetrics(metrics http.Handler, guard mcpdir.Guard, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromThisMachine(r) {
			key, err := guard.Authenticate(r.Context(), r.Header.Get("Authorization"))
			if err != nil {
				writeError(w, r, logger, err)
				return
			}
			if key.Scope != mcpdir.ScopeAdmin {
				writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeForbidden, "metrics need an admin key, or a request from this machine"))
				return
			}
		}
		metrics.ServeHTTP(w, r)
	})
}

func fromThisMachine(r *http.Request) bool {
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
