#!/bin/sh
# Creates the platform's Kafka topics with kafka-topics.sh (the apache/kafka image). Safe to
# run again: topics that exist are left as they are, or grown to the wanted partition count
# when ALLOW_PARTITION_INCREASE=true.
#
# Topics, one a line: NAME PARTITIONS POLICY [RETENTION] (POLICY `compact` or `-`; RETENTION
# how long records are kept, `7d`, `36h`, `90m` or milliseconds, `-` for the broker's
# default), from TOPICS_FILE or the TOPICS variable. The retention is set on topics that exist
# too, so a changed setting reaches them on the next run. Connection settings as the services': KAFKA_BROKERS, KAFKA_SSL,
# KAFKA_SASL_MECHANISM (plain, scram-sha-256, scram-sha-512), KAFKA_SASL_USERNAME,
# KAFKA_SASL_PASSWORD, and KAFKA_CA_FILE (PEM) to trust a private CA. Also:
# TOPIC_NAMESPACE (prefix), REPLICATION_FACTOR, TOPIC_CONFIG ("key=value ..." for every
# topic created), TOPIC_JOBS (kafka-topics.sh processes at once).
set -eu

KT="${KAFKA_HOME:-/opt/kafka}/bin/kafka-topics.sh"
KC="${KAFKA_HOME:-/opt/kafka}/bin/kafka-configs.sh"
: "${KAFKA_BROKERS:?KAFKA_BROKERS is required}"
NS=${TOPIC_NAMESPACE:-}
RF=${REPLICATION_FACTOR:-1}
JOBS=${TOPIC_JOBS:-4}
export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx128m}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

log() { echo "[topics] $*"; }

if [ -n "${TOPICS:-}" ]; then
  printf '%s\n' "$TOPICS" >"$WORK/topics"
  TOPICS_FILE=$WORK/topics
fi
: "${TOPICS_FILE:?TOPICS_FILE or TOPICS is required}"

# Client settings.
props=$WORK/client.properties
: >"$props"
proto=PLAINTEXT
[ "${KAFKA_SSL:-false}" = true ] && proto=SSL
if [ -n "${KAFKA_SASL_MECHANISM:-}" ]; then
  if [ "$proto" = SSL ]; then proto=SASL_SSL; else proto=SASL_PLAINTEXT; fi
  case $KAFKA_SASL_MECHANISM in
    plain) mech=PLAIN module=org.apache.kafka.common.security.plain.PlainLoginModule ;;
    scram-sha-256) mech=SCRAM-SHA-256 module=org.apache.kafka.common.security.scram.ScramLoginModule ;;
    scram-sha-512) mech=SCRAM-SHA-512 module=org.apache.kafka.common.security.scram.ScramLoginModule ;;
    *)
      log "unknown KAFKA_SASL_MECHANISM: $KAFKA_SASL_MECHANISM"
      exit 2
      ;;
  esac
  # JAAS quoting, then the properties file's own backslash escaping.
  jaas() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
  line="$module required username=\"$(jaas "${KAFKA_SASL_USERNAME:-}")\" password=\"$(jaas "${KAFKA_SASL_PASSWORD:-}")\";"
  {
    echo "sasl.mechanism=$mech"
    printf 'sasl.jaas.config=%s\n' "$(printf '%s' "$line" | sed 's/\\/\\\\/g')"
  } >>"$props"
fi
echo "security.protocol=$proto" >>"$props"
if [ -n "${KAFKA_CA_FILE:-}" ]; then
  echo "ssl.truststore.type=PEM" >>"$props"
  echo "ssl.truststore.location=$KAFKA_CA_FILE" >>"$props"
fi

kt() { "$KT" --bootstrap-server "$KAFKA_BROKERS" --command-config "$props" "$@"; }
kc() { "$KC" --bootstrap-server "$KAFKA_BROKERS" --command-config "$props" "$@"; }


# A retention as milliseconds: `7d`, `36h`, `90m`, `30s`, `500ms` or a bare number.
to_ms() {
  case $1 in
    *[!0-9msdh]* | '') return 1 ;;
    *ms) n=${1%ms} f=1 ;;
    *s) n=${1%s} f=1000 ;;
    *m) n=${1%m} f=60000 ;;
    *h) n=${1%h} f=3600000 ;;
    *d) n=${1%d} f=86400000 ;;
    *) n=$1 f=1 ;;
  esac
  case $n in '' | *[!0-9]*) return 1 ;; esac
  echo $((n * f))
}

