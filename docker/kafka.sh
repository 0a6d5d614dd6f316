#!/usr/bin/env bash
# rehearse/kafka:<version>: Apache Kafka, single-node KRaft (broker + controller).
#   kafka.sh VERSION [packages|official]
# packages: org.apache.kafka:kafka_2.13:<version> + kafka-tools and their runtime dependencies from
#           Maven Central (mvn, strict checksums) into /opt/kafka/libs, on rehearse/base:bookworm-jre17.
# official: FROM apache/kafka:<version> (Docker Hub; published since 3.7.0).
# Both: CMD /opt/kafka/start.sh (see kafka-start.sh for the listener/env contract).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/kafka-dist.sh"

v=${1:?usage: kafka.sh VERSION [packages|official]}
source_kind=${2:-packages}
check_version "$v"
major=${v%%.*}
minor=${v#*.}
minor=${minor%%.*}
[ "$major" -ge 3 ] || die bad-version "Kafka $v: KRaft single-node images need Kafka 3.x or later"
tag=rehearse/kafka:$v
case $source_kind in
packages) base=rehearse/base:bookworm-jre17 ;;
official)
	{ [ "$major" -gt 3 ] || [ "$minor" -ge 7 ]; } || die bad-version "no official apache/kafka image for $v (they start at 3.7.0); use --from packages"
	base=apache/kafka:$v
	;;
*) die bad-version "unknown source '$source_kind' (packages or official)" ;;
esac

hash=${REHEARSE_RECIPE_HASH:-$(recipe_hash common.sh base.sh kafka-dist.sh kafka.sh kafka-start.sh kafka-run-class.sh \
	kafka-log4j.properties kafka-tools-log4j.properties kafka-log4j2.properties kafka-tools-log4j2.properties \
	-- kafka "$v" "$source_kind")}
if up_to_date "$tag" "$hash"; then
	log "$tag is up to date"
	exit 0
fi
need_root
need_docker
lock "kafka-$v"
if up_to_date "$tag" "$hash"; then
	log "$tag was built meanwhile by another process"
	exit 0
fi
t0=$(date +%s)
ctx=$WORK/kafka-$v
rm -rf "$ctx"
mkdir -p "$ctx/config" "$ctx/bin"
cp "$RECIPE_DIR/kafka-start.sh" "$ctx/start.sh"
cp "$RECIPE_DIR/kafka-log4j.properties" "$ctx/config/rehearse-log4j.properties"
cp "$RECIPE_DIR/kafka-tools-log4j.properties" "$ctx/config/rehearse-tools-log4j.properties"
cp "$RECIPE_DIR/kafka-log4j2.properties" "$ctx/config/rehearse-log4j2.properties"
cp "$RECIPE_DIR/kafka-tools-log4j2.properties" "$ctx/config/rehearse-tools-log4j2.properties"

if [ "$source_kind" = packages ]; then
	build_base bookworm
	kafka_libs "$v" "$ctx/libs" "$ctx/mvn"
	jar_has() { python3 -c 'import sys, zipfile; sys.exit(sys.argv[2] not in zipfile.ZipFile(sys.argv[1]).namelist())' "$1" "$2" 2>/dev/null; }
	# /opt/kafka/bin: the usual tool names, as thin wrappers over kafka-run-class.sh.
	cp "$RECIPE_DIR/kafka-run-class.sh" "$ctx/bin/kafka-run-class.sh"
	wrap() { printf '#!/bin/sh\nexec /opt/kafka/bin/kafka-run-class.sh %s "$@"\n' "$2" >"$ctx/bin/$1"; }
	wrap kafka-topics.sh org.apache.kafka.tools.TopicCommand
	wrap kafka-get-offsets.sh org.apache.kafka.tools.GetOffsetShell
	wrap kafka-consumer-groups.sh org.apache.kafka.tools.consumer.group.ConsumerGroupCommand
	wrap kafka-storage.sh kafka.tools.StorageTool
	if jar_has "$ctx/libs/kafka-tools-$v.jar" org/apache/kafka/tools/ConsoleProducer.class; then
		wrap kafka-console-producer.sh org.apache.kafka.tools.ConsoleProducer
	else
		wrap kafka-console-producer.sh kafka.tools.ConsoleProducer
	fi
	if jar_has "$ctx/libs/kafka-tools-$v.jar" org/apache/kafka/tools/consumer/ConsoleConsumer.class; then
		wrap kafka-console-consumer.sh org.apache.kafka.tools.consumer.ConsoleConsumer
	else
		wrap kafka-console-consumer.sh kafka.tools.ConsoleConsumer
	fi
	chmod 755 "$ctx"/bin/*.sh "$ctx/start.sh"
	cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM $base
COPY libs /opt/kafka/libs
COPY config /opt/kafka/config
COPY bin /opt/kafka/bin
COPY start.sh /opt/kafka/start.sh
ENV KAFKA_HOME=/opt/kafka \\
    PATH=/opt/kafka/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN mkdir -p /tmp/kafka-logs && chmod 1777 /tmp/kafka-logs
WORKDIR /opt/kafka
EXPOSE 9092 9093 29092
LABEL org.rehearse.recipe=$hash org.rehearse.kafka.version=$v org.rehearse.source=packages
CMD ["/opt/kafka/start.sh"]
DOCKERFILE
else
	chmod 755 "$ctx/start.sh"
	cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM $base
USER root
COPY config/ /opt/kafka/config/
COPY start.sh /opt/kafka/start.sh
RUN chmod 755 /opt/kafka/start.sh && chmod 644 /opt/kafka/config/rehearse-*.properties
ENV KAFKA_HOME=/opt/kafka
USER appuser
WORKDIR /opt/kafka
EXPOSE 9092 9093 29092
LABEL org.rehearse.recipe=$hash org.rehearse.kafka.version=$v org.rehearse.source=official
CMD ["/opt/kafka/start.sh"]
DOCKERFILE
fi

log "docker build $tag (FROM $base)"
build_log=$LOGS/docker-build-kafka-$v.log
if ! docker build -t "$tag" "$ctx" >"$build_log" 2>&1; then
	tail -n 30 "$build_log" >&2
	if grep -qiE 'no such host|pull access denied|manifest unknown|dial tcp' "$build_log"; then
		die registry-unreachable "could not get $base (see $build_log)"
	fi
	die build-failed "docker build of $tag failed (see $build_log)"
fi
rm -rf "$ctx"
log "built $tag in $(($(date +%s) - t0))s"
