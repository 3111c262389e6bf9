#!/usr/bin/env bash
# Run a real single-node Apache Kafka broker (KRaft mode, no ZooKeeper) for
# local development and tests, using the official jars from Maven Central.
#
#   scripts/kafka.sh start    start the broker (no-op if the port already answers)
#   scripts/kafka.sh stop     SIGTERM the broker, SIGKILL after 30 s
#   scripts/kafka.sh status   exit 0 if the broker port answers
#   scripts/kafka.sh wait     wait until the broker answers a metadata request
#   scripts/kafka.sh reset    stop and delete all broker data
#   scripts/kafka.sh rotate <principal>
#                             give a principal a new SCRAM password (docs/OPERATIONS.md, Rotation)
#
#   scripts/kafka.sh cluster {start|stop|status|wait|reset}
#                             the same for a cluster of three KRaft nodes (each broker and
#                             controller) with replication factor 3 and min.insync.replicas 2
#   scripts/kafka.sh cluster {start-node|stop-node|kill-node|pid} <1-3>
#                             one node of the cluster (kill-node: SIGKILL, for fault tests)
#
# Environment:
#   KAFKA_PORT             client listener port        (default 9092)
#   KAFKA_CONTROLLER_PORT  KRaft controller port       (default 9093)
#   KAFKA_INTERNAL_PORT    the nodes' own listener     (default KAFKA_PORT + 2; mutual TLS)
#   KAFKA_SECRETS_DIR      CA, node certificate, SCRAM passwords (default $KAFKA_DATA_DIR/secrets)
#   KAFKA_WAIT_TIMEOUT     readiness timeout, seconds  (default 90)
#   KAFKA_PRINCIPALS       who gets a SCRAM credential (default: libs/contracts' access table and admin)
#   PETSTORE_CACHE         cache root                  (default ~/.cache/petstore)
#   KAFKA_DATA_DIR         broker data, pid and logs   (default $PETSTORE_CACHE/kafka-data)
#                          a second broker (the end-to-end tests' own) needs its own ports and data dir
#   KAFKA_HEAP_OPTS        broker heap                 (default -Xms256m -Xmx512m; a cluster node -Xms128m -Xmx384m)
#   KAFKA_PLAINTEXT=true   clients connect in plaintext, without authentication, and no ACL is
#                          checked: only for the benchmark of what security costs, which also sets
#                          BUS_SECURITY_OFF_BENCH_ONLY=true, and only with a KAFKA_DATA_DIR of its own
#
# Cluster mode (node n = 1, 2, 3 listens on KAFKA_CLUSTER_PORT + 10 * (n - 1), its controller one above):
#   KAFKA_CLUSTER_PORT     first node's client port    (default 9192: nodes on 9192, 9202, 9212)
#   KAFKA_CLUSTER_DATA_DIR the nodes' data dirs        (default $PETSTORE_CACHE/kafka-cluster/node-<n>)
#
# Nothing is written inside the repository: jars live in
# $PETSTORE_CACHE/kafka-<version>/libs, data, pid file, rendered config and
# logs in $PETSTORE_CACHE/kafka-data.
#
# Every client authenticates: TLS, then SCRAM-SHA-512 as one of the principals of libs/contracts'
# Kafka access table (kafka-access.ts) or as `admin`. On first start this script makes a CA, the
# node's certificate and a random password per principal, in files of mode 0600 under
# KAFKA_SECRETS_DIR (<principal>.password, ca.pem), and gives each principal its SCRAM credential;
# a broker whose data predates authentication gets them the same way, keeping its data. The ACLs
# and topics are provisioning's (tools/stack), done as `admin`.
set -euo pipefail

readonly KAFKA_VERSION=3.9.2
# Kafka 3.9 is built against slf4j 1.7.36 and ships reload4j 1.2.25 in its
# distribution tarball; the Maven POM brings no logging backend at all.
readonly SLF4J_VERSION=1.7.36
readonly RELOAD4J_VERSION=1.2.25
readonly DEPENDENCY_PLUGIN_VERSION=3.8.1
# Any fixed, valid (base64url, 16 bytes) cluster id; this one is
# base64url("petstore-kafka-1"). Fixed so that formatting is repeatable.
readonly CLUSTER_ID=cGV0c3RvcmUta2Fma2EtMQ

