{{/*
The workloads and what never changes between installs: their ports, databases, Kafka principals
(files/kafka-access.json) and who calls whom over RPC. Every template loops over this one table,
so a workload is added in one place.
*/}}
{{- define "petstore.topology" -}}
gateway:
  httpPort: 3000
  metricsPort: 9464
  metricsPortName: metrics
  calls: [catalog, orders, inventory]
catalog:
  httpPort: 3001
  rpcPort: 4001
  metricsPortName: http
  database: petstore_catalog
  kafkaPrincipal: catalog
  calls: []
orders:
  httpPort: 3002
  rpcPort: 4002
  metricsPortName: http
  database: petstore_orders
  kafkaPrincipal: orders
  calls: [catalog]
inventory:
  httpPort: 3003
  rpcPort: 4003
  metricsPortName: http
  database: petstore_inventory
  kafkaPrincipal: inventory
  calls: [catalog]
{{- end -}}

{{- define "petstore.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* The labels a workload's pods are selected by: (dict "root" $ "component" name). */}}
{{- define "petstore.selectorLabels" -}}
app.kubernetes.io/name: petstore
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "petstore.labels" -}}
{{ include "petstore.selectorLabels" . }}
app.kubernetes.io/part-of: petstore
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* Every pod of the release, whatever its component: what the default-deny policy selects. */}}
{{- define "petstore.releaseSelector" -}}
app.kubernetes.io/name: petstore
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "petstore.image" -}}
{{- $image := .root.Values.image -}}
{{- $registry := ternary "" (printf "%s/" $image.registry) (empty $image.registry) -}}
{{- printf "%s%s-%s:%s" $registry $image.repository .component (default .root.Chart.AppVersion $image.tag) -}}
{{- end -}}

{{- define "petstore.kafkaClusterName" -}}
{{- default (printf "%s-kafka" (include "petstore.fullname" .)) .Values.kafka.strimzi.clusterName -}}
{{- end -}}

{{/* The port of the Strimzi cluster's client listener: TLS, then SCRAM-SHA-512 (templates/kafka.yaml). */}}
{{- define "petstore.strimziClientPort" -}}9093{{- end -}}

{{- define "petstore.kafkaBootstrap" -}}
{{- if eq .Values.kafka.mode "strimzi" -}}
{{- printf "%s-kafka-bootstrap:%s" (include "petstore.kafkaClusterName" .) (include "petstore.strimziClientPort" .) -}}
{{- else -}}
{{- .Values.kafka.external.bootstrapServers -}}
{{- end -}}
{{- end -}}

{{/* The access table of libs/contracts (files/kafka-access.json, written by `npx nx run contracts:kafka-chart`). */}}
{{- define "petstore.kafkaAccess" -}}
{{- .Files.Get "files/kafka-access.json" -}}
{{- end -}}

{{/*
The principals the chart gives credentials to: one per service, and the dead-letter tool's
(`main.js dlt`, README "Dead letters"). The tests' and benchmarks' observers (probe, bench) do not
run here.
*/}}
{{- define "petstore.kafkaUsers" -}}
{{- $table := include "petstore.kafkaAccess" . | fromJson -}}
{{- concat $table.services (list $table.tools.deadLetters) | toJson -}}
{{- end -}}

{{/* Strimzi names the Secret of a KafkaUser <secretPrefix><user>; the Kafka's userOperator sets this prefix. */}}
{{- define "petstore.strimziUserSecretPrefix" -}}{{ include "petstore.kafkaClusterName" . }}-user-{{- end -}}

{{/* Where a process's Kafka password and the CA of the brokers' certificates are mounted. */}}
{{- define "petstore.kafkaPasswordDir" -}}/var/run/secrets/kafka{{- end -}}
{{- define "petstore.kafkaCaDir" -}}/var/run/secrets/kafka-ca{{- end -}}