# Every retention is checked before anything is created.
while read -r name _ _ retention; do
  case $name in '' | '#'*) continue ;; esac
  if [ "${retention:--}" != - ] && ! to_ms "$retention" >/dev/null; then
    log "invalid retention for $name: $retention (use 7d, 36h, 90m, 30s, 500ms or milliseconds)"
    exit 2
  fi
done <"$TOPICS_FILE"

attempt=0
until kt --list >"$WORK/existing" 2>"$WORK/list.err"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge "${WAIT_ATTEMPTS:-30}" ]; then
    cat "$WORK/list.err" >&2
    log "the brokers at $KAFKA_BROKERS did not answer"
    exit 1
  fi
  log "waiting for the brokers at $KAFKA_BROKERS ($attempt)"
  sleep 5
done

# Partition counts of the topics that exist: "NAME COUNT" lines.
if [ -s "$WORK/existing" ]; then
  kt --describe --topic "$(printf '%s' "$NS" | sed 's/[.]/\\./g')loan\\..*" 2>/dev/null |
    awk '/^Topic:/ { t = ""; p = ""; for (i = 1; i < NF; i++) { if ($i == "Topic:") t = $(i + 1); if ($i == "PartitionCount:") p = $(i + 1) } if (t != "") print t, p }' >"$WORK/partitions" || true
fi
touch "$WORK/partitions"

pids=""
running=0
failed=0
collect() {
  for pid in $pids; do
    wait "$pid" || failed=1
  done
  pids=""
  running=0
}
spawn() {
  "$@" &
  pids="$pids $!"
  running=$((running + 1))
  [ "$running" -lt "$JOBS" ] || collect
}

create() {
  topic=$1 parts=$2 policy=$3 retention=$4
  set -- --create --if-not-exists --topic "$topic" --partitions "$parts" --replication-factor "$RF"
  [ "$policy" = compact ] && set -- "$@" --config cleanup.policy=compact
  [ -n "$retention" ] && set -- "$@" --config "retention.ms=$retention"
  for c in ${TOPIC_CONFIG:-}; do set -- "$@" --config "$c"; done
  if kt "$@" >"$WORK/$topic.log" 2>&1; then
    log "created $topic: $parts partitions, replication factor $RF${policy:+, $policy}"
  else
    cat "$WORK/$topic.log" >&2
    log "could not create $topic"
    return 1
  fi
}

grow() {
  topic=$1 parts=$2
  if kt --alter --topic "$topic" --partitions "$parts" >"$WORK/$topic.log" 2>&1; then
    log "grew $topic to $parts partitions"
  else
    cat "$WORK/$topic.log" >&2
    log "could not grow $topic"
    return 1
  fi
}

retain() {
  topic=$1 retention=$2
  if kc --alter --entity-type topics --entity-name "$topic" --add-config "retention.ms=$retention" >"$WORK/$topic.retention.log" 2>&1; then
    log "kept $topic records for $retention ms"
  else
    cat "$WORK/$topic.retention.log" >&2
    log "could not set the retention of $topic"
    return 1
  fi
}

while read -r name parts policy retention; do
  case $name in '' | '#'*) continue ;; esac
  [ "$policy" = - ] && policy=""
  [ "${retention:--}" = - ] && retention=""
  [ -n "$retention" ] && retention=$(to_ms "$retention")
  topic="$NS$name"
  have=$(awk -v t="$topic" '$1 == t { print $2 }' "$WORK/partitions")
  if [ -z "$have" ]; then
    spawn create "$topic" "$parts" "$policy" "$retention"
    continue
  fi
  [ -n "$retention" ] && spawn retain "$topic" "$retention"
  if [ "$have" -lt "$parts" ]; then
    if [ "${ALLOW_PARTITION_INCREASE:-false}" = true ]; then
      spawn grow "$topic" "$parts"
    else
      log "warning: $topic has $have partitions, $parts wanted: consumer replicas beyond $have stay idle (set ALLOW_PARTITION_INCREASE=true to grow it)"
    fi
  else
    log "exists $topic: $have partitions"
  fi
done <"$TOPICS_FILE"
collect

if [ "$failed" -ne 0 ]; then
  log "failed"
  exit 1
fi
log "done"
