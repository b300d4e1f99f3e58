package main

import (
	"context"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
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
	var hg slog.Handler = secondsHandler{Handler: slog.NewJSONHandler(&got, &slog.HandlerOptions{Level: slog.LevelDebug}), plain: &plainLines{w: &got}}
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

// plainLines writes a line of strings, integers, floats and booleans as
// slog's JSON handler writes it, byte for byte: escapes, invalid UTF-8,
// line separators, floats in both notations, levels, and no time.
func TestPlainLinesAsSlogWritesThem(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	pieces := []string{"a", "é", "漢", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<&>", "\u2028", "\u2029", "\xff", "\xe2\x80", " ", "/", "'"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	floats := []float64{0, math.Copysign(0, -1), 0.25, -1.5, 1e-6, 9.99e-7, 1e-7, 123.456, 1e20, 1e21, 1.5e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2}
	zone := time.FixedZone("x", 5*3600+1800)
	var want, got strings.Builder
	slogs := slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug})
	plain := &plainLines{w: &got}
	for i := range 2000 {
		at := time.Date(2026, 11, 30, 23, 59, rng.IntN(60), rng.IntN(1e9), zone)
		if i%7 == 0 {
			at = time.Time{}
		}
		r := slog.NewRecord(at, slog.Level(rng.IntN(20)-6), str(), 0)
		for range rng.IntN(9) {
			key := str() + "k"
			switch rng.IntN(5) {
			case 0:
				r.AddAttrs(slog.String(key, str()))
			case 1:
				r.AddAttrs(slog.Int64(key, rng.Int64()-rng.Int64()))
			case 2:
				r.AddAttrs(slog.Uint64(key, rng.Uint64()))
			case 3:
				r.AddAttrs(slog.Bool(key, rng.IntN(2) == 0))
			case 4:
				f := floats[rng.IntN(len(floats))]
				if rng.IntN(2) == 0 {
					f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
				}
				r.AddAttrs(slog.Float64(key, f))
			}
		}
		if err := slogs.Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if written, err := plain.write(r); !written || err != nil {
			t.Fatalf("line %d not written as plain (%v)", i, err)
		}
	}
	if got.String() != want.String() {
		g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d:\n%s\nwant\n%s", i, g[i], w[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(g), len(w))
	}
	// A line with anything else (a duration, a group, a value of any
	// type, an infinity) is slog's to write.
	for _, a := range []slog.Attr{slog.Duration("d", time.Second), slog.Group("g", slog.Int("n", 1)), slog.Any("v", []int{1}), slog.Float64("inf", math.Inf(1)), slog.Time("at", time.Now()), slog.String("", "empty key")} {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "m", 0)
		r.AddAttrs(slog.String("ok", "yes"), a)
		if written, _ := plain.write(r); written {
			t.Errorf("%v written as a plain line", a)
		}
	}
}

// BenchmarkAccessLine justifies secondsHandler and its plainLines: access
// lines (no duration) through slog's JSON handler with secondsAttr as
// ReplaceAttr and through newLogger's handler, a hundred of each in turn;
// reports each line's mean time and their ratio:
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