{{/*
The volumes of one principal's Kafka password and the brokers' CA, (dict "root" $ "principal" name):
with Strimzi, the Secret its User Operator made for the principal's KafkaUser (key `password`)
and the cluster CA's public certificate; with external Kafka, the key <principal>-kafka-password
of the existing Secret and ca.crt of kafka.external.caSecret.
*/}}
{{- define "petstore.kafkaVolumes" -}}
{{- $values := .root.Values -}}
- name: kafka-password
  secret:
    {{- if eq $values.kafka.mode "strimzi" }}
    secretName: {{ include "petstore.strimziUserSecretPrefix" .root }}{{ .principal }}
    defaultMode: 0440
    items:
      - key: password
        path: password
    {{- else }}
    secretName: {{ $values.secrets.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .principal }}-kafka-password
        path: password
    {{- end }}
- name: kafka-ca
  secret:
    secretName: {{ ternary (printf "%s-cluster-ca-cert" (include "petstore.kafkaClusterName" .root)) $values.kafka.external.caSecret (eq $values.kafka.mode "strimzi") }}
    defaultMode: 0444
    items:
      - key: ca.crt
        path: ca.crt
{{- end -}}

{{- define "petstore.kafkaMounts" -}}
- name: kafka-password
  mountPath: {{ include "petstore.kafkaPasswordDir" . }}
  readOnly: true
- name: kafka-ca
  mountPath: {{ include "petstore.kafkaCaDir" . }}
  readOnly: true
{{- end -}}

{{/* A Kafka client's environment but its password: the brokers, its principal, the files (dict "root" $ "principal" name). */}}
{{- define "petstore.kafkaClientConfig" -}}
KAFKA_BROKERS: {{ include "petstore.kafkaBootstrap" .root | quote }}
KAFKA_NAMESPACE: {{ .root.Values.kafka.namespace | quote }}
KAFKA_SASL_USERNAME: {{ .principal | quote }}
KAFKA_SASL_PASSWORD_FILE: {{ include "petstore.kafkaPasswordDir" .root }}/password
KAFKA_TLS_CA_FILE: {{ include "petstore.kafkaCaDir" .root }}/ca.crt
{{- end -}}

{{/* A service's DATABASE_URL: its own role, no password (that comes from DATABASE_PASSWORD_FILE). */}}
{{- define "petstore.databaseUrl" -}}
{{- $pg := .root.Values.postgresql -}}
{{- $params := list -}}
{{- if $pg.caSecret }}{{ $params = append $params (printf "sslmode=verify-full&sslrootcert=%s/ca.crt" (include "petstore.databaseCaDir" .root)) }}{{ end -}}
{{- if $pg.options }}{{ $params = append $params $pg.options }}{{ end -}}
{{- printf "postgres://%s@%s:%d/%s" .database $pg.host (int $pg.port) .database -}}
{{- if $params }}?{{ join "&" $params }}{{ end -}}
{{- end -}}

{{/* Where the CA that signed PostgreSQL's certificate is mounted (postgresql.caSecret). */}}
{{- define "petstore.databaseCaDir" -}}/var/run/secrets/postgresql-ca{{- end -}}

{{/* The volume of postgresql.caSecret, for a pod that connects to PostgreSQL. */}}
{{- define "petstore.databaseCaVolume" -}}
{{- if .Values.postgresql.caSecret }}
- name: postgresql-ca
  secret:
    secretName: {{ .Values.postgresql.caSecret }}
    defaultMode: 0444
    items:
      - key: ca.crt
        path: ca.crt
{{- end }}
{{- end -}}

{{- define "petstore.databaseCaMount" -}}
{{- if .Values.postgresql.caSecret }}
- name: postgresql-ca
  mountPath: {{ include "petstore.databaseCaDir" . }}
  readOnly: true
{{- end }}
{{- end -}}

{{/* Where the database password of a service's role is mounted from the existing Secret. */}}
{{- define "petstore.passwordDir" -}}/var/run/secrets/petstore{{- end -}}

{{/* A workload's NATS user: nats.userPrefix and its name (the generated permissions name the same users). */}}
{{- define "petstore.natsUser" -}}{{ .root.Values.nats.userPrefix }}{{ .name }}{{- end -}}

