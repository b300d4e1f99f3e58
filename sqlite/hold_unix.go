//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the file in a data directory whose lock says who uses it.
const lockFile = "mcpdir.lock"

// ErrInUse is a data directory that another process holds in a way that
// excludes the caller: a server serving from it, or a migration copying it.
var ErrInUse = errors.New("the data directory is in use")

// Serve holds dataDir for a server until release: many servers (and every
// command that only adds, such as keys create) may share it, but Migrate
// cannot take it while they do, nor they while Migrate does.
func Serve(dataDir string) (release func(), err error) {
	return hold(dataDir, syscall.LOCK_SH, "a migration (mcpdir migrate) is copying it: wait for it to end")
}

// Migrate holds dataDir alone until release, so that no server writes what
// a copy of it would miss.
func Migrate(dataDir string) (release func(), err error) {
	return hold(dataDir, syscall.LOCK_EX, "a server (mcpdir serve) is serving from it: stop every server first, so that nothing is written after the copy")
}

func hold(dataDir string, how int, why string) (func(), error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dataDir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", ErrInUse, why)
		}
		return nil, fmt.Errorf("data directory: lock: %w", err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
