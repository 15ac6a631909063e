{{- define "mirror.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mirror.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "mirror.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The image, and every setting: plain ones from values, secrets by reference only (`secretKeys`: a container's own). */}}
{{- define "mirror.container" -}}
{{- $values := .root.Values -}}
image: "{{ $values.image.repository }}:{{ $values.image.tag }}"
imagePullPolicy: {{ $values.image.pullPolicy }}
securityContext:
  {{- toYaml $values.securityContext | nindent 2 }}
env:
  - name: HOST
    value: "0.0.0.0"
  - name: MIRROR_DATA_DIR
    value: /var/lib/mirror
  {{- range $name, $value := merge (default dict .env) $values.env }}
  - name: {{ $name }}
    value: {{ $value | quote }}
  {{- end }}
  {{- range $name, $key := merge (default dict .secretKeys) $values.secrets.keys }}
  - name: {{ $name }}
    valueFrom:
      secretKeyRef:
        name: {{ $values.secrets.existingSecret }}
        key: {{ $key }}
  {{- end }}
volumeMounts:
  - name: data
    mountPath: /var/lib/mirror
  - name: tmp
    mountPath: /tmp
{{- end -}}

{{- define "mirror.volumes" -}}
volumes:
  - name: data
    emptyDir: {}
  - name: tmp
    emptyDir: {}
{{- end -}}
