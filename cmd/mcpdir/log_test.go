package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

type durationValuer time.Duration

func (d durationValuer) LogValue() slog.Value { return slog.DurationValue(time.Duration(d)) }

// secondsHandler writes what a JSON handler with secondsAttr as its
// ReplaceAttr writes, byte for byte: lines with and without durations, in
// groups, in attributes given With, and resolved from LogValuers.
func TestSecondsHandlerAsReplaceAttr(t *testing.T) {
	var want, got strings.Builder
	var hw slog.Handler = slog.NewJSONHandler(&want, &slog.HandlerOptions{ReplaceAttr: secondsAttr, Level: slog.LevelDebug})
	var hg slog.Handler = secondsHandler{slog.NewJSONHandler(&got, &slog.HandlerOptions{Level: slog.LevelDebug})}
	at := time.Date(2026, 11, 29, 3, 30, 0, 123456789, time.UTC)
	lines := [][]slog.Attr{
		{slog.String("id", "x-1"), slog.Int("status", 200), slog.Float64("ms", 0.25), slog.String("remote", "<a&b>")},
		{slog.Duration("took", 1520*time.Millisecond)},
		{slog.Group("g", slog.Duration("wait", 250*time.Millisecond), slog.Int("n", 3)), slog.Bool("ok", true)},
		{slog.Any("v", durationValuer(2*time.Second)), slog.Group("", slog.Duration("inline", time.Millisecond))},
		{slog.Group("empty"), slog.Any("err", nil), slog.Time("at", at)},
	}
	for round := range 3 {
		for _, attrs := range lines {
			for _, h := range []slog.Handler{hw, hg} {
				r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
				r.AddAttrs(attrs...)
				if err := h.Handle(context.Background(), r); err != nil {
					t.Fatal(err)
				}
			}
		}
		switch round {
		case 0:
			hw = hw.WithAttrs([]slog.Attr{slog.Duration("up", time.Minute), slog.String("svc", "mcpdir")})
			hg = hg.WithAttrs([]slog.Attr{slog.Duration("up", time.Minute), slog.String("svc", "mcpdir")})
		case 1:
			hw, hg = hw.WithGroup("req"), hg.WithGroup("req")
		}
	}
	if got.String() != want.String() {
		t.Errorf("secondsHandler wrote\n%s\nwant\n%s", got.String(), want.String())
	}
	if !strings.Contains(got.String(), `"took":1.52`) {
		t.Errorf("no duration in seconds in\n%s", got.String())
	}
}

// BenchmarkAccessLine justifies secondsHandler: access lines (no
// duration) through slog's JSON handler with secondsAttr as ReplaceAttr and
// through secondsHandler, a hundred of each in turn; reports each line's
// mean time and their ratio:
//
//	go test ./cmd/mcpdir -run '^$' -bench BenchmarkAccessLine -count 3
func BenchmarkAccessLine(b *testing.B) {
	ctx := context.Background()
	line := func(l *slog.Logger) {
		l.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("id", "0123456789-1x3"), slog.String("method", "GET"), slog.String("route", "GET /api/open/v1/search"),
			slog.Int("status", 200), slog.Int64("bytes", 2578), slog.Float64("ms", 0.123),
			slog.String("key", "mcpdir_ab12"), slog.String("remote", "127.0.0.1:45678"))
	}
	replace := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{ReplaceAttr: secondsAttr}))
	own := newLogger(io.Discard, "info", "json")
	var before, after time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range 100 {
			line(replace)
		}
		t1 := time.Now()
		for range 100 {
			line(own)
		}
		after += time.Since(t1)
		before += t1.Sub(t0)
	}
	n := float64(100 * b.N)
	b.ReportMetric(float64(before.Nanoseconds())/n, "replaceattr-ns/line")
	b.ReportMetric(float64(after.Nanoseconds())/n, "handler-ns/line")
	b.ReportMetric(float64(after)/float64(before), "handler/replaceattr")
}
