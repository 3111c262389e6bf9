#!/usr/bin/env bash
# Run a real single-node Apache Kafka broker (KRaft mode, no ZooKeeper) for
# local development and tests, using the official jars from Maven Central.
#
#   scripts/kafka.sh start    start the broker (no-op if the port already answers)
#   scripts/kafka.sh stop     SIGTERM the broker, SIGKILL after 30 s
#   scripts/kafka.sh status   exit 0 if the broker port answers
#   scripts/kafka.sh wait     wait until the broker answers a metadata request
#   scripts/kafka.sh reset    stop and delete all broker data
#
# Environment:
#   KAFKA_PORT             client listener port        (default 9092)
#   KAFKA_CONTROLLER_PORT  KRaft controller port       (default 9093)
#   KAFKA_WAIT_TIMEOUT     readiness timeout, seconds  (default 90)
#   PETSTORE_CACHE         cache root                  (default ~/.cache/petstore)
#   KAFKA_DATA_DIR         broker data, pid and logs   (default $PETSTORE_CACHE/kafka-data)
#                          a second broker (the end-to-end tests' own) needs its own ports and data dir
#
# Nothing is written inside the repository: jars live in
# $PETSTORE_CACHE/kafka-<version>/libs, data, pid file, rendered config and
# logs in $PETSTORE_CACHE/kafka-data.
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
readonly WAIT_TIMEOUT=${KAFKA_WAIT_TIMEOUT:-90}

for port in "$PORT" "$CONTROLLER_PORT"; do
  [[ $port =~ ^[0-9]+$ ]] || { echo "[kafka] ERROR: invalid port '$port'" >&2; exit 2; }
done
[[ $PORT != "$CONTROLLER_PORT" ]] || { echo "[kafka] ERROR: KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ" >&2; exit 2; }

readonly SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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
readonly LOG_DIRS=$DATA_DIR/kraft-logs
readonly SERVER_PROPERTIES=$DATA_DIR/server.properties
readonly PID_FILE=$DATA_DIR/kafka.pid
readonly LOG_FILE=$DATA_DIR/broker.log
# JVM stdout/stderr (crashes before log4j is configured, OOM messages, ...).
readonly OUT_FILE=$DATA_DIR/broker.out
readonly LOCK_FILE=$CACHE_DIR/kafka.lock

# For the short-lived CLI JVMs (format, readiness check): C1 only and the
# serial GC roughly halve their start-up CPU, which matters on small machines
# while the broker itself is starting.
readonly SHORT_JVM_OPTS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m)

log() { printf '[kafka] %s\n' "$*"; }
err() { printf '[kafka] ERROR: %s\n' "$*" >&2; }

usage() {
  echo "usage: $0 {start|stop|status|wait|reset}" >&2
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
  mkdir -p "$CACHE_DIR"
  exec 9>"$LOCK_FILE"
  flock 9
}

fetch_libs() {
  [[ -f $LIBS_MARKER ]] && return 0
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
      -e "s|@KAFKA_CONTROLLER_PORT@|$CONTROLLER_PORT|g" \
      -e "s|@LOG_DIRS@|$LOG_DIRS|g" \
      "$TEMPLATE" >"$SERVER_PROPERTIES"
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
    java -Xms256m -Xmx512m -XX:+UseG1GC \
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
    kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$HOST:$PORT" 2>/dev/null \
    | grep -q "^$HOST:$PORT "
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

cmd_start() {
  if port_open "$PORT"; then
    log "something already answers on $HOST:$PORT; assuming it is Kafka, not starting another broker"
    exit 0
  fi
  command -v java >/dev/null || { err "java (17+) is required"; exit 1; }
  take_lock
  # Another start may have won the race while we waited for the lock.
  if port_open "$PORT"; then
    log "something already answers on $HOST:$PORT; not starting another broker"
    exit 0
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
    render_config
    rm -f "$PID_FILE"
    format_storage
    log "starting Kafka $KAFKA_VERSION on $HOST:$PORT (log: $LOG_FILE)"
    launch_broker
  fi
  exec 9>&-
  cmd_wait
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
  [[ -n $DATA_DIR && $DATA_DIR == */kafka-data* ]] || { err "refusing to delete $DATA_DIR"; exit 1; }
  rm -rf "$DATA_DIR"
  log "deleted $DATA_DIR"
}

[[ $# -eq 1 ]] || usage
case $1 in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  wait) cmd_wait ;;
  reset) cmd_reset ;;
  *) usage ;;
esac
