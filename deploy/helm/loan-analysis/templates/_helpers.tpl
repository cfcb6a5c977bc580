{{/* Name of the chart. */}}
{{- define "loan.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Fully qualified release name. */}}
{{- define "loan.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of a component's objects: dict "root" $ "name" "gateway". */}}
{{- define "loan.componentName" -}}
{{- printf "%s-%s" (include "loan.fullname" .root | trunc 50 | trimSuffix "-") .name -}}
{{- end -}}

{{- define "loan.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "loan.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: loan-analysis
{{- end -}}

{{/* Selector labels of a component: dict "root" $ "name" "gateway". */}}
{{- define "loan.selectorLabels" -}}
app.kubernetes.io/name: {{ include "loan.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "loan.componentLabels" -}}
{{ include "loan.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "loan.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "loan.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "loan.secretName" -}}
{{- default (printf "%s-secrets" (include "loan.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* Image of a component: dict "root" $ "name" "gateway". */}}
{{- define "loan.image" -}}
{{- $img := .root.Values.image -}}
{{- $own := (index .root.Values.components .name).image | default dict -}}
{{- $repo := printf "%s/%s" $img.repository .name -}}
{{- if $img.registry -}}{{- $repo = printf "%s/%s" $img.registry $repo -}}{{- end -}}
{{- $repo = $own.repository | default $repo -}}
{{- printf "%s:%s" $repo ($own.tag | default $img.tag | default .root.Chart.AppVersion) -}}
{{- end -}}

{{/*
"true" when a KEDA ScaledObject scales the component (dict "root" $ "name" "scoring"): KEDA
is on for the release or for the component (components.<name>.keda.enabled wins), and the
component consumes a topic of kafka.topics.list.
*/}}
{{- define "loan.kedaEnabled" -}}
{{- $c := index .root.Values.components .name -}}
{{- $on := .root.Values.keda.enabled -}}
{{- if hasKey ($c.keda | default dict) "enabled" -}}{{- $on = $c.keda.enabled -}}{{- end -}}
{{- if and $on (include "loan.consumedTopics" . ) -}}true{{- end -}}
{{- end -}}

{{/* The topics of kafka.topics.list a component consumes, space-separated (dict "root" $ "name" "scoring"). */}}
{{- define "loan.consumedTopics" -}}
{{- $name := .name -}}
{{- $topics := list -}}
{{- range .root.Values.kafka.topics.list -}}
{{- if has $name (.consumers | default list) -}}{{- $topics = append $topics .name -}}{{- end -}}
{{- end -}}
{{- join " " $topics -}}
{{- end -}}

{{/*
The consumer group, before the topic namespace, a component reads a topic of kafka.topics.list
in: dict "root" $ "name" "applications" "topic" <entry>. The topic's `groups` names it for that
component (the applications service reads its commands in a group of their own); otherwise the
component's CONSUMER_GROUP, or its name.
*/}}
{{- define "loan.consumerGroup" -}}
{{- $c := index .root.Values.components .name -}}
{{- index (.topic.groups | default dict) .name | default ($c.env).CONSUMER_GROUP | default .name -}}
{{- end -}}

{{/* In-cluster URL of a component's HTTP port: dict "root" $ "name" "sandbox". */}}
{{- define "loan.componentUrl" -}}
{{- $c := index .root.Values.components .name -}}
{{- printf "http://%s:%v" (include "loan.componentName" .) $c.port -}}
{{- end -}}

{{/* Replicas a component may run at most (the HPA maximum, or its fixed count). */}}
{{- define "loan.maxReplicas" -}}
{{- if .autoscaling.enabled -}}{{- .autoscaling.maxReplicas -}}{{- else -}}{{- .replicas -}}{{- end -}}
{{- end -}}

{{/*
Partitions of a topic: dict "root" $ "topic" <entry of kafka.topics.list>. At least
kafka.topics.partitions (or the topic's own `partitions`), and at least the largest replica
count of the enabled services consuming it, so that no consumer replica sits idle.
*/}}
{{- define "loan.topicPartitions" -}}
{{- $root := .root -}}
{{- $n := int (default $root.Values.kafka.topics.partitions .topic.partitions) -}}
{{- range .topic.consumers -}}
{{- $c := index $root.Values.components . -}}
{{- if not $c -}}{{- fail (printf "kafka.topics.list: %s is consumed by unknown component %s" $.topic.name .) -}}{{- end -}}
{{- if $c.enabled -}}
{{- $r := int (include "loan.maxReplicas" $c) -}}
{{- if gt $r $n -}}{{- $n = $r -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- $n -}}
{{- end -}}

{{/*
V8 heap limit in MiB: three quarters of the container's memory limit, so the process fails
with a heap error rather than being killed by the kernel. Every Kubernetes quantity form:
binary (Ki, Mi, Gi, Ti), decimal (k, M, G, T), plain bytes, decimals and exponents
(1.5Gi, 1G, 1073741824, 1e9).
*/}}
{{- define "loan.heapMegabytes" -}}
{{- $q := toString (default "512Mi" (.limits).memory) -}}
{{- $units := list (list "Ki" 1024.0) (list "Mi" 1048576.0) (list "Gi" 1073741824.0) (list "Ti" 1099511627776.0) (list "k" 1000.0) (list "M" 1000000.0) (list "G" 1000000000.0) (list "T" 1000000000000.0) -}}
{{- $bytes := float64 $q -}}
{{- range $units -}}
{{- if hasSuffix (index . 0) $q -}}
{{- $bytes = mulf (float64 (trimSuffix (index . 0) $q)) (index . 1) -}}
{{- end -}}
{{- end -}}
{{- if le $bytes 0.0 -}}{{- fail (printf "memory limit %q is not a Kubernetes quantity" $q) -}}{{- end -}}
{{- floor (divf (mulf $bytes 3.0) 4194304.0) | int -}}
{{- end -}}

{{/* Topic settings as "key=value key=value" (sorted). */}}
{{- define "loan.topicConfig" -}}
{{- $pairs := list -}}
{{- range $k, $v := . -}}{{- $pairs = append $pairs (printf "%s=%v" $k $v) -}}{{- end -}}
{{- join " " $pairs -}}
{{- end -}}

{{- /*
The settings of one service (dict "root" $ "name" "gateway"): the data of its ConfigMap, and
what its pods' checksum/config annotation hashes, so that a change of one service's settings
restarts only that service.
*/}}
{{- define "loan.configData" -}}
{{- $root := .root }}
{{- $name := .name }}
{{- $c := index .root.Values.components .name }}
{{- $sandboxOn := .root.Values.components.sandbox.enabled }}
{{- if $c.platform }}
SERVICE_NAME: {{ $name | quote }}
NODE_ENV: {{ $root.Values.nodeEnv | quote }}
HTTP_HOST: "0.0.0.0"
HTTP_PORT: {{ $c.internalPort | default $c.port | quote }}
LOG_LEVEL: {{ $root.Values.logLevel | quote }}
SHUTDOWN_TIMEOUT: {{ $root.Values.shutdownTimeout | quote }}
KAFKA_BROKERS: {{ $root.Values.kafka.brokers | quote }}
KAFKA_SSL: {{ $root.Values.kafka.tls.enabled | toString | quote }}
{{- with $root.Values.kafka.sasl.mechanism }}
KAFKA_SASL_MECHANISM: {{ . | quote }}
{{- end }}
KAFKA_TOPIC_NAMESPACE: {{ $root.Values.kafka.topicNamespace | quote }}
KAFKA_TOPIC_PARTITIONS: {{ $root.Values.kafka.topics.partitions | quote }}
KAFKA_REPLICATION_FACTOR: {{ $root.Values.kafka.topics.replicationFactor | quote }}
KAFKA_RETENTION: {{ $root.Values.kafka.topics.retention | quote }}
KAFKA_EVENTS_RETENTION: {{ $root.Values.kafka.topics.eventsRetention | quote }}
SCHEMA_REGISTRY_URL: {{ $root.Values.schemaRegistry.url | quote }}
{{- with $root.Values.tracing }}
{{- if .otlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ .otlpEndpoint | quote }}
OTEL_EXPORTER_OTLP_PROTOCOL: {{ .protocol | default "http/protobuf" | quote }}
OTEL_TRACES_SAMPLER: "parentbased_traceidratio"
OTEL_TRACES_SAMPLER_ARG: {{ .sampleRatio | default "0.1" | toString | quote }}
TRACE_DB_COMMANDS: {{ .dbSpans | default false | toString | quote }}
OTEL_RESOURCE_ATTRIBUTES: {{ printf "k8s.namespace.name=%s%s" $root.Release.Namespace (ternary (printf ",%s" .resourceAttributes) "" (ne .resourceAttributes "")) | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- if eq $name "gateway" }}
GATEWAY_PORT: {{ $c.port | quote }}
NOTIFIER_URL: {{ include "loan.componentUrl" (dict "root" $root "name" "notifier") | quote }}
SCORING_URL: {{ include "loan.componentUrl" (dict "root" $root "name" "scoring") | quote }}
{{- with ($root.Values.tracing).uiUrl }}
TRACE_UI_URL: {{ . | quote }}
{{- end }}
{{- end }}
{{- if or (eq $name "applications") (eq $name "enrichment") }}
PROVIDER_BASE_URL: {{ ternary (include "loan.componentUrl" (dict "root" $root "name" "sandbox")) $root.Values.provider.baseUrl $sandboxOn | quote }}
{{- end }}
{{- if eq $name "applications" }}
PROVIDER_REDIRECT_URL: {{ printf "%s/linked" (trimSuffix "/" $root.Values.publicUrl) | quote }}
{{- end }}
{{- if eq $name "scoring" }}
{{- $bureau := ternary (include "loan.componentUrl" (dict "root" $root "name" "sandbox")) $root.Values.bureau.baseUrl $sandboxOn }}
{{- if not $bureau }}{{ fail "bureau.baseUrl is required when the sandbox is disabled" }}{{ end }}
BUREAU_BASE_URL: {{ $bureau | quote }}
{{- end }}
{{- if eq $name "sandbox" }}
SANDBOX_HOST: "0.0.0.0"
SANDBOX_PORT: {{ $c.port | quote }}
SANDBOX_PUBLIC_URL: {{ $c.publicUrl | quote }}
PROVIDER_WEBHOOK_URL: {{ printf "%s/provider/webhooks/mono" (include "loan.componentUrl" (dict "root" $root "name" "gateway")) | quote }}
{{- end }}
{{- range $key, $value := $c.env }}
{{ $key }}: {{ $value | toString | quote }}
{{- end }}
{{- end }}
