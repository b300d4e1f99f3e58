package sqlstore

import (
	"encoding/binary"
	"fmt"
	"time"
)

// EncodeTimes is how a key's rate window is kept: its times as big-endian
// Unix nanoseconds, one after another.
func EncodeTimes(log []time.Time) []byte {
	b := make([]byte, 0, 8*len(log))
	for _, t := range log {
		b = binary.BigEndian.AppendUint64(b, uint64(t.UnixNano()))
	}
	return b
}

// ScanRateWindows reads rows of (key, times), a key's times added up when
// several limiters keep one.
func ScanRateWindows(rows Rows) (map[string][]time.Time, error) {
	out := map[string][]time.Time{}
	for rows.Next() {
		var key string
		var b []byte
		if err := rows.Scan(&key, &b); err != nil {
			return nil, fmt.Errorf("read rate windows: %w", err)
		}
		log := out[key]
		for ; len(b) >= 8; b = b[8:] {
			log = append(log, time.Unix(0, int64(binary.BigEndian.Uint64(b))))
		}
		out[key] = log
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read rate windows: %w", err)
	}
	return out, nil
}
