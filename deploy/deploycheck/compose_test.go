package deploycheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// composeFile is the part of `docker-compose config` the checks read.
type composeFile struct {
	Services map[string]struct {
		Image       string            `json:"image"`
		Environment map[string]string `json:"environment"`
		Healthcheck *struct {
			Test []string `json:"test"`
		} `json:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `json:"condition"`
		} `json:"depends_on"`
		Networks map[string]*struct {
			IPv4Address string `json:"ipv4_address"`
		} `json:"networks"`
		Volumes  []string `json:"volumes"`
		ReadOnly bool     `json:"read_only"`
	} `json:"services"`
	Volumes map[string]any `json:"volumes"`
}

// docker-compose's config validates the file against the Compose schema
// and resolves it offline (no daemon, no image pulled).
func composeConfig(t *testing.T, envFile string) (string, string, error) {
	t.Helper()
	return command(t, tool(t, "docker-compose", "DOCKER_COMPOSE"), "-f", deployDir("compose.yaml"), "--env-file", envFile, "config")
}

func TestComposeFile(t *testing.T) {
	out, stderr, err := composeConfig(t, deployDir(".env.example"))
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, stderr)
	}
	var f composeFile
	if err := yaml.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"postgres", "redis", "mcpdir-1", "mcpdir-2", "haproxy"} {
		if _, ok := f.Services[name]; !ok {
			t.Fatalf("no service %s", name)
		}
	}
	if _, ok := f.Volumes["postgres-data"]; !ok || !slices.ContainsFunc(f.Services["postgres"].Volumes, func(v string) bool {
		return strings.HasPrefix(v, "postgres-data:") || strings.Contains(v, "postgres-data")
	}) {
		t.Errorf("PostgreSQL is not on the named volume: %v %v", f.Volumes, f.Services["postgres"].Volumes)
	}
	balancer := f.Services["haproxy"].Networks["mcpdir"]
	if balancer == nil || balancer.IPv4Address == "" {
		t.Fatal("the balancer has no fixed address for --trusted-proxies")
	}
	for _, name := range []string{"mcpdir-1", "mcpdir-2"} {
		s := f.Services[name]
		e := s.Environment
		if e["MCPDIR_TRUSTED_PROXIES"] != balancer.IPv4Address {
			t.Errorf("%s trusts %q, the balancer is %s", name, e["MCPDIR_TRUSTED_PROXIES"], balancer.IPv4Address)
		}
		// The secrets come from the env file.
		if !strings.Contains(e["MCPDIR_DATABASE_URL"], ":change-me-postgres@postgres:5432/") ||
			!strings.Contains(e["MCPDIR_REDIS_URL"], ":change-me-redis@redis:6379") {
			t.Errorf("%s: URLs %q %q", name, e["MCPDIR_DATABASE_URL"], e["MCPDIR_REDIS_URL"])
		}
		if s.Healthcheck == nil || !slices.Contains(s.Healthcheck.Test, "health") || !s.ReadOnly {
			t.Errorf("%s: health check %v, read-only %v", name, s.Healthcheck, s.ReadOnly)
		}
		for _, dep := range []string{"postgres", "redis"} {
			if s.DependsOn[dep].Condition != "service_healthy" {
				t.Errorf("%s does not wait for %s to be healthy", name, dep)
			}
		}
		if f.Services["haproxy"].DependsOn[name].Condition != "service_healthy" {
			t.Errorf("the balancer does not wait for %s", name)
		}
	}
	for _, name := range []string{"postgres", "redis"} {
		if f.Services[name].Healthcheck == nil {
			t.Errorf("%s has no health check", name)
		}
	}
	// The balancer sends to every replica, and to nothing else.
	cfg, err := os.ReadFile(deployDir("haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	var servers []string
	for _, m := range regexp.MustCompile(`(?m)^\s*server\s+\S+\s+([^:\s]+):8080`).FindAllStringSubmatch(string(cfg), -1) {
		servers = append(servers, m[1])
	}
	if !slices.Equal(servers, []string{"mcpdir-1", "mcpdir-2"}) {
		t.Errorf("haproxy.cfg servers %v", servers)
	}
	if !strings.Contains(string(cfg), "option httpchk GET /readyz") || !strings.Contains(string(cfg), "option forwardfor") {
		t.Error("haproxy.cfg: no /readyz health check or no X-Forwarded-For")
	}
}

// Without the env file's secrets, Compose refuses to start.
func TestComposeNeedsTheSecrets(t *testing.T) {
	empty := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := composeConfig(t, empty)
	if err == nil || !strings.Contains(stderr, "set POSTGRES_PASSWORD in deploy/.env") {
		t.Fatalf("docker-compose config without secrets: %v\n%s", err, stderr)
	}
}

// haproxy -c parses the configuration as HAProxy would start with it; the
// replicas' names resolve only inside Compose's network, so that warning,
// and only that, is expected here.
func TestHAProxyConfig(t *testing.T) {
	haproxy := tool(t, "haproxy", "HAPROXY")
	out, stderr, err := command(t, haproxy, "-c", "-f", deployDir("haproxy.cfg"))
	if err != nil {
		t.Fatalf("haproxy -c: %v\n%s%s", err, out, stderr)
	}
	for _, l := range lines(stderr) {
		if strings.Contains(l, "[WARNING]") && !strings.Contains(l, "could not resolve address") || strings.Contains(l, "[ALERT]") {
			t.Errorf("haproxy -c: %s", l)
		}
	}
	// The check is real: a misspelt keyword fails it.
	cfg, _ := os.ReadFile(deployDir("haproxy.cfg"))
	bad := filepath.Join(t.TempDir(), "haproxy.cfg")
	os.WriteFile(bad, []byte(strings.Replace(string(cfg), "balance roundrobin", "balanse roundrobin", 1)), 0o600)
	if _, stderr, err := command(t, haproxy, "-c", "-f", bad); err == nil {
		t.Errorf("haproxy -c passed a misspelt keyword:\n%s", stderr)
	}
}