{{/* The environment variable the NATS server reads a workload's password from (the nats-authorization ConfigMap). */}}
{{- define "petstore.natsPasswordVariable" -}}PETSTORE_{{ upper .name }}_NATS_PASSWORD{{- end -}}

{{/* Where a workload's NATS and Redis passwords, and the CAs of nats.caSecret and rateLimit.caSecret, are mounted. */}}
{{- define "petstore.natsPasswordDir" -}}/var/run/secrets/nats{{- end -}}
{{- define "petstore.natsCaDir" -}}/var/run/secrets/nats-ca{{- end -}}
{{- define "petstore.redisPasswordDir" -}}/var/run/secrets/redis{{- end -}}
{{- define "petstore.redisCaDir" -}}/var/run/secrets/redis-ca{{- end -}}

{{/* The volumes of a workload's own NATS password (and the gateway's Redis password) from the existing Secret, and the CAs. */}}
{{- define "petstore.busVolumes" -}}
{{- $values := .root.Values -}}
{{- if eq $values.rpc.transport "nats" }}
- name: nats-password
  secret:
    secretName: {{ $values.secrets.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .name }}-nats-password
        path: nats-password
- name: nats-ca
  secret:
    secretName: {{ $values.nats.caSecret }}
    defaultMode: 0444
    items:
      - key: ca.crt
        path: ca.crt
{{- end }}
{{- if and (eq .name "gateway") $values.rateLimit.redisUrl }}
- name: redis-password
  secret:
    secretName: {{ $values.secrets.existingSecret }}
    defaultMode: 0440
    items:
      - key: rate-limit-redis-password
        path: redis-password
{{- if $values.rateLimit.caSecret }}
- name: redis-ca
  secret:
    secretName: {{ $values.rateLimit.caSecret }}
    defaultMode: 0444
    items:
      - key: ca.crt
        path: ca.crt
{{- end }}
{{- end }}
{{- end -}}

{{- define "petstore.busMounts" -}}
{{- $values := .root.Values -}}
{{- if eq $values.rpc.transport "nats" }}
- name: nats-password
  mountPath: {{ include "petstore.natsPasswordDir" . }}
  readOnly: true
- name: nats-ca
  mountPath: {{ include "petstore.natsCaDir" . }}
  readOnly: true
{{- end }}
{{- if and (eq .name "gateway") $values.rateLimit.redisUrl }}
- name: redis-password
  mountPath: {{ include "petstore.redisPasswordDir" . }}
  readOnly: true
{{- if $values.rateLimit.caSecret }}
- name: redis-ca
  mountPath: {{ include "petstore.redisCaDir" . }}
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* Seconds a pod gets between SIGTERM and SIGKILL: the shutdown delay, the drain, and a margin. */}}
{{- define "petstore.terminationGracePeriodSeconds" -}}
{{- $s := .Values.shutdown -}}
{{- add (div (add $s.delayMs $s.drainTimeoutMs 999) 1000) $s.graceMarginSeconds -}}
{{- end -}}

{{/* The replica count that decides whether a PodDisruptionBudget makes sense. */}}
{{- define "petstore.minReplicas" -}}
{{- if .autoscaling.enabled -}}{{ .autoscaling.minReplicas }}{{- else -}}{{ .replicas }}{{- end -}}
{{- end -}}

{{/* Network policy peers: `from:`/`to:` with the list at the given indent, or nothing (any address) when empty. */}}
{{- define "petstore.peers" -}}
{{- if .peers }}{{ printf "%s:" .key | nindent .indent }}{{ toYaml .peers | nindent (add .indent 2 | int) }}{{- end }}
{{- end -}}

{{/* The Strimzi broker pods, for the services' egress. */}}
{{- define "petstore.strimziBrokerPeers" -}}
- podSelector:
    matchLabels:
      strimzi.io/cluster: {{ include "petstore.kafkaClusterName" . }}
      strimzi.io/broker-role: "true"
{{- end -}}
