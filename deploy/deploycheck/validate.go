// Package deploycheck checks the deployment files of deploy/ against what
// runs them: the Helm chart's rendered manifests against the Kubernetes API
// types (strictly: an unknown or misspelt field is an error, as the API
// server's strict field validation makes it), and against each other.
// A module of its own, so that the Kubernetes packages stay out of the
// service's.
package deploycheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	k8sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// kinds are the API types the chart may render, by apiVersion and kind.
// Anything else is an error: nothing goes unchecked.
var kinds = map[string]func() any{
	"apps/v1/Deployment":                     func() any { return new(appsv1.Deployment) },
	"v1/Service":                             func() any { return new(corev1.Service) },
	"v1/Secret":                              func() any { return new(corev1.Secret) },
	"v1/PersistentVolumeClaim":               func() any { return new(corev1.PersistentVolumeClaim) },
	"networking.k8s.io/v1/Ingress":           func() any { return new(networkingv1.Ingress) },
	"policy/v1/PodDisruptionBudget":          func() any { return new(policyv1.PodDisruptionBudget) },
	"autoscaling/v2/HorizontalPodAutoscaler": func() any { return new(autoscalingv2.HorizontalPodAutoscaler) },
	"monitoring.coreos.com/v1/ServiceMonitor": func() any {
		return new(monitoringv1.ServiceMonitor)
	},
}

// Decode splits a stream of YAML documents (helm template's output) and
// decodes each strictly into its API type.
func Decode(manifests []byte) ([]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifests)))
	var objs []any
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if tm.Kind == "" && tm.APIVersion == "" {
			continue // only comments
		}
		newObj, ok := kinds[tm.APIVersion+"/"+tm.Kind]
		if !ok {
			return nil, fmt.Errorf("document %d: %s %s is not a kind this check knows", i, tm.APIVersion, tm.Kind)
		}
		// As the API server decodes: field names match exactly (not
		// case-insensitively, as encoding/json would), unknown and duplicate
		// fields are errors.
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, tm.Kind, err)
		}
		obj := newObj()
		strict, err := k8sjson.UnmarshalStrict(js, obj)
		if err == nil {
			err = errors.Join(strict...)
		}
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, tm.Kind, err)
		}
		objs = append(objs, obj)
	}
}
