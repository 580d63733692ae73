{{/* Names. */}}
{{- define "tabula.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tabula.fullname" -}}
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

{{- define "tabula.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The recommended labels. */}}
{{- define "tabula.labels" -}}
helm.sh/chart: {{ include "tabula.chart" . }}
{{ include "tabula.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tabula
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "tabula.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tabula.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: node
{{- end -}}

{{- define "tabula.redisSelectorLabels" -}}
app.kubernetes.io/name: {{ include "tabula.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: dev-redis
{{- end -}}

{{- define "tabula.redisLabels" -}}
helm.sh/chart: {{ include "tabula.chart" . }}
{{ include "tabula.redisSelectorLabels" . }}
app.kubernetes.io/version: {{ .Values.devRedis.image.tag | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tabula
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "tabula.postgresSelectorLabels" -}}
app.kubernetes.io/name: {{ include "tabula.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: dev-postgres
{{- end -}}

{{- define "tabula.postgresLabels" -}}
helm.sh/chart: {{ include "tabula.chart" . }}
{{ include "tabula.postgresSelectorLabels" . }}
app.kubernetes.io/version: {{ .Values.devPostgres.image.tag | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tabula
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "tabula.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tabula.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "tabula.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "tabula.redisName" -}}
{{- printf "%s-redis" (include "tabula.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tabula.postgresName" -}}
{{- printf "%s-postgres" (include "tabula.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Secret the chart creates (session secret, bot token, Redis URL, store URL). */}}
{{- define "tabula.secretName" -}}
{{- include "tabula.fullname" . -}}
{{- end -}}

{{/* Whether the chart creates its Secret: for the auth secrets, or for an inline Redis or PostgreSQL password. */}}
{{- define "tabula.createSecret" -}}
{{- if or (not .Values.auth.existingSecret) (and (not .Values.devRedis.enabled) .Values.externalRedis.password (not .Values.externalRedis.existingSecretUrlKey)) (eq (include "tabula.storeMode" .) "inline") -}}
true
{{- end -}}
{{- end -}}

{{/*
The node's settings as YAML: `config`, then `extraConfig`, then what the
chart sets itself. The ConfigMap renders it as TOML; the grace period is
computed from it.
*/}}
{{- define "tabula.settings" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- /* trusted_proxy_hops null: the chart's own Ingress or HTTPRoute is the one proxy in front. */ -}}
{{- $quotas := get $cfg "quotas" | default dict -}}
{{- if kindIs "invalid" (get $quotas "trusted_proxy_hops") -}}
{{- $_ := set $quotas "trusted_proxy_hops" (ternary 1 0 (or .Values.ingress.enabled .Values.httpRoute.enabled)) -}}
{{- $_ := set $cfg "quotas" $quotas -}}
{{- end -}}
{{- $derived := dict
  "server" (dict "listen" (printf "0.0.0.0:%d" (int .Values.containerPort)))
  "cluster" (dict "backplane" "redis" "peers" (list (printf "%s-peers.%s.svc:%d" (include "tabula.fullname" .) .Release.Namespace (int .Values.containerPort))))
  "redis" (dict "cluster" (and (not .Values.devRedis.enabled) .Values.externalRedis.cluster.enabled))
-}}
{{- range $section, $keys := .Values.extraConfig -}}
{{- if not (kindIs "map" $keys) -}}
{{- fail (printf "extraConfig.%s must be a table of keys" $section) -}}
{{- end -}}
{{- range $key, $value := $keys -}}
{{- if hasKey (get $cfg $section | default dict) $key -}}
{{- fail (printf "extraConfig.%s.%s repeats config.%s.%s; set it there" $section $key $section $key) -}}
{{- end -}}
{{- if or (hasKey (get $derived $section | default dict) $key) (and (eq $section "store") (eq $key "url")) -}}
{{- fail (printf "extraConfig.%s.%s is set by the chart" $section $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $cfg = mergeOverwrite $cfg (deepCopy .Values.extraConfig) $derived -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/* One TOML value: string, boolean, integer or array of those. */}}
{{- define "tabula.tomlValue" -}}
{{- if kindIs "string" . -}}
{{- toJson . -}}
{{- else if kindIs "bool" . -}}
{{- . -}}
{{- else if or (kindIs "float64" .) (kindIs "int" .) (kindIs "int64" .) -}}
{{- if ne (float64 .) (float64 (int64 .)) -}}
{{- fail (printf "config value %v is not an integer" .) -}}
{{- end -}}
{{- int64 . -}}
{{- else if kindIs "slice" . -}}
[{{ range $i, $e := . }}{{ if $i }}, {{ end }}{{ include "tabula.tomlValue" $e }}{{ end }}]
{{- else -}}
{{- fail (printf "config value %v (%s) cannot be rendered" . (kindOf .)) -}}
{{- end -}}
{{- end -}}

{{/* The settings as the node's TOML file. */}}
{{- define "tabula.configToml" -}}
# Rendered by the tabula Helm chart from its values; the node reads it as
# $TABULA_CONFIG_DIR/$TABULA_ENV.toml over its compiled-in defaults.
{{- range $section, $keys := (include "tabula.settings" . | fromYaml) }}

[{{ $section }}]
{{- range $key, $value := $keys }}
{{ $key }} = {{ include "tabula.tomlValue" $value }}
{{- end }}
{{- end }}
{{ end -}}

{{/* ceil(ms / 1000) */}}
{{- define "tabula.ceilSeconds" -}}
{{- div (add (int64 .) 999) 1000 -}}
{{- end -}}

{{/*
terminationGracePeriodSeconds: the preStop pause, then the node's whole
shutdown (hand the rooms off within drain_grace_ms, leave the cluster within
one Redis timeout, let in-flight HTTP finish within shutdown_timeout_secs),
plus a margin. tests/system/chart_drain.rs computes the same
sum from values.yaml and runs the drain within it.
*/}}
{{- define "tabula.terminationGracePeriodSeconds" -}}
{{- $s := include "tabula.settings" . | fromYaml -}}
{{- $drain := include "tabula.ceilSeconds" $s.cluster.drain_grace_ms | int64 -}}
{{- $redis := include "tabula.ceilSeconds" $s.redis.timeout_ms | int64 -}}
{{- $shutdown := int64 $s.server.shutdown_timeout_secs -}}
{{- add (int64 .Values.drain.preStopSeconds) $drain $shutdown $redis (int64 .Values.drain.marginSeconds) -}}
{{- end -}}

{{/* The Redis URL parts: scheme://[user[:password]@] */}}
{{- define "tabula.redisUserinfo" -}}
{{- $r := .Values.externalRedis -}}
{{- if and $r.existingSecret $r.existingSecretPasswordKey -}}
{{- printf "%s:$(REDIS_PASSWORD)@" (urlquery $r.username) -}}
{{- else if $r.password -}}
{{- printf "%s:%s@" (urlquery $r.username) (urlquery $r.password | replace "+" "%20") -}}
{{- else if $r.username -}}
{{- printf "%s@" (urlquery $r.username) -}}
{{- end -}}
{{- end -}}

{{/* A host:port (or redis://host:port/db URL) with the credentials put in. */}}
{{- define "tabula.redisUrlFor" -}}
{{- $addr := .addr -}}
{{- $scheme := "redis://" -}}
{{- if hasPrefix "redis://" $addr -}}
{{- $addr = trimPrefix "redis://" $addr -}}
{{- else if hasPrefix "rediss://" $addr -}}
{{- fail "externalRedis: rediss:// (TLS) is not supported by the node's Redis client build; use a TLS-terminating proxy or a private network" -}}
{{- end -}}
{{- if contains "@" $addr -}}
{{- fail "externalRedis: put credentials in username/password or a Secret, not in the URL" -}}
{{- end -}}
{{- printf "%s%s%s" $scheme (include "tabula.redisUserinfo" .root) $addr -}}
{{- end -}}

{{/* The single Redis URL, or the comma-separated Redis Cluster seeds. */}}
{{- define "tabula.redisUrls" -}}
{{- $r := .Values.externalRedis -}}
{{- if .Values.devRedis.enabled -}}
{{- printf "redis://%s:6379" (include "tabula.redisName" .) -}}
{{- else if $r.cluster.enabled -}}
{{- if not $r.cluster.nodes -}}
{{- fail "externalRedis.cluster.nodes: a Redis Cluster needs at least one seed host:port" -}}
{{- end -}}
{{- $urls := list -}}
{{- range $r.cluster.nodes -}}
{{- $urls = append $urls (include "tabula.redisUrlFor" (dict "root" $ "addr" .)) -}}
{{- end -}}
{{- join "," $urls -}}
{{- else if $r.url -}}
{{- include "tabula.redisUrlFor" (dict "root" . "addr" $r.url) -}}
{{- else -}}
{{- if not $r.host -}}
{{- fail "externalRedis: set host (or url, cluster.nodes, or existingSecret with existingSecretUrlKey), or devRedis.enabled for development" -}}
{{- end -}}
{{- include "tabula.redisUrlFor" (dict "root" . "addr" (printf "%s:%d" $r.host (int $r.port))) -}}
{{- end -}}
{{- end -}}

{{/* The env var the node reads the Redis address from. */}}
{{- define "tabula.redisEnvName" -}}
{{- if and (not .Values.devRedis.enabled) .Values.externalRedis.cluster.enabled -}}
TABULA__REDIS__URLS
{{- else -}}
TABULA__REDIS__URL
{{- end -}}
{{- end -}}

{{/*
Where the node's durable store URL (TABULA__STORE__URL) comes from:
  dev       devPostgres: the URL in the Secret <fullname>-postgres
  secretUrl externalPostgres.existingSecret / existingSecretUrlKey
  inline    externalPostgres.password: the URL in the chart's Secret
  plain     externalPostgres host or url (a password from
            existingSecretPasswordKey put in as $(STORE_PASSWORD), or none)
  none      nothing configured: an empty URL (no durable store)
Refuses the combinations that would lose or leak a credential.
*/}}
{{- define "tabula.storeMode" -}}
{{- $pg := .Values.externalPostgres -}}
{{- if .Values.devPostgres.enabled -}}
dev
{{- else -}}
{{- if and $pg.existingSecretPasswordKey (not $pg.existingSecret) -}}
{{- fail "externalPostgres.existingSecretPasswordKey needs externalPostgres.existingSecret" -}}
{{- end -}}
{{- if and $pg.existingSecretUrlKey (not $pg.existingSecret) -}}
{{- fail "externalPostgres.existingSecretUrlKey needs externalPostgres.existingSecret" -}}
{{- end -}}
{{- if and $pg.existingSecret (not $pg.existingSecretUrlKey) (not $pg.existingSecretPasswordKey) -}}
{{- fail "externalPostgres.existingSecret needs existingSecretUrlKey (the whole URL) or existingSecretPasswordKey (the password)" -}}
{{- end -}}
{{- if and $pg.password $pg.existingSecret -}}
{{- fail "externalPostgres: give the password either inline (password) or in existingSecret, not both" -}}
{{- end -}}
{{- if and $pg.existingSecret $pg.existingSecretUrlKey -}}
secretUrl
{{- else if or $pg.host $pg.url -}}
{{- if $pg.password -}}
inline
{{- else -}}
plain
{{- end -}}
{{- else if or $pg.password $pg.existingSecretPasswordKey -}}
{{- fail "externalPostgres: a password but no server; set host (or url), or existingSecret with existingSecretUrlKey" -}}
{{- else -}}
none
{{- end -}}
{{- end -}}
{{- end -}}

{{/* user[:password]@ for an external PostgreSQL (the password URL-encoded, or $(STORE_PASSWORD)). */}}
{{- define "tabula.storeUserinfo" -}}
{{- $pg := .Values.externalPostgres -}}
{{- if not $pg.username -}}
{{- fail "externalPostgres.username: the node needs a PostgreSQL user" -}}
{{- end -}}
{{- $user := urlquery $pg.username | replace "+" "%20" -}}
{{- if and $pg.existingSecret $pg.existingSecretPasswordKey -}}
{{- printf "%s:$(STORE_PASSWORD)@" $user -}}
{{- else if $pg.password -}}
{{- printf "%s:%s@" $user (urlquery $pg.password | replace "+" "%20") -}}
{{- else -}}
{{- printf "%s@" $user -}}
{{- end -}}
{{- end -}}

{{/* The external PostgreSQL's URL, credentials put in. */}}
{{- define "tabula.storeUrl" -}}
{{- $pg := .Values.externalPostgres -}}
{{- if $pg.url -}}
{{- $scheme := "" -}}
{{- range list "postgres://" "postgresql://" -}}
{{- if hasPrefix . $pg.url -}}{{- $scheme = . -}}{{- end -}}
{{- end -}}
{{- if not $scheme -}}
{{- fail "externalPostgres.url must start with postgres:// (a PostgreSQL shared by every node)" -}}
{{- end -}}
{{- $rest := trimPrefix $scheme $pg.url -}}
{{- if contains "@" $rest -}}
{{- fail "externalPostgres: put credentials in username/password or a Secret, not in the URL" -}}
{{- end -}}
{{- printf "%s%s%s" $scheme (include "tabula.storeUserinfo" .) $rest -}}
{{- else -}}
{{- printf "postgres://%s%s:%d/%s" (include "tabula.storeUserinfo" .) $pg.host (int $pg.port) (urlquery $pg.database | replace "+" "%20") -}}
{{- end -}}
{{- end -}}

{{/*
The development PostgreSQL's password: devPostgres.password, else the one
generated at install (kept in its Secret across upgrades), else a new one.
*/}}
{{- define "tabula.devPostgresPassword" -}}
{{- if .Values.devPostgres.password -}}
{{- .Values.devPostgres.password -}}
{{- else -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "tabula.postgresName" .) -}}
{{- if and $existing $existing.data (hasKey $existing.data "password") -}}
{{- index $existing.data "password" | b64dec -}}
{{- else -}}
{{- randAlphaNum 32 -}}
{{- end -}}
{{- end -}}
{{- end -}}
