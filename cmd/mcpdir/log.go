package main

import (
	"log"
	"log/slog"
)

// secondsAttr is the JSON logs' ReplaceAttr: a duration is a number of
// seconds ("took":1.52), as a collector reads it, not nanoseconds; text
// logs keep "1.52s".
func secondsAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.Float64Value(a.Value.Duration().Seconds())
	}
	return a
}

// slogErrorLog routes net/http's own messages (TLS handshake errors, …)
// through the structured logger.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}

// logFormatFor is the format asked for, or by default text for a person at a
// terminal (durations read 1.5s) and JSON for a collector.
func logFormatFor(asked string, terminal bool) string {
	switch {
	case asked != "":
		return asked
	case terminal:
		return "text"
	}
	return "json"
}
