package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpdir/mcpdir"
)

// Sessions shares MCP sessions between replicas: a record per session (its
// key and transport), and a channel per legacy session that carries the
// messages POSTed to any replica to the one holding its event stream.
type Sessions struct {
	client *goredis.Client
	prefix string
}

var _ mcpdir.SharedSessions = (*Sessions)(nil)

// NewSessions returns the session records kept in the Redis at url.
func NewSessions(url string) (*Sessions, error) {
	client, err := newClient(url)
	if err != nil {
		return nil, err
	}
	return &Sessions{client: client, prefix: "mcpdir:session:"}, nil
}

// Close closes the connection to Redis.
func (s *Sessions) Close() error { return s.client.Close() }

const legacyChannel = "mcpdir:legacy:"

// Put implements mcpdir.SharedSessions.
func (s *Sessions) Put(ctx context.Context, id string, rec mcpdir.SessionRecord, ttl time.Duration) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return s.client.Set(ctx, s.prefix+id, b, ttl).Err()
}

// Get implements mcpdir.SharedSessions: it also renews the record for ttl.
func (s *Sessions) Get(ctx context.Context, id string, ttl time.Duration) (mcpdir.SessionRecord, bool, error) {
	var rec mcpdir.SessionRecord
	b, err := s.client.GetEx(ctx, s.prefix+id, ttl).Bytes()
	if errors.Is(err, goredis.Nil) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, false, fmt.Errorf("session record %s: %w", id, err)
	}
	return rec, true, nil
}

// Delete implements mcpdir.SharedSessions.
func (s *Sessions) Delete(ctx context.Context, id string) (bool, error) {
	n, err := s.client.Del(ctx, s.prefix+id).Result()
	return n > 0, err
}

// Publish implements mcpdir.SharedSessions.
func (s *Sessions) Publish(ctx context.Context, id string, msg []byte) error {
	return s.client.Publish(ctx, legacyChannel+id, msg).Err()
}

// Listen implements mcpdir.SharedSessions: one subscription per replica, to
// every legacy session's channel; the caller keeps the ones it holds.
func (s *Sessions) Listen(ctx context.Context, deliver func(id string, msg []byte)) {
	ps := s.client.PSubscribe(ctx, legacyChannel+"*")
	defer ps.Close()
	ch := ps.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			deliver(strings.TrimPrefix(m.Channel, legacyChannel), []byte(m.Payload))
		}
	}
}
