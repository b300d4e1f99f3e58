// Package memlimit gives the Go runtime a soft memory limit below the
// memory the process may use: a replica whose cgroup caps its memory then
// collects garbage harder as its heap nears the cap, instead of growing to
// twice its live heap between collections and being killed for it.
//
// The limit is read from cgroup v2 (memory.max) or v1
// (memory.limit_in_bytes) of the process's own group; with none, or one
// above it, the machine's memory (MemTotal in /proc/meminfo) is the limit,
// so that a replica alone on a small machine holds in it too. Below it,
// Follow keeps the limit at the live heap plus a headroom, so that a large
// heap does not double between collections (follow.go). A limit already
// set (GOMEMLIMIT, which the runtime reads at start) is the operator's word
// and stays.
package memlimit

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// Share is the part of the container's limit the heap may use: the rest
// is the runtime's own, goroutine stacks, and SQLite's page cache (which
// is not Go heap).
const Share = 0.85

// Set applies Share of the cgroup's limit, or of the machine's memory
// where that is less or the cgroup has no limit, as the runtime's soft
// limit, unless a limit is set already; it returns the limit set (0: none),
// the limit it came from, and whether that is the cgroup's. root is the
// file system root (os.DirFS("/") in production).
func Set(root fs.FS) (soft, limit int64, cgroup bool) {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return 0, 0, false
	}
	limit, cgroup = Cgroup(root)
	if machine, ok := Machine(root); ok && (!cgroup || machine < limit) {
		limit, cgroup = machine, false
	}
	if limit == 0 {
		return 0, 0, false
	}
	soft = int64(float64(limit) * Share)
	debug.SetMemoryLimit(soft)
	return soft, limit, cgroup
}

// Machine returns the machine's memory in bytes (MemTotal), and false when
// /proc/meminfo does not say.
func Machine(root fs.FS) (int64, bool) {
	b, err := fs.ReadFile(root, "proc/meminfo")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
}

// Cgroup returns the memory limit of the process's cgroup in bytes, and
// false when there is none (no cgroup file system, or "max"/unlimited).
func Cgroup(root fs.FS) (int64, bool) {
	self, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	v2, v1 := groups(self)
	// A group's file; inside a container the group is usually the
	// namespace's root, so the path from /proc may not exist: the mount's
	// root file is the container's own then.
	read := func(mount, group, file string) (int64, bool) {
		for _, dir := range []string{path.Join(mount, group), mount} {
			if b, err := fs.ReadFile(root, path.Join(dir, file)); err == nil {
				return parseLimit(b)
			}
		}
		return 0, false
	}
	if v2 != "" {
		if n, ok := read("sys/fs/cgroup", v2, "memory.max"); ok {
			return n, true
		}
	}
	if v1 != "" {
		return read("sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	}
	return 0, false
}

// groups finds the process's cgroup v2 path ("0::/path") and its v1
// memory controller's path ("N:memory:/path") in /proc/self/cgroup.
func groups(self []byte) (v2, v1 string) {
	sc := bufio.NewScanner(bytes.NewReader(self))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		p := strings.TrimPrefix(parts[2], "/")
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = "/" + p
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			v1 = "/" + p
		}
	}
	return v2, v1
}

// unlimitedV1 is what cgroup v1 reports for no limit: the largest page
// multiple below 2^63. Anything near it means none.
const unlimitedV1 = math.MaxInt64 / 2

func parseLimit(b []byte) (int64, bool) {
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= unlimitedV1 {
		return 0, false
	}
	return n, true
}
