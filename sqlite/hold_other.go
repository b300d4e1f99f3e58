//go:build !unix

package sqlite

import "errors"

// ErrInUse is a data directory that another process holds (never, where
// files cannot be locked).
var ErrInUse = errors.New("the data directory is in use")

// Serve holds nothing where files cannot be locked.
func Serve(string) (func(), error) { return func() {}, nil }

// Migrate holds nothing where files cannot be locked.
func Migrate(string) (func(), error) { return func() {}, nil }
