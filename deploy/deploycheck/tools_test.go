package deploycheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tool finds a program the checks run: $ENV, then PATH, then the e2e cache
// where e2e/deploy.sh installs helm. Missing, the test skips, except in CI
// (CI=true), where .ci/run installs them and a skip would hide that.
func tool(t *testing.T, name, env string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	cache := os.Getenv("MCPDIR_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "mcpdir-e2e")
	}
	if p := filepath.Join(cache, "bin", name); fileExists(p) {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing in CI (set %s or put it in PATH)", name, env)
	}
	t.Skipf("%s is not installed: `make test-deploy` installs what it needs", name)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// command runs a program and returns its stdout and stderr.
func command(t *testing.T, prog string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(prog, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func deployDir(parts ...string) string {
	return filepath.Join(append([]string{".."}, parts...)...)
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