readonly HOST=127.0.0.1
readonly PORT=${KAFKA_PORT:-9092}
readonly CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
readonly INTERNAL_PORT=${KAFKA_INTERNAL_PORT:-$((PORT + 2))}
readonly WAIT_TIMEOUT=${KAFKA_WAIT_TIMEOUT:-90}
# Set by cluster mode for each node it runs; a lone broker is node 1 of a quorum of one.
readonly NODE_ID=${KAFKA_NODE_ID:-1}
readonly QUORUM_VOTERS=${KAFKA_QUORUM_VOTERS:-$NODE_ID@127.0.0.1:$CONTROLLER_PORT}
readonly CLUSTER_NODES=${KAFKA_CLUSTER_NODES:-1}
if ((CLUSTER_NODES > 1)); then
  readonly REPLICATION_FACTOR=3 MIN_INSYNC_REPLICAS=2 OFFSETS_PARTITIONS=3
  readonly HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms128m -Xmx384m}
else
  readonly REPLICATION_FACTOR=1 MIN_INSYNC_REPLICAS=1 OFFSETS_PARTITIONS=1
  readonly HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}
fi

for port in "$PORT" "$CONTROLLER_PORT" "$INTERNAL_PORT"; do
  [[ $port =~ ^[0-9]+$ ]] || { echo "[kafka] ERROR: invalid port '$port'" >&2; exit 2; }
done
[[ $(printf '%s\n' "$PORT" "$CONTROLLER_PORT" "$INTERNAL_PORT" | sort -u | wc -l) == 3 ]] ||
  { echo "[kafka] ERROR: KAFKA_PORT, KAFKA_CONTROLLER_PORT and KAFKA_INTERNAL_PORT must differ" >&2; exit 2; }

readonly PLAINTEXT=${KAFKA_PLAINTEXT:-false}
if [[ $PLAINTEXT == true && ${BUS_SECURITY_OFF_BENCH_ONLY:-} != true ]]; then
  echo "[kafka] ERROR: KAFKA_PLAINTEXT=true lets anyone in: it serves only the benchmark of what security costs (BUS_SECURITY_OFF_BENCH_ONLY=true)" >&2
  exit 2
fi
# The listener clients use: the one the rendered configuration names, and how a running broker is told apart.
if [[ $PLAINTEXT == true ]]; then readonly CLIENT_LISTENER=PLAINTEXT; else readonly CLIENT_LISTENER=SASL_SSL; fi

readonly SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly ROOT_DIR=$(dirname "$SCRIPT_DIR")
readonly TEMPLATE=$SCRIPT_DIR/kafka/server.properties.template
readonly LOG4J_CONFIG=$SCRIPT_DIR/kafka/log4j.properties

readonly CACHE_DIR=${PETSTORE_CACHE:-$HOME/.cache/petstore}
readonly KAFKA_HOME=$CACHE_DIR/kafka-$KAFKA_VERSION
readonly LIBS_DIR=$KAFKA_HOME/libs
# Written only after every jar has been copied, so an interrupted download is
# retried on the next start instead of leaving a half-populated classpath.
readonly LIBS_MARKER=$LIBS_DIR/.complete
readonly TOOLS_LOG4J_CONFIG=$KAFKA_HOME/tools-log4j.properties

readonly DATA_DIR=${KAFKA_DATA_DIR:-$CACHE_DIR/kafka-data}
if [[ $PLAINTEXT == true && $DATA_DIR == "$CACHE_DIR/kafka-data" ]]; then
  echo "[kafka] ERROR: KAFKA_PLAINTEXT=true needs a KAFKA_DATA_DIR (and ports) of its own: the everyday broker stays authenticated" >&2
  exit 2
