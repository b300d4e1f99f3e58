package main

import (
	"log"
	"log/slog"
)

// slogErrorLog routes net/http's own messages (TLS handshake errors, …)
// through the structured logger.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}
