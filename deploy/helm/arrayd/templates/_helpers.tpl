{{/* The release's name for every object, at most 63 characters. */}}
{{- define "arrayd.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels that select this release's pods. */}}
{{- define "arrayd.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels. */}}
{{- define "arrayd.labels" -}}
{{ include "arrayd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Whether the server listens on TCP 0.0.0.0:7470 ("true" or ""). */}}
{{- define "arrayd.tcp" -}}
{{- if or .Values.tls.enabled .Values.insecurePlaintextTCP -}}true{{- end -}}
{{- end -}}

{{/* One probe: grpc.health.v1 through the exec probe or the kubelet's gRPC probe. */}}
{{- define "arrayd.probeAction" -}}
{{- if eq .Values.probes.type "grpc" -}}
grpc:
  port: 7470
  service: ""
{{- else -}}
exec:
  command: ["/usr/local/bin/arrayd-healthcheck", "/run/arrayd/arrayd.sock"]
{{- end -}}
{{- end -}}
