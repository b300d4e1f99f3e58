package main

import (
	"context"
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

// secondsHandler writes what secondsAttr would make of each attribute to a
// handler without ReplaceAttr: slog calls a ReplaceAttr for every attribute
// of every line, built-in ones too, on a slower path, and the access line
// of every request has no duration (issue 36: an access line cost 35% more
// with the ReplaceAttr). Only a line that holds a duration is rewritten.
//
// The handler newLogger makes writes plain lines itself (plainLines);
// those it makes with attributes or a group leave every line to slog.
type secondsHandler struct {
	slog.Handler
	plain *plainLines
}

func (h secondsHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.plain != nil {
		if written, err := h.plain.write(r); written {
			return err
		}
	}
	timed := false
	r.Attrs(func(a slog.Attr) bool {
		timed = hasDuration(a.Value)
		return !timed
	})
	if !timed {
		return h.Handler.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(inSeconds(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h secondsHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = inSeconds(a)
	}
	return secondsHandler{Handler: h.Handler.WithAttrs(out)}
}

func (h secondsHandler) WithGroup(name string) slog.Handler {
	return secondsHandler{Handler: h.Handler.WithGroup(name)}
}

// hasDuration reports whether v is or holds a duration.
func hasDuration(v slog.Value) bool {
	switch v.Kind() {
	case slog.KindDuration:
		return true
	case slog.KindLogValuer:
		return hasDuration(v.Resolve())
	case slog.KindGroup:
		for _, a := range v.Group() {
			if hasDuration(a.Value) {
				return true
			}
		}
	}
	return false
}

// inSeconds is a, its durations (in groups too) made seconds by secondsAttr.
func inSeconds(a slog.Attr) slog.Attr {
	a.Value = a.Value.Resolve()
	if a.Value.Kind() != slog.KindGroup {
		return secondsAttr(nil, a)
	}
	g := a.Value.Group()
	out := make([]slog.Attr, len(g))
	for i, m := range g {
		out[i] = inSeconds(m)
	}
	return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
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
