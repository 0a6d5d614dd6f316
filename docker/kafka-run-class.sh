#!/bin/sh
# /opt/kafka/bin/kafka-run-class.sh CLASS ARGS...: run a Kafka class with the image's libs, logging
# warnings to stderr. The other scripts in /opt/kafka/bin are one-line wrappers of this one.
KAFKA_HOME=${KAFKA_HOME:-/opt/kafka}
JAVA=java
[ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && JAVA=$JAVA_HOME/bin/java
if ls "$KAFKA_HOME"/libs/log4j-core-*.jar >/dev/null 2>&1; then
	LOG_OPTS="-Dlog4j2.configurationFile=$KAFKA_HOME/config/rehearse-tools-log4j2.properties"
else
	LOG_OPTS="-Dlog4j.configuration=file:$KAFKA_HOME/config/rehearse-tools-log4j.properties"
fi
# shellcheck disable=SC2086
exec "$JAVA" ${KAFKA_HEAP_OPTS:--Xmx256m} $LOG_OPTS -cp "$KAFKA_HOME/libs/*" "$@"
