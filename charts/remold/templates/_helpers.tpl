{{- /* Written by java -jar remold-installer.jar --helm-chart. */ -}}

{{- /* The resources script rules receive events of: scriptKinds, or pods with jsAdmissionsCompat (the installer's
default), as a JSON list. */ -}}
{{- define "remold.scriptKinds" -}}
{{- if kindIs "slice" .Values.scriptKinds -}}
{{- toJson .Values.scriptKinds -}}
{{- else if .Values.jsAdmissionsCompat -}}
["pods"]
{{- else -}}
[]
{{- end -}}
{{- end -}}

{{- /* RBAC rules granting .verbs on .resources ([group/]plural): one rule per API group, groups sorted, as the
bundle writes them. */ -}}
{{- define "remold.groupRules" -}}
{{- $groups := dict -}}
{{- range uniq .resources -}}
{{- $parts := splitList "/" . -}}
{{- $group := ternary (first $parts) "" (eq (len $parts) 2) -}}
{{- $_ := set $groups $group (append (get $groups $group | default list) (last $parts)) -}}
{{- end -}}
{{- $verbs := .verbs -}}
{{- range $group, $plurals := $groups }}
- apiGroups:
  - {{ $group | quote }}
  resources:
  {{- range $plurals }}
  - {{ . | quote }}
  {{- end }}
  verbs:
  {{- range $verbs }}
  - {{ . }}
  {{- end }}
{{- end -}}
{{- end -}}

{{- /* Tolerations of key[=value][:effect] taints, as the installer's --tolerations reads them. */ -}}
{{- define "remold.tolerations" -}}
{{- range . }}
{{- $parts := splitList ":" . }}
{{- $keyValue := splitList "=" (first $parts) }}
- key: {{ first $keyValue | quote }}
  operator: {{ ternary "Equal" "Exists" (eq (len $keyValue) 2) }}
  {{- if eq (len $keyValue) 2 }}
  value: {{ last $keyValue | quote }}
  {{- end }}
  {{- if eq (len $parts) 2 }}
  effect: {{ last $parts | quote }}
  {{- end }}
{{- end -}}
{{- end -}}
