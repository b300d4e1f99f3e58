package redis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every key a Limiter writes unless Options say
// otherwise.
const DefaultPrefix = "mcpdir:rate:"

// CopyWindows writes rate windows (the times each key spent a request)
// into the Redis at url as a Limiter keeps them, so that budgets counted
// elsewhere (the embedded server's) carry on in Redis; times older than
// keep are left out. Copying the same windows again counts them once. It
// returns how many keys it wrote; with no windows it only checks that
// Redis answers.
func CopyWindows(ctx context.Context, url string, windows map[string][]time.Time, keep time.Duration) (int, error) {
	client, err := newClient(url)
	if err != nil {
		return 0, err
	}
	defer client.Close()
	if err := client.Ping(ctx).Err(); err != nil {
		return 0, fmt.Errorf("redis: %w", err)
	}
	since := time.Now().Add(-keep)
	pipe := client.Pipeline()
	keys := 0
	for key, times := range windows {
		n := 0
		for _, t := range times {
			if t.After(since) {
				// The member names the time: a second copy adds nothing.
				pipe.ZAdd(ctx, DefaultPrefix+key, goredis.Z{Score: float64(t.UnixMicro()), Member: "copied:" + strconv.FormatInt(t.UnixNano(), 10)})
				n++
			}
		}
		if n > 0 {
			pipe.PExpire(ctx, DefaultPrefix+key, keep)
			keys++
		}
	}
	if keys == 0 {
		return 0, nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("redis: copy rate windows: %w", err)
	}
	return keys, nil
}