fi
readonly LOG_DIRS=$DATA_DIR/kraft-logs
readonly SERVER_PROPERTIES=$DATA_DIR/server.properties
readonly PID_FILE=$DATA_DIR/kafka.pid
readonly LOG_FILE=$DATA_DIR/broker.log
readonly SECRETS_DIR=${KAFKA_SECRETS_DIR:-$DATA_DIR/secrets}
# How the node's own tools (readiness, SCRAM credentials) connect: INTERNAL, as the node.
readonly NODE_CLIENT_CONFIG=$SECRETS_DIR/node-client.properties
# The principals whose SCRAM credentials this broker holds, as last given (skips the JVMs when unchanged).
readonly SCRAM_USERS_FILE=$DATA_DIR/scram-users
# JVM stdout/stderr (crashes before log4j is configured, OOM messages, ...).
readonly OUT_FILE=$DATA_DIR/broker.out
# Per broker (the nodes of a cluster start and stop side by side); fetching the jars has its own.
readonly LOCK_FILE=$DATA_DIR.lock
readonly FETCH_LOCK_FILE=$CACHE_DIR/kafka-fetch.lock

# For the short-lived CLI JVMs (format, readiness check): C1 only and the
# serial GC roughly halve their start-up CPU, which matters on small machines
# while the broker itself is starting.
readonly SHORT_JVM_OPTS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m)

log() { printf '[kafka] %s\n' "$*"; }
err() { printf '[kafka] ERROR: %s\n' "$*" >&2; }

usage() {
  echo "usage: $0 {start|stop|status|wait|reset}" >&2
  echo "       $0 cluster {start|stop|status|wait|reset}" >&2
  echo "       $0 cluster {start-node|stop-node|kill-node|pid} <1-3>" >&2
  exit 2
}

# Cheap liveness check: does anything accept TCP connections on the port?
# /dev/tcp is a bash feature; `timeout` guards against a hanging connect.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null
}

