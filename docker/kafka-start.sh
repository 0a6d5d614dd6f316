#!/bin/sh
# /opt/kafka/start.sh: single-node Apache Kafka in KRaft mode (broker + controller), data in
# /tmp/kafka-logs. The container runtime of rehearse relies on this contract:
#   INTERNAL   container port 9092, advertised as ${KAFKA_INTERNAL_HOST:-localhost}:9092
#              (containers on the same Docker network reach the broker by its name/alias);
#   EXTERNAL   container port ${KAFKA_EXTERNAL_PORT:-29092}, advertised as 127.0.0.1:<that port>
#              (publish host port P to container port P, the same number);
#   CONTROLLER container port 9093. Inter-broker listener INTERNAL. No automatic topic creation,
#   one partition per topic by default, unlimited retention, replication factor 1 for internal
#   topics, no initial rebalance delay.
# Extra broker settings: KAFKA_EXTRA_PROPERTIES (newline-separated key=value lines, appended).
# Run as a host process (rehearse's local runtime) the fixed ports and paths are overridden:
# KAFKA_INTERNAL_PORT, KAFKA_CONTROLLER_PORT, KAFKA_LISTEN_HOST (bind address, default 0.0.0.0),
# KAFKA_DATA_DIR and KAFKA_CONFIG_DIR (default /tmp/kafka-logs and /tmp/kafka-config).
set -eu
KAFKA_HOME=${KAFKA_HOME:-/opt/kafka}
INTERNAL_HOST=${KAFKA_INTERNAL_HOST:-localhost}
EXTERNAL_PORT=${KAFKA_EXTERNAL_PORT:-29092}
CLUSTER_ID=${KAFKA_CLUSTER_ID:-cmVoZWFyc2UtY2x1c3Rlcg}
INTERNAL_PORT=${KAFKA_INTERNAL_PORT:-9092}
CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
LISTEN_HOST=${KAFKA_LISTEN_HOST:-0.0.0.0}
DATA=${KAFKA_DATA_DIR:-/tmp/kafka-logs}
CONF=${KAFKA_CONFIG_DIR:-/tmp/kafka-config}
VOTER_HOST=localhost
[ "$LISTEN_HOST" = 0.0.0.0 ] || VOTER_HOST=$LISTEN_HOST
mkdir -p "$CONF" "$DATA"
cat >"$CONF/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${VOTER_HOST}:${CONTROLLER_PORT}
listeners=INTERNAL://${LISTEN_HOST}:${INTERNAL_PORT},EXTERNAL://${LISTEN_HOST}:${EXTERNAL_PORT},CONTROLLER://${LISTEN_HOST}:${CONTROLLER_PORT}
advertised.listeners=INTERNAL://${INTERNAL_HOST}:${INTERNAL_PORT},EXTERNAL://127.0.0.1:${EXTERNAL_PORT}
listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=INTERNAL
controller.listener.names=CONTROLLER
log.dirs=${DATA}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.ms=-1
log.retention.bytes=-1
log.segment.bytes=1073741824
PROPS
if [ -n "${KAFKA_EXTRA_PROPERTIES:-}" ]; then printf '%s\n' "$KAFKA_EXTRA_PROPERTIES" >>"$CONF/server.properties"; fi

# Logging to stdout: log4j 1 (reload4j, Kafka 3.x) or log4j 2 (Kafka 4.x), whichever is in libs/.
if ls "$KAFKA_HOME"/libs/log4j-core-*.jar >/dev/null 2>&1; then
	LOG_OPTS="-Dlog4j2.configurationFile=$KAFKA_HOME/config/rehearse-log4j2.properties"
else
	LOG_OPTS="-Dlog4j.configuration=file:$KAFKA_HOME/config/rehearse-log4j.properties"
fi
JAVA=java
[ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && JAVA=$JAVA_HOME/bin/java
CP="$KAFKA_HOME/libs/*"
# Format only once: a restarted container keeps its data.
if [ ! -f "$DATA/meta.properties" ]; then
	# shellcheck disable=SC2086
	"$JAVA" $LOG_OPTS -cp "$CP" kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$CONF/server.properties" --ignore-formatted
fi
# shellcheck disable=SC2086
exec "$JAVA" ${KAFKA_HEAP_OPTS:--Xmx512m -Xms256m} -XX:+UseG1GC -Djava.awt.headless=true $LOG_OPTS \
	${KAFKA_OPTS:-} -cp "$CP" kafka.Kafka "$CONF/server.properties"
