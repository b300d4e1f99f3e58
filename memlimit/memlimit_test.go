package memlimit

import (
	"cmp"
	"math"
	"os"
	"runtime/debug"
	"testing"
	"testing/fstest"
)

func TestCgroup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  int64
		ok    bool
	}{
		{"v2 in its group", fstest.MapFS{
			"proc/self/cgroup":                          {Data: []byte("0::/kubepods/pod1/c1\n")},
			"sys/fs/cgroup/kubepods/pod1/c1/memory.max": {Data: []byte("1073741824\n")},
		}, 1 << 30, true},
		{"v2 at the namespace's root", fstest.MapFS{
			"proc/self/cgroup":         {Data: []byte("0::/\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("268435456\n")},
		}, 256 << 20, true},
		{"v2 whose path the container does not see", fstest.MapFS{
			"proc/self/cgroup":         {Data: []byte("0::/system.slice/podman-1.scope\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("536870912\n")},
		}, 512 << 20, true},
		{"v2 unlimited", fstest.MapFS{
			"proc/self/cgroup":         {Data: []byte("0::/\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("max\n")},
		}, 0, false},
		{"v1", fstest.MapFS{
			"proc/self/cgroup": {Data: []byte("9:pids:/\n4:memory:/docker/abc\n1:cpu,cpuacct:/\n")},
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": {Data: []byte("2147483648\n")},
		}, 2 << 30, true},
		{"v1 unlimited", fstest.MapFS{
			"proc/self/cgroup":                           {Data: []byte("4:memory:/process_api/x\n")},
			"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")},
		}, 0, false},
		{"hybrid: v2 unlimited, v1 limited", fstest.MapFS{
			"proc/self/cgroup":                             {Data: []byte("4:memory:/a\n0::/a\n")},
			"sys/fs/cgroup/a/memory.max":                   {Data: []byte("max\n")},
			"sys/fs/cgroup/memory/a/memory.limit_in_bytes": {Data: []byte("104857600\n")},
		}, 100 << 20, true},
		{"no cgroups", fstest.MapFS{}, 0, false},
		{"garbage", fstest.MapFS{
			"proc/self/cgroup":         {Data: []byte("0::/\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("lots\n")},
		}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Cgroup(tc.files)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Cgroup = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestSet(t *testing.T) {
	before := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	limited := fstest.MapFS{
		"proc/self/cgroup":         {Data: []byte("0::/\n")},
		"sys/fs/cgroup/memory.max": {Data: []byte("1073741824\n")},
	}
	gib := int64(1 << 30)
	meminfo := func(kb string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("MemTotal:       " + kb + " kB\nMemFree:         1000 kB\n")}
	}
	for _, tc := range []struct {
		name   string
		files  fstest.MapFS
		limit  int64
		cgroup bool
	}{
		{"a container", limited, gib, true},
		{"a container on a larger machine", fstest.MapFS{"proc/meminfo": meminfo("16777216"),
			"proc/self/cgroup": limited["proc/self/cgroup"], "sys/fs/cgroup/memory.max": limited["sys/fs/cgroup/memory.max"]}, gib, true},
		// A replica alone on a 2 GiB machine, no cgroup limit: the
		// machine's memory is its limit.
		{"no container", fstest.MapFS{"proc/meminfo": meminfo("2097152")}, 2 * gib, false},
		{"a container larger than the machine", fstest.MapFS{"proc/meminfo": meminfo("524288"),
			"proc/self/cgroup": limited["proc/self/cgroup"], "sys/fs/cgroup/memory.max": limited["sys/fs/cgroup/memory.max"]}, gib / 2, false},
		{"nothing known", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: lots\n")}}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(math.MaxInt64)
			soft, limit, cgroup := Set(tc.files)
			if limit != tc.limit || cgroup != tc.cgroup || soft != int64(float64(tc.limit)*Share) {
				t.Fatalf("Set = %d of %d (cgroup %v), want of %d (cgroup %v)", soft, limit, cgroup, tc.limit, tc.cgroup)
			}
			if want := cmp.Or(soft, math.MaxInt64); debug.SetMemoryLimit(-1) != want {
				t.Errorf("the runtime's limit is %d, want %d", debug.SetMemoryLimit(-1), want)
			}
		})
	}

	// A limit set already (GOMEMLIMIT=3GiB) is the operator's word.
	debug.SetMemoryLimit(3 << 30)
	if soft, _, _ := Set(limited); soft != 0 || debug.SetMemoryLimit(-1) != 3<<30 {
		t.Errorf("with a limit set, Set changed it to %d", soft)
	}
}

// TestThisMachine reads the real cgroup files: whatever this machine's
// limit, reading it must not fail in a way that sets a nonsense limit.
func TestThisMachine(t *testing.T) {
	n, ok := Cgroup(os.DirFS("/"))
	if ok && n < 1<<20 {
		t.Errorf("a cgroup limit of %d bytes: misread", n)
	}
	t.Logf("this machine's cgroup memory limit: %d (%v)", n, ok)
	m, ok := Machine(os.DirFS("/"))
	if ok && m < 1<<20 {
		t.Errorf("a machine of %d bytes: misread", m)
	}
	t.Logf("this machine's memory: %d (%v)", m, ok)
}