# Prints the pid recorded in the pid file if that process is still our
# broker (guards against stale pid files and recycled pids).
broker_pid() {
  local pid
  [[ -f $PID_FILE ]] || return 1
  pid=$(<"$PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

print_log_tail() {
  if [[ -s $LOG_FILE ]]; then
    # The root cause of a failed start is usually an ERROR far above the
    # last lines, which tend to be the orderly shutdown that follows it.
    if grep -qE '^\[[^]]*\] (ERROR|FATAL) ' "$LOG_FILE"; then
      err "first errors in $LOG_FILE:"
      grep -E '^\[[^]]*\] (ERROR|FATAL) ' "$LOG_FILE" | head -n 5 >&2
    fi
    err "last 30 lines of $LOG_FILE:"
    tail -n 30 "$LOG_FILE" >&2
  else
    err "no broker log at $LOG_FILE"
  fi
  if [[ -s $OUT_FILE ]]; then
    err "last 30 lines of $OUT_FILE:"
    tail -n 30 "$OUT_FILE" >&2
  fi
}

# Serialise start/stop/reset so two concurrent callers (e.g. parallel test
# runners) cannot launch two brokers or fetch jars twice into the same dir.
take_lock() {
  mkdir -p "$CACHE_DIR" "$(dirname "$DATA_DIR")"
  exec 9>"$LOCK_FILE"
  flock 9
}

fetch_libs() {
  [[ -f $LIBS_MARKER ]] && return 0
  mkdir -p "$CACHE_DIR"
  exec 8>"$FETCH_LOCK_FILE"
  flock 8
  # Another broker's start may have fetched them while this one waited.
  [[ -f $LIBS_MARKER ]] && { exec 8>&-; return 0; }
  command -v mvn >/dev/null || { err "mvn is required to fetch the Kafka jars"; exit 1; }
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIBS_DIR"

  local fetch_dir=$KAFKA_HOME/fetch
  local tmp_libs=$KAFKA_HOME/libs.tmp
  mkdir -p "$fetch_dir"
  rm -rf "$tmp_libs"
  cat >"$fetch_dir/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/kafka.sh only to resolve the broker's classpath. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.petstore</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <!-- Logging backend: without one the broker cannot start. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>ch.qos.reload4j</groupId>
      <artifactId>reload4j</artifactId>
      <version>$RELOAD4J_VERSION</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>$DEPENDENCY_PLUGIN_VERSION</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF
  if ! mvn -q -B -Dstyle.color=never -f "$fetch_dir/pom.xml" \
      dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$tmp_libs" >"$fetch_dir/mvn.log" 2>&1; then
    err "mvn failed to fetch the Kafka jars; last 30 lines of $fetch_dir/mvn.log:"
    tail -n 30 "$fetch_dir/mvn.log" >&2
    exit 1
  fi
  if ! compgen -G "$tmp_libs/kafka_2.13-$KAFKA_VERSION.jar" >/dev/null; then
    err "kafka_2.13-$KAFKA_VERSION.jar missing after fetch"
    exit 1
  fi
  rm -rf "$LIBS_DIR"
  mv "$tmp_libs" "$LIBS_DIR"
  touch "$LIBS_MARKER"
  exec 8>&-
  log "fetched $(find "$LIBS_DIR" -name '*.jar' | wc -l) jars"
}

# The CLI tools used by `wait` get their own log4j config (warnings to
# stderr only) so they never write into the broker's log file.
write_tools_log4j() {
  [[ -f $TOOLS_LOG4J_CONFIG ]] && return 0
  mkdir -p "$KAFKA_HOME"
  cat >"$TOOLS_LOG4J_CONFIG" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

render_config() {
  mkdir -p "$DATA_DIR" "$LOG_DIRS"
  sed -e "s|@KAFKA_PORT@|$PORT|g" \
      -e "s|@KAFKA_INTERNAL_PORT@|$INTERNAL_PORT|g" \
      -e "s|@SECRETS_DIR@|$SECRETS_DIR|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$CONTROLLER_PORT|g" \
      -e "s|@LOG_DIRS@|$LOG_DIRS|g" \
      -e "s|@NODE_ID@|$NODE_ID|g" \
      -e "s|@QUORUM_VOTERS@|$QUORUM_VOTERS|g" \
      -e "s|@REPLICATION_FACTOR@|$REPLICATION_FACTOR|g" \
      -e "s|@MIN_INSYNC_REPLICAS@|$MIN_INSYNC_REPLICAS|g" \
      -e "s|@OFFSETS_PARTITIONS@|$OFFSETS_PARTITIONS|g" \
      "$TEMPLATE" >"$SERVER_PROPERTIES"
  # Plaintext (the security benchmark's broker): the clients' listener without TLS and SCRAM, and no
  # authorizer; the nodes' own listeners keep their mutual TLS, which only this script's tools use.
  if [[ $PLAINTEXT == true ]]; then
    sed -i -e 's|SASL_SSL://|PLAINTEXT://|g' -e 's|SASL_SSL:SASL_SSL|PLAINTEXT:PLAINTEXT|' \
      -e '/^sasl\./d' -e '/^listener\.name\.sasl_ssl\./d' \
      -e '/^authorizer\.class\.name=/d' -e '/^allow\.everyone\.if\.no\.acl\.found=/d' -e '/^super\.users=/d' \
      "$SERVER_PROPERTIES"
  fi
}

# Every principal of libs/contracts' Kafka access table, and the administrator: given by the tools
# that start brokers (KAFKA_PRINCIPALS), else asked of tools/stack (built on first use, then cached).
principals() {
  if [[ -n ${KAFKA_PRINCIPALS:-} ]]; then
    printf '%s\n' "$KAFKA_PRINCIPALS"
    return
  fi
  (cd "$ROOT_DIR" && node --input-type=module -e \
    "import { runTool } from './tools/load-tool.mjs'; await runTool('stack', 'brokerPrincipals');")
}

# The CA, the node's certificate (for 127.0.0.1, both server and client: the nodes authenticate to
# each other with it) and a password per principal, each made once. Nothing of it is printed.
ensure_secrets() {
  (umask 077 && mkdir -p "$SECRETS_DIR")
  exec 7>"$SECRETS_DIR.lock"
  flock 7
  (
    umask 077
    cd "$SECRETS_DIR"
    if [[ ! -s ca.pem ]]; then
      openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
      openssl req -x509 -new -key ca.key -subj /CN=petstore-kafka-ca -days 3650 -out ca.pem \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
      rm -f node.pem
    fi
    if [[ ! -s node.pem ]]; then
      issue_node_certificate
    fi
    local principal
    for principal in $(principals); do
      [[ -s $principal.password ]] || openssl rand -hex 24 >"$principal.password"
    done
    printf '%s\n' security.protocol=SSL ssl.keystore.type=PEM "ssl.keystore.location=$SECRETS_DIR/node.pem" \
      ssl.truststore.type=PEM "ssl.truststore.location=$SECRETS_DIR/ca.pem" >"$NODE_CLIENT_CONFIG"
  ) || { err "making the CA, certificates or passwords in $SECRETS_DIR failed"; exit 1; }
  exec 7>&-
}

# node.pem: a new key and its certificate, signed by the CA; in the working directory (the secrets).
issue_node_certificate() {
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out node.key.new 2>/dev/null
  openssl req -new -key node.key.new -subj /CN=petstore-kafka-node -out node.csr 2>/dev/null
  openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -set_serial "0x$(openssl rand -hex 16)" -days 825 \
    -extfile <(printf '%s\n' 'subjectAltName=IP:127.0.0.1,DNS:localhost' 'extendedKeyUsage=serverAuth,clientAuth' 'basicConstraints=CA:FALSE') \
    -out node.crt 2>/dev/null
  cat node.key.new node.crt >node.pem.new
  mv node.pem.new node.pem
  rm -f node.key.new node.csr node.crt
}

# One principal's SCRAM-SHA-512 credential, from its password file. The password goes to the
# tool in a file (mode 0600, removed after), never in its arguments, which `ps` shows to everyone.
set_scram_credential() {
  local principal=$1 password_file=$2 config
  config=$(umask 077 && mktemp "$SECRETS_DIR/.scram.XXXXXX")
  printf 'SCRAM-SHA-512=iterations=8192,password=%s\n' "$(<"$password_file")" >"$config"
  if ! java "${SHORT_JVM_OPTS[@]}" -cp "$LIBS_DIR/*" -Dlog4j.configuration="file:$TOOLS_LOG4J_CONFIG" \
      kafka.admin.ConfigCommand --bootstrap-server "$HOST:$INTERNAL_PORT" --command-config "$NODE_CLIENT_CONFIG" \
      --alter --entity-type users --entity-name "$principal" --add-config-file "$config" >/dev/null 2>"$config.err"; then
    rm -f "$config"
    err "setting the SCRAM credential of $principal failed:"
    grep -v -i password "$config.err" | tail -n 5 >&2
    rm -f "$config.err"
    exit 1
  fi
  rm -f "$config" "$config.err"
}

# Gives every principal its credential, unless this broker has them all already, with these
# passwords (their digest is recorded, never they). Also what upgrades a broker whose data was
# formatted before authentication: its data stays.
ensure_scram_users() {
  local principals principal wanted
  principals=$(principals)
  wanted="$principals $(for principal in $principals; do cat "$SECRETS_DIR/$principal.password"; done | sha256sum | cut -c1-16)"
  [[ -f $SCRAM_USERS_FILE && $(<"$SCRAM_USERS_FILE") == "$wanted" ]] && return 0
  log "giving the principals their SCRAM credentials: $principals"
  for principal in $principals; do
    set_scram_credential "$principal" "$SECRETS_DIR/$principal.password"
  done
  echo "$wanted" >"$SCRAM_USERS_FILE"
}

format_storage() {
  # Formatting is a one-time step; skipping it when meta.properties exists
  # saves a JVM start (~1 s) on every warm start. --ignore-formatted keeps
  # it a no-op anyway. Output goes to the .out file; it only matters on failure.
  [[ -f $LOG_DIRS/meta.properties ]] && return 0
  if ! java "${SHORT_JVM_OPTS[@]}" \
      -cp "$LIBS_DIR/*" \
      -Dlog4j.configuration="file:$TOOLS_LOG4J_CONFIG" \
      kafka.tools.StorageTool format -t "$CLUSTER_ID" \
      -c "$SERVER_PROPERTIES" --ignore-formatted >>"$OUT_FILE" 2>&1; then
    err "formatting the KRaft storage in $LOG_DIRS failed"
    tail -n 30 "$OUT_FILE" >&2
    exit 1
  fi
}

launch_broker() {
  : >"$OUT_FILE"
  # setsid: own session/process group, so a Ctrl-C (SIGINT to the foreground
  # process group) in whatever terminal ran `start` does not kill the broker;
  # only `stop` does. The inner shell records its own pid and then execs java,
  # so the pid file holds the JVM's pid. fd 9 (the lock) must not leak into
  # the long-lived broker or the lock would be held forever.
  nohup setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$PID_FILE" \
    java $HEAP_OPTS -XX:+UseG1GC \
    -Djava.awt.headless=true \
    -XX:ErrorFile="$DATA_DIR/hs_err_pid%p.log" \
    -Dkafka.logs.dir="$DATA_DIR" \
    -Dlog4j.configuration="file:$LOG4J_CONFIG" \
    -cp "$LIBS_DIR/*" \
    kafka.Kafka "$SERVER_PROPERTIES" \
    </dev/null >>"$OUT_FILE" 2>&1 9>&- &
  # Wait briefly for the pid file so callers can rely on it.
  local i
  for i in $(seq 1 50); do
    [[ -s $PID_FILE ]] && break
    sleep 0.1
  done
}

# One metadata round trip with the Kafka CLI; true when the broker serves
# client requests (the TCP port can accept connections slightly earlier).
broker_answers() {
  timeout 30 java "${SHORT_JVM_OPTS[@]}" \
    -cp "$LIBS_DIR/*" \
    -Dlog4j.configuration="file:$TOOLS_LOG4J_CONFIG" \
    kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$HOST:$INTERNAL_PORT" \
    --command-config "$NODE_CLIENT_CONFIG" 2>/dev/null \
    | grep -q "^$HOST:$INTERNAL_PORT "
}

cmd_wait() {
  local deadline=$((SECONDS + WAIT_TIMEOUT))
  local pid_expected=false
  [[ -f $PID_FILE ]] && pid_expected=true

  # Phase 1: wait for the port with cheap bash checks (a JVM per poll would
  # cost ~1 s of CPU each time while the broker itself is starting).
  until port_open "$PORT"; do
    if $pid_expected && ! broker_pid >/dev/null; then
      err "broker process (pid file $PID_FILE) is not running; it probably exited during startup"
      print_log_tail
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      err "broker did not open $HOST:$PORT within ${WAIT_TIMEOUT}s"
      print_log_tail
      exit 1
    fi
    sleep 0.25
  done

  # Phase 2: a real metadata request (normally succeeds on the first try).
  [[ -f $LIBS_MARKER ]] || fetch_libs
  write_tools_log4j
  until broker_answers; do
    if ((SECONDS >= deadline)); then
      err "broker on $HOST:$PORT did not answer a metadata request within ${WAIT_TIMEOUT}s"
      print_log_tail
      exit 1
    fi
    sleep 1
  done
  log "broker ready on $HOST:$PORT"
}

# Starts the broker process without waiting for it: the nodes of a cluster are all
# launched before any is waited for, since none serves until a majority runs.
ALREADY_RUNNING=false
cmd_launch() {
  # A broker of this script started before authentication, or plaintext while this start asks
  # for authentication or the reverse (its rendered config is the one it runs with), is restarted
  # as asked; its data stays.
  if broker_pid >/dev/null && ! grep -q "^listeners=$CLIENT_LISTENER:" "$SERVER_PROPERTIES" 2>/dev/null; then
    log "the broker on $HOST:$PORT does not run with $CLIENT_LISTENER clients: restarting it so"
    cmd_stop
  fi
  if port_open "$PORT"; then
    log "something already answers on $HOST:$PORT; assuming it is Kafka, not starting another broker"
    ALREADY_RUNNING=true
    return 0
  fi
  command -v java >/dev/null || { err "java (17+) is required"; exit 1; }
  take_lock
  # Another start may have won the race while we waited for the lock.
  if port_open "$PORT"; then
    log "something already answers on $HOST:$PORT; not starting another broker"
    ALREADY_RUNNING=true
    exec 9>&-
    return 0
  fi
  local pid
  if pid=$(broker_pid); then
    log "broker (pid $pid) is already starting; waiting for it"
  else
    if port_open "$CONTROLLER_PORT"; then
      err "controller port $HOST:$CONTROLLER_PORT is already in use (set KAFKA_CONTROLLER_PORT)"
      exit 1
    fi
    fetch_libs
    write_tools_log4j
    ensure_secrets
    render_config
    rm -f "$PID_FILE"
    format_storage
    log "starting Kafka $KAFKA_VERSION on $HOST:$PORT (log: $LOG_FILE)"
    launch_broker
  fi
  exec 9>&-
}

cmd_start() {
  cmd_launch
  # A broker that already answers was waited for by whoever started it.
  # A plaintext broker checks no credentials: it gets none.
  $ALREADY_RUNNING || { cmd_wait && { [[ $PLAINTEXT == true ]] || ensure_scram_users; }; }
}

# A new random password for one principal: its SCRAM credential changes at once (connections
# already open stay up), then its password file. Clients read the file when they start.
cmd_rotate() {
  local principal=${1:-}
  [[ $principal =~ ^[a-z-]+$ && -s $SECRETS_DIR/$principal.password ]] || { err "no principal '$principal' in $SECRETS_DIR"; exit 2; }
  [[ -f $LIBS_MARKER ]] || fetch_libs
  write_tools_log4j
  (umask 077 && openssl rand -hex 24 >"$SECRETS_DIR/$principal.password.new")
  set_scram_credential "$principal" "$SECRETS_DIR/$principal.password.new"
  mv "$SECRETS_DIR/$principal.password.new" "$SECRETS_DIR/$principal.password"
  log "rotated the password of $principal; restart its processes to use it"
}

cmd_stop() {
  take_lock
  local pid
  if ! pid=$(broker_pid); then
    rm -f "$PID_FILE"
    if port_open "$PORT"; then
      log "no broker started by this script is running, but something answers on $HOST:$PORT; leaving it alone"
    else
      log "broker is not running"
    fi
    return 0
  fi
  log "stopping broker (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local i
  # 30 s in 0.25 s steps; a clean KRaft shutdown normally takes a few seconds.
  for i in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "broker did not exit within 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$PID_FILE"
  log "broker stopped"
}

cmd_status() {
  local pid
  if port_open "$PORT"; then
    if pid=$(broker_pid); then
      log "running on $HOST:$PORT (pid $pid)"
    else
      log "something answers on $HOST:$PORT (not started by this script)"
    fi
    return 0
  fi
  if pid=$(broker_pid); then
    log "starting (pid $pid), $HOST:$PORT not open yet"
  else
    log "not running"
  fi
  return 1
}

cmd_reset() {
  cmd_stop
  # Guard against deleting something unexpected if the paths were mangled.
  [[ -n $DATA_DIR && ($DATA_DIR == */kafka-data* || $DATA_DIR == */kafka-cluster*) ]] || { err "refusing to delete $DATA_DIR"; exit 1; }
  rm -rf "$DATA_DIR"
  log "deleted $DATA_DIR"
}

