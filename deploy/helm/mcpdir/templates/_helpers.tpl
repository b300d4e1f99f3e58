{{- define "mcpdir.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mcpdir.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mcpdir.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mcpdir.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "mcpdir.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "mcpdir.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* PostgreSQL: replicas share it. Without it, one replica on SQLite. */}}
{{- define "mcpdir.database" -}}
{{- if or .Values.database.existingSecret .Values.database.url }}true{{ end }}
{{- end }}

{{- define "mcpdir.secretName" -}}
{{- .Values.database.existingSecret | default (include "mcpdir.fullname" .) }}
{{- end }}

{{- define "mcpdir.replicas" -}}
{{- if include "mcpdir.database" . }}{{ .Values.replicaCount }}{{ else }}1{{ end }}
{{- end }}
