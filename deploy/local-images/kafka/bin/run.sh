#!/bin/sh
# Writes server.properties from the KAFKA_* environment (KAFKA_NODE_ID -> node.id), formats
# the storage with CLUSTER_ID when it is new, and runs the broker as PID 1.
set -eu
cfg=/tmp/server.properties
: >"$cfg"
env | while IFS='=' read -r key value; do
  case $key in
    KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_JVM_OPTS) continue ;;
    KAFKA_*) printf '%s=%s\n' "$(printf '%s' "${key#KAFKA_}" | tr 'A-Z_' 'a-z.')" "$value" >>"$cfg" ;;
  esac
done
logdir=$(sed -n 's/^log\.dirs=//p' "$cfg")
if [ ! -f "${logdir:-/var/lib/kafka/data}/meta.properties" ]; then
  java -Xmx128m -cp '/opt/kafka/libs/*' kafka.tools.StorageTool format -t "${CLUSTER_ID:?CLUSTER_ID is required}" -c "$cfg" --ignore-formatted
fi
# shellcheck disable=SC2086 # the heap and JVM options are words of their own
exec java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m} -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
  -Dlog4j.configuration=file:/opt/kafka/bin/log4j.properties ${KAFKA_OPTS:-} -cp '/opt/kafka/libs/*' kafka.Kafka "$cfg"