# ---------------------------------------------------------------- cluster mode
# Each node is this same script run with the node's ports, data dir and quorum.

readonly CLUSTER_PORT=${KAFKA_CLUSTER_PORT:-9192}
readonly CLUSTER_DATA_DIR=${KAFKA_CLUSTER_DATA_DIR:-$CACHE_DIR/kafka-cluster}
readonly CLUSTER_SIZE=3

node_port() { echo $((CLUSTER_PORT + 10 * ($1 - 1))); }

# Every node's address, comma-separated: `cluster_addresses 0` the brokers, `cluster_addresses 1 @`
# the controller quorum's voters (`<id>@host:port`).
cluster_addresses() {
  local offset=$1 voter=${2:-} n addresses=()
  for n in $(seq 1 $CLUSTER_SIZE); do addresses+=("${voter:+$n$voter}$HOST:$(($(node_port "$n") + offset))"); done
  local IFS=,
  echo "${addresses[*]}"
}

# Runs this script's single-broker `command` as cluster node n.
on_node() {
  local n=$1
  shift
  [[ $n =~ ^[1-3]$ ]] || { err "cluster node must be 1, 2 or 3, not '$n'"; exit 2; }
  local port
  port=$(node_port "$n")
  KAFKA_NODE_ID=$n KAFKA_PORT=$port KAFKA_CONTROLLER_PORT=$((port + 1)) KAFKA_INTERNAL_PORT=$((port + 2)) \
    KAFKA_DATA_DIR=$CLUSTER_DATA_DIR/node-$n KAFKA_SECRETS_DIR=$CLUSTER_DATA_DIR/secrets KAFKA_QUORUM_VOTERS=$(cluster_addresses 1 @) \
    KAFKA_CLUSTER_NODES=$CLUSTER_SIZE bash "${BASH_SOURCE[0]}" "$@"
}

