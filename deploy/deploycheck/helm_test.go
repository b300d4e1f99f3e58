package deploycheck

import (
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

var chart = deployDir("helm", "mcpdir")

const productionValues = "../helm/mcpdir/ci/production-values.yaml"

// render runs helm template with args and returns the manifests.
func render(t *testing.T, args ...string) []byte {
	t.Helper()
	out, stderr, err := command(t, tool(t, "helm", "HELM"), append([]string{"template", "mcpdir", chart}, args...)...)
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, stderr)
	}
	return []byte(out)
}

// validate decodes the manifests strictly and checks them together.
func validate(t *testing.T, manifests []byte) []any {
	t.Helper()
	objs, err := Decode(manifests)
	if err != nil {
		t.Fatalf("against the API types: %v", err)
	}
	if err := Consistent(objs); err != nil {
		t.Fatalf("inconsistent manifests: %v", err)
	}
	return objs
}

func find[T any](objs []any) []T {
	var found []T
	for _, o := range objs {
		if v, ok := o.(T); ok {
			found = append(found, v)
		}
	}
	return found
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func TestChartLint(t *testing.T) {
	helm := tool(t, "helm", "HELM")
	for _, args := range [][]string{{}, {"-f", productionValues}} {
		if out, stderr, err := command(t, helm, append([]string{"lint", "--strict", chart}, args...)...); err != nil {
			t.Errorf("helm lint %v: %v\n%s%s", args, err, out, stderr)
		}
	}
}

// The default values: one replica on the embedded store, on an emptyDir.
func TestChartDefaultValues(t *testing.T) {
	objs := validate(t, render(t))
	d := find[*appsv1.Deployment](objs)[0]
	if *d.Spec.Replicas != 1 {
		t.Errorf("replicas %d on the embedded store, want 1", *d.Spec.Replicas)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if env(c, "MCPDIR_DATABASE_URL") != nil || env(c, "MCPDIR_ADDR").Value != "0.0.0.0:8080" {
		t.Errorf("env: %+v", c.Env)
	}
	if len(find[*corev1.Service](objs)) != 1 || len(find[*policyv1.PodDisruptionBudget](objs)) != 1 {
		t.Errorf("want a Service and a PodDisruptionBudget")
	}
	if n := len(find[*networkingv1.Ingress](objs)) + len(find[*autoscalingv2.HorizontalPodAutoscaler](objs)) +
		len(find[*monitoringv1.ServiceMonitor](objs)) + len(find[*corev1.Secret](objs)); n != 0 {
		t.Errorf("%d optional objects rendered by default", n)
	}
}

// A production-like install: URLs from an existing Secret, Ingress, HPA,
// ServiceMonitor, public URL and trusted proxies.
func TestChartProductionValues(t *testing.T) {
	objs := validate(t, render(t, "-f", productionValues))
	d := find[*appsv1.Deployment](objs)[0]
	c := d.Spec.Template.Spec.Containers[0]
	if e := env(c, "MCPDIR_DATABASE_URL"); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "mcpdir-urls" {
		t.Errorf("database URL not from the Secret: %+v", e)
	}
	if e := env(c, "MCPDIR_REDIS_URL"); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Key != "redis-url" {
		t.Errorf("Redis URL not from the Secret: %+v", e)
	}
	if e := env(c, "MCPDIR_PUBLIC_URL"); e == nil || e.Value != "https://mcp.example.com" {
		t.Errorf("public URL: %+v", e)
	}
	if e := env(c, "MCPDIR_TRUSTED_PROXIES"); e == nil || e.Value != "10.0.0.0/8" {
		t.Errorf("trusted proxies: %+v", e)
	}
	if len(find[*corev1.Secret](objs)) != 0 {
		t.Error("a Secret rendered beside an existing one")
	}
	if len(find[*networkingv1.Ingress](objs)) != 1 || len(find[*autoscalingv2.HorizontalPodAutoscaler](objs)) != 1 ||
		len(find[*monitoringv1.ServiceMonitor](objs)) != 1 {
		t.Error("want an Ingress, a HorizontalPodAutoscaler and a ServiceMonitor")
	}
}

// URLs given as values: the chart makes the Secret the pods read.
func TestChartMakesTheSecret(t *testing.T) {
	objs := validate(t, render(t, "--set", "database.url=postgres://mcpdir:pw@db:5432/mcpdir", "--set", "database.redisURL=redis://redis:6379/0"))
	s := find[*corev1.Secret](objs)
	d := find[*appsv1.Deployment](objs)[0]
	if len(s) != 1 || s[0].StringData["database-url"] != "postgres://mcpdir:pw@db:5432/mcpdir" || s[0].StringData["redis-url"] == "" {
		t.Fatalf("secret: %+v", s)
	}
	if *d.Spec.Replicas != 2 {
		t.Errorf("replicas %d on PostgreSQL, want 2", *d.Spec.Replicas)
	}
	for _, name := range []string{"MCPDIR_DATABASE_URL", "MCPDIR_REDIS_URL"} {
		if e := env(d.Spec.Template.Spec.Containers[0], name); e == nil || e.ValueFrom.SecretKeyRef.Name != s[0].Name {
			t.Errorf("%s does not come from the chart's Secret: %+v", name, e)
		}
	}
	if d.Spec.Template.Annotations["checksum/secret"] == "" {
		t.Error("no checksum of the Secret: a changed URL would not roll the pods")
	}
}

func TestChartRefusesReplicasOnTheEmbeddedStore(t *testing.T) {
	_, stderr, err := command(t, tool(t, "helm", "HELM"), "template", "mcpdir", chart, "--set", "autoscaling.enabled=true")
	if err == nil || !strings.Contains(stderr, "autoscaling needs a database") {
		t.Fatalf("autoscaling without a database: %v\n%s", err, stderr)
	}
}

// The validator is real: a misspelt field, a wrong type, an unknown kind
// and a broken reference each fail.
func TestValidatorCatchesMistakes(t *testing.T) {
	good := string(render(t, "-f", productionValues))
	for _, c := range []struct{ name, old, new, want string }{
		{"misspelt field", "readinessProbe:", "readinesProbe:", "readinesProbe"},
		{"misspelt nested field", "runAsNonRoot: true", "runAsNonroot: true", "runAsNonroot"},
		{"misspelt ServiceMonitor field", "scrapeTimeout:", "scrapeTimout:", "scrapeTimout"},
		{"wrong type", "maxUnavailable: 1", "maxUnavailable: [1]", "PodDisruptionBudget"},
		{"bad quantity", "memory: 2Gi", "memory: 2 gigs", "quantities"},
		{"unknown kind", "kind: PodDisruptionBudget", "kind: PodDisruptionBudgets", "not a kind"},
	} {
		if !strings.Contains(good, c.old) {
			t.Fatalf("%s: %q is not in the rendered manifests", c.name, c.old)
		}
		_, err := Decode([]byte(strings.Replace(good, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"probe on no port", "path: /healthz\n              port: http\n", "path: /healthz\n              port: htp\n", "probe's port"},
		{"service selects nothing", "    app.kubernetes.io/instance: mcpdir\n  ports:", "    app.kubernetes.io/instance: other\n  ports:", "does not select"},
		{"writable root", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "read-only"},
	} {
		if !strings.Contains(good, c.old) {
			t.Fatalf("%s: %q is not in the rendered manifests", c.name, c.old)
		}
		objs, err := Decode([]byte(strings.Replace(good, c.old, c.new, 1)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := Consistent(objs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// values.schema.json: a misspelt value fails instead of being ignored.
func TestChartRefusesMisspeltValues(t *testing.T) {
	helm := tool(t, "helm", "HELM")
	for _, set := range []string{"replicaCont=3", "ingress.enabld=true", "database.ur=postgres://x@y/z", "signup=opne"} {
		_, stderr, err := command(t, helm, "template", "mcpdir", chart, "--set", set)
		if err == nil || !strings.Contains(stderr, "schema") {
			t.Errorf("--set %s: %v\n%s", set, err, stderr)
		}
	}
}
