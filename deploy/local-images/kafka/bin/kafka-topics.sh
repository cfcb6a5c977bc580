#!/bin/sh
# kafka-topics.sh of the Kafka distribution.
# shellcheck disable=SC2086 # the heap and JVM options are words of their own
exec java ${KAFKA_HEAP_OPTS:--Xmx128m} -Dlog4j.configuration=file:/opt/kafka/bin/tools-log4j.properties -cp '/opt/kafka/libs/*' org.apache.kafka.tools.TopicCommand "$@"