on_every_node() {
  local n
  for n in $(seq 1 $CLUSTER_SIZE); do on_node "$n" "$1" || return 1; done
}

cluster_command() {
  local command=${1:-} node=${2:-}
  case $command in
    start)
      on_every_node launch
      on_every_node wait
      # Credentials are the cluster's metadata: given once, through any node.
      on_node 1 users
      log "cluster ready: $(cluster_addresses 0)" ;;
    wait) on_every_node wait ;;
    status)
      local n down=0
      for n in $(seq 1 $CLUSTER_SIZE); do on_node "$n" status || down=1; done
      return $down ;;
    stop | reset)
      # In parallel: stopped one after the other, the last node's controlled shutdown
      # would wait for a controller quorum that is already gone.
      local n pids=() failed=0
      for n in $(seq 1 $CLUSTER_SIZE); do on_node "$n" "$command" & pids+=($!); done
      for n in "${pids[@]}"; do wait "$n" || failed=1; done
      return $failed ;;
    start-node) on_node "$node" launch && on_node "$node" wait ;;
    rotate) on_node 1 rotate "$node" ;;
    stop-node) on_node "$node" stop ;;
    kill-node) on_node "$node" kill ;;
    pid) on_node "$node" pid ;;
    brokers) cluster_addresses 0 ;;
    *) usage ;;
  esac
}


cmd_kill() {
  local pid
  pid=$(broker_pid) || { err "no broker of this script runs with data in $DATA_DIR"; exit 1; }
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$PID_FILE"
  log "broker (pid $pid) killed"
}

cmd_pid() {
  broker_pid || exit 1
}

if [[ ${1:-} == cluster ]]; then
  [[ $# -ge 2 && $# -le 3 ]] || usage
  cluster_command "$2" "${3:-}"
  exit $?
fi

if [[ ${1:-} == rotate ]]; then
  [[ $# -eq 2 ]] || usage
  cmd_rotate "$2"
  exit $?
fi

[[ $# -eq 1 ]] || usage
case $1 in
  launch) cmd_launch ;;
  users) ensure_scram_users ;;
  kill) cmd_kill ;;
  pid) cmd_pid ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  wait) cmd_wait ;;
  reset) cmd_reset ;;
  *) usage ;;
esac
