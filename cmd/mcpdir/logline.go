package main

import (
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir/wire"
)

// plainLines writes a log line whose attributes are all plain (strings,
// integers, finite floats, booleans) as slog's JSON handler writes it,
// byte for byte, without its general path: a dispatch per attribute and a
// json.Marshal of every float. The access line of every request is such a
// line, and slog's path for it was 3.6% of the server's CPU under a load
// of new queries (issue 36). Any other line goes to slog.
type plainLines struct {
	w    io.Writer // shared with slog's handler, and safe for concurrent writes
	bufs sync.Pool
}

// write writes r if it is plain, and reports whether it was.
func (p *plainLines) write(r slog.Record) (bool, error) {
	plain := true
	r.Attrs(func(a slog.Attr) bool {
		switch v := a.Value; v.Kind() {
		case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindBool:
		case slog.KindFloat64:
			plain = !math.IsInf(v.Float64(), 0) && !math.IsNaN(v.Float64())
		default:
			plain = false
		}
		plain = plain && a.Key != ""
		return plain
	})
	if !plain {
		return false, nil
	}
	bp, _ := p.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b := append((*bp)[:0], '{')
	if !r.Time.IsZero() {
		b = append(b, `"time":"`...)
		b = append(r.Time.AppendFormat(b, time.RFC3339Nano), `",`...)
	}
	b = append(b, `"level":`...)
	b = wire.AppendJSONString(b, r.Level.String(), wire.AsSlog)
	b = append(b, `,"msg":`...)
	b = wire.AppendJSONString(b, r.Message, wire.AsSlog)
	r.Attrs(func(a slog.Attr) bool {
		b = wire.AppendJSONString(append(b, ','), a.Key, wire.AsSlog)
		b = append(b, ':')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			b = wire.AppendJSONString(b, v.String(), wire.AsSlog)
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindFloat64:
			b = appendJSONFloat(b, v.Float64())
		}
		return true
	})
	b = append(b, '}', '\n')
	_, err := p.w.Write(b)
	*bp = b
	p.bufs.Put(bp)
	return true, err
}

// appendJSONFloat appends f as encoding/json writes a float64, which is
// what slog's JSON handler writes: fixed notation between 1e-6 and 1e21,
// exponent notation with at least two exponent digits beyond.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// lockedWriter serializes the writes of the two writers of one output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
