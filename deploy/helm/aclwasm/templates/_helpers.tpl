{{/* The chart's name, or nameOverride. */}}
{{- define "aclwasm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The objects' name: fullnameOverride, or RELEASE-NAME (RELEASE alone when it already holds the name). */}}
{{- define "aclwasm.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "aclwasm.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The labels that select the pods. */}}
{{- define "aclwasm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "aclwasm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Every object's labels. */}}
{{- define "aclwasm.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "aclwasm.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: server
{{- end }}

{{- define "aclwasm.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "aclwasm.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image reference: by digest when one is given. */}}
{{- define "aclwasm.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* http, or https with TLS on: the port's name and the probes' scheme. */}}
{{- define "aclwasm.portName" -}}
{{- if .Values.tls.enabled }}https{{ else }}http{{ end }}
{{- end }}

{{/* The Secret the TLS files come from. */}}
{{- define "aclwasm.tlsSecret" -}}
{{- default (printf "%s-tls" (include "aclwasm.fullname" .)) .Values.tls.existingSecret }}
{{- end }}

{{/* "true" when the server has TLS and access rules: it then serves its port without --insecure. */}}
{{- define "aclwasm.secure" -}}
{{- if and .Values.tls.enabled .Values.config.access }}true{{ end }}
{{- end }}

{{/* "true" when some access rule grants the metrics admin action. */}}
{{- define "aclwasm.metricsGranted" -}}
{{- range .Values.config.access }}
{{- if or (has "metrics" (default (list) .admin)) (has "*" (default (list) .admin)) }}true{{ end }}
{{- end }}
{{- end }}

{{/*
Values that render but could not work: the server would refuse its port,
or Prometheus could not scrape. Each fails with what to give instead.
*/}}
{{- define "aclwasm.check" -}}
{{- if and (not (include "aclwasm.secure" .)) (not .Values.server.insecure) }}
{{- fail "server.insecure: false needs TLS (tls.enabled) and access rules (config.access): without both the server refuses a port other pods can reach" }}
{{- end }}
{{- if and .Values.networkPolicy.enabled (not .Values.networkPolicy.allowAllSources) (not .Values.networkPolicy.ingressFrom) }}
{{- fail "networkPolicy.ingressFrom is empty: no client could reach the server; give peers, or networkPolicy.allowAllSources: true" }}
{{- end }}
{{- if .Values.serviceMonitor.enabled }}
{{- $cert := and .Values.tls.enabled (hasKey .Values.serviceMonitor.tlsConfig "cert") }}
{{- if and .Values.tls.enabled .Values.tls.verifyClients (not $cert) }}
{{- fail "serviceMonitor with tls.verifyClients: Prometheus must present a client certificate: give serviceMonitor.tlsConfig.cert and keySecret" }}
{{- end }}
{{- if .Values.config.access }}
{{- if not (or .Values.serviceMonitor.bearerTokenSecret.name $cert) }}
{{- fail "serviceMonitor with access rules (config.access): /metrics needs a token; give serviceMonitor.bearerTokenSecret.name, a Secret with a token whose hash a rule grants admin: [metrics]" }}
{{- end }}
{{- if not (include "aclwasm.metricsGranted" .) }}
{{- fail "serviceMonitor with access rules (config.access): no rule grants admin: [metrics], so Prometheus would get 403; add a rule for its token" }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The server's guest memory budget in bytes (--max-guest-memory):
server.maxGuestMemory when set, else server.maxGuestMemoryPercent of
resources.limits.memory (a Kubernetes quantity: a whole number with a
binary or decimal suffix); empty without either, or for "0".
*/}}
{{- define "aclwasm.maxGuestMemory" -}}
{{- $set := .Values.server.maxGuestMemory | default "" | toString -}}
{{- if $set -}}
{{- if ne $set "0" }}{{ $set }}{{ end -}}
{{- else -}}
{{- $lim := dig "limits" "memory" "" (.Values.resources | default dict) | toString -}}
{{- if $lim -}}
{{- $num := regexFind "^[0-9]+" $lim -}}
{{- $unit := trimPrefix $num $lim -}}
{{- $mult := dict "" 1 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 -}}
{{- if or (not $num) (not (hasKey $mult $unit)) -}}
{{- fail (printf "resources.limits.memory %q: set server.maxGuestMemory (the chart derives it only from a whole number with a suffix such as Mi or Gi)" $lim) -}}
{{- end -}}
{{- div (mul (atoi $num) (get $mult $unit) (.Values.server.maxGuestMemoryPercent | default 75 | int)) 100 -}}
{{- end -}}
{{- end -}}
{{- end -}}
