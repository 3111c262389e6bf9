#!/bin/bash
# The Kafka containers' command in docker-compose.yml, instead of the image's own start-up
# (/etc/kafka/docker/run): that one wants a password-protected key store on any SSL listener and
# formats the storage with no SCRAM credential, so no client could ever log in.
#
#   start.sh                          write server.properties from the KAFKA_* variables; on the first
#                                     start format the storage with every principal's SCRAM credential;
#                                     run the broker
#   start.sh credentials [NAME ...]   set the SCRAM credentials of these principals (all without a
#                                     name) from their password files, on the running cluster: after a
#                                     rotation, or on storage formatted before authentication
#
# The property of each KAFKA_* variable follows the image's documented rule: KAFKA_ dropped, lower
# case, "___" -> "-", "__" -> "_", "_" -> "." (KAFKA_LOG_DIRS -> log.dirs). The variables of the
# JVM and the start scripts are not properties. bus-secrets (libs/service-kit) wrote the secrets
# mounted at /etc/kafka/secrets: node.pem (the nodes' key and certificate), ca.pem, and
# scram/<principal>.password. No password is printed, nor written anywhere but a file of mode 0600.
set -euo pipefail

readonly SECRETS=/etc/kafka/secrets
readonly WORK=/tmp/petstore-kafka
readonly PROPERTIES=$WORK/server.properties
# How the node's own tools connect: the INTERNAL listener, with the node certificate (a super user).
readonly NODE_CLIENT=$WORK/node-client.properties
readonly INTERNAL=localhost:9094
# The tools' JVMs are short-lived: a small heap, the quick-start compiler.
readonly TOOL_ENV=(KAFKA_HEAP_OPTS=-Xmx128m "KAFKA_JVM_PERFORMANCE_OPTS=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

log() { printf '[kafka-start] %s\n' "$*" >&2; }

write_properties() {
	local var name
	(umask 077 && mkdir -p "$WORK")
	: >"$PROPERTIES"
	for var in $(compgen -e); do
		[[ $var == KAFKA_* ]] || continue
		case $var in
			KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_LOG4J_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_GC_LOG_OPTS | KAFKA_JMX_OPTS | \
				KAFKA_JMX_PORT | KAFKA_DEBUG | KAFKA_LOG4J_CMD_OPTS | KAFKA_VERSION | KAFKA_HOME) continue ;;
		esac
		name=${var#KAFKA_}
		name=${name,,}
		name=${name//___/-}
		name=${name//__/@}
		name=${name//_/.}
		printf '%s=%s\n' "${name//@/_}" "${!var}" >>"$PROPERTIES"
	done
	printf '%s\n' security.protocol=SSL ssl.keystore.type=PEM "ssl.keystore.location=$SECRETS/node.pem" \
		ssl.truststore.type=PEM "ssl.truststore.location=$SECRETS/ca.pem" >"$NODE_CLIENT"
}

principals() {
	local file
	for file in "$SECRETS"/scram/*.password; do
		[[ -s $file ]] && basename "$file" .password
	done
}

# First start only: the storage is formatted with the credentials, so they exist before any client
# connects. They are in the storage tool's arguments for the second it runs (its only way to take
# them), inside this container.
format_storage() {
	local log_dir=${KAFKA_LOG_DIRS:?KAFKA_LOG_DIRS is required}
	log_dir=${log_dir%%,*}
	if [[ -f $log_dir/meta.properties ]]; then return 0; fi
	local principal scram=()
	for principal in $(principals); do
		scram+=(--add-scram "SCRAM-SHA-512=[name=$principal,iterations=8192,password=$(<"$SECRETS/scram/$principal.password")]")
	done
	((${#scram[@]} > 0)) || { log "no SCRAM password in $SECRETS/scram: has bus-secrets run?"; exit 1; }
	log "formatting $log_dir with the SCRAM credentials of: $(principals | tr '\n' ' ')"
	env "${TOOL_ENV[@]}" /opt/kafka/bin/kafka-storage.sh format --ignore-formatted \
		--cluster-id "${CLUSTER_ID:?CLUSTER_ID is required}" --config "$PROPERTIES" "${scram[@]}"
}

# One principal's credential, through the running cluster's INTERNAL listener as the node; the
# password goes to the tool in a file, never in its arguments.
set_credential() {
	local principal=$1 config
	[[ -s $SECRETS/scram/$principal.password ]] || { log "no password for '$principal' in $SECRETS/scram"; return 1; }
	config=$(umask 077 && mktemp "$WORK/scram.XXXXXX")
	printf 'SCRAM-SHA-512=iterations=8192,password=%s\n' "$(<"$SECRETS/scram/$principal.password")" >"$config"
	if env "${TOOL_ENV[@]}" /opt/kafka/bin/kafka-configs.sh --bootstrap-server "$INTERNAL" --command-config "$NODE_CLIENT" \
		--alter --entity-type users --entity-name "$principal" --add-config-file "$config" >"$config.err" 2>&1; then
		log "set the SCRAM credential of $principal"
	else
		log "setting the SCRAM credential of $principal failed:"
		grep -vi password "$config.err" | tail -n 5 >&2
		rm -f "$config" "$config.err"
		return 1
	fi
	rm -f "$config" "$config.err"
}

case ${1:-start} in
	start)
		write_properties
		format_storage
		exec /opt/kafka/bin/kafka-server-start.sh "$PROPERTIES"
		;;
	credentials)
		shift
		[[ -s $NODE_CLIENT ]] || write_properties
		if (($# == 0)); then set -- $(principals); fi
		for principal in "$@"; do set_credential "$principal"; done
		;;
	*)
		echo "usage: $0 [start | credentials [principal ...]]" >&2
		exit 2
		;;
esac
