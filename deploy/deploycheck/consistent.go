package deploycheck

import (
	"errors"
	"fmt"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Consistent checks what no schema does: that the objects refer to each
// other rightly (selectors select the pods, ports and names exist), and
// that the pods run as the chart promises (probes, non-root, read-only
// root filesystem, resources).
func Consistent(objs []any) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	var deploys []*appsv1.Deployment
	services := map[string]*corev1.Service{}
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			deploys = append(deploys, o)
		case *corev1.Service:
			services[o.Name] = o
		}
	}
	if len(deploys) != 1 {
		return fmt.Errorf("%d Deployments, want 1", len(deploys))
	}
	d := deploys[0]
	pod := labels.Set(d.Spec.Template.Labels)
	selects := func(what string, sel *metav1.LabelSelector) {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Empty() || !s.Matches(pod) {
			bad("%s does not select the pods (%v)", what, err)
		}
	}
	selects("Deployment "+d.Name, d.Spec.Selector)
	spec := d.Spec.Template.Spec
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		bad("the pod may run as root: runAsNonRoot is not true")
	}
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
	}
	ports := map[string]int32{}
	for _, c := range spec.Containers {
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
	}
	for _, c := range spec.Containers {
		if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			bad("container %s: the root filesystem is not read-only", c.Name)
		}
		if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			bad("container %s: no memory request or limit", c.Name)
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				bad("container %s mounts %s, which is no volume", c.Name, m.Name)
			}
		}
		probe := func(name string, p *corev1.Probe, path string) {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path {
				bad("container %s: the %s probe does not ask %s", c.Name, name, path)
				return
			}
			if !portExists(p.HTTPGet.Port, ports) {
				bad("container %s: the %s probe's port %s is not the container's", c.Name, name, p.HTTPGet.Port.String())
			}
		}
		probe("startup", c.StartupProbe, "/healthz")
		probe("liveness", c.LivenessProbe, "/healthz")
		probe("readiness", c.ReadinessProbe, "/readyz")
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Service:
			if len(o.Spec.Selector) == 0 || !labels.SelectorFromSet(o.Spec.Selector).Matches(pod) {
				bad("Service %s does not select the pods", o.Name)
			}
			for _, p := range o.Spec.Ports {
				if !portExists(p.TargetPort, ports) {
					bad("Service %s: target port %s is not the container's", o.Name, p.TargetPort.String())
				}
			}
		case *policyv1.PodDisruptionBudget:
			selects("PodDisruptionBudget "+o.Name, o.Spec.Selector)
		case *autoscalingv2.HorizontalPodAutoscaler:
			if r := o.Spec.ScaleTargetRef; r.Kind != "Deployment" || r.Name != d.Name {
				bad("HorizontalPodAutoscaler %s scales %s %s, not the Deployment", o.Name, r.Kind, r.Name)
			}
			if d.Spec.Replicas != nil {
				bad("the Deployment sets replicas beside a HorizontalPodAutoscaler: every upgrade would reset them")
			}
		case *networkingv1.Ingress:
			for _, rule := range o.Spec.Rules {
				if rule.HTTP == nil {
					continue
				}
				for _, p := range rule.HTTP.Paths {
					b := p.Backend.Service
					if b == nil || services[b.Name] == nil || !servicePort(services[b.Name], b.Port) {
						bad("Ingress %s: a path goes to no port of the chart's Service", o.Name)
					}
				}
			}
		case *monitoringv1.ServiceMonitor:
			var selected *corev1.Service
			for _, s := range services {
				sel, err := metav1.LabelSelectorAsSelector(&o.Spec.Selector)
				if err == nil && !sel.Empty() && sel.Matches(labels.Set(s.Labels)) {
					selected = s
				}
			}
			if selected == nil {
				bad("ServiceMonitor %s selects no Service of the chart", o.Name)
				continue
			}
			for _, e := range o.Spec.Endpoints {
				if !servicePort(selected, networkingv1.ServiceBackendPort{Name: e.Port}) {
					bad("ServiceMonitor %s: Service %s has no port %q", o.Name, selected.Name, e.Port)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func portExists(p intstr.IntOrString, named map[string]int32) bool {
	if p.Type == intstr.String {
		_, ok := named[p.StrVal]
		return ok
	}
	for _, n := range named {
		if n == p.IntVal {
			return true
		}
	}
	return false
}

func servicePort(s *corev1.Service, p networkingv1.ServiceBackendPort) bool {
	for _, sp := range s.Spec.Ports {
		if (p.Name != "" && sp.Name == p.Name) || (p.Name == "" && sp.Port == p.Number) {
			return true
		}
	}
	return false
}
