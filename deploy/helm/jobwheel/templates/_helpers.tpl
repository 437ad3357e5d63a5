{{- define "jobwheel.labels" -}}
app.kubernetes.io/name: jobwheel
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "jobwheel.serverSelector" -}}
app.kubernetes.io/name: jobwheel
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end -}}
