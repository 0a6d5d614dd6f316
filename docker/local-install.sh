#!/usr/bin/env bash
# Installs the Spark distribution or the Kafka broker of the images on this host, for rehearse's
# local runtime (no Docker): the same parts from the same registries, by the same functions.
#   local-install.sh spark VERSION DEST   DEST/spark = SPARK_HOME (pyspark sdist + Kafka connector)
#   local-install.sh kafka VERSION DEST   DEST/{libs,config,start.sh} (kafka-start.sh's layout)
# DEST must not exist; the caller (rehearse) installs into a temporary name, holds a lock, and
# marks the result complete. Needs python3 -m pip, curl and mvn; no root, no Docker.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/spark-dist.sh"
source "$(dirname "${BASH_SOURCE[0]}")/kafka-dist.sh"

kind=${1:?usage: local-install.sh spark|kafka VERSION DEST}
v=${2:?usage: local-install.sh spark|kafka VERSION DEST}
dest=${3:?usage: local-install.sh spark|kafka VERSION DEST}
check_version "$v"
major=${v%%.*}
[ ! -e "$dest" ] || die build-failed "$dest exists already"
t0=$(date +%s)
case $kind in
spark)
	[ "$major" -ge 3 ] || die bad-version "Spark $v: rehearse supports Spark 3.0 and later"
	if [ "$major" -ge 4 ]; then scala=2.13; else scala=2.12; fi
	tgz=$(pyspark_sdist "$v")
	mkdir -p "$dest"
	connector_jars "$v" "$scala" "$dest/connector" "$dest/mvn"
	spark_home_from_sdist "$v" "$tgz" "$dest/spark"
	mv "$dest"/connector/*.jar "$dest/spark/jars/"
	printf '%s\n' "$substituted" >"$dest/substituted"
	rm -rf "$dest/connector" "$dest/mvn"
	;;
kafka)
	[ "$major" -ge 3 ] || die bad-version "Kafka $v: the KRaft single-node broker needs Kafka 3.x or later"
	mkdir -p "$dest/config"
	kafka_libs "$v" "$dest/libs" "$dest/mvn"
	rm -rf "$dest/mvn"
	cp "$RECIPE_DIR/kafka-start.sh" "$dest/start.sh"
	chmod 755 "$dest/start.sh"
	for f in kafka-log4j.properties kafka-tools-log4j.properties kafka-log4j2.properties kafka-tools-log4j2.properties; do
		cp "$RECIPE_DIR/$f" "$dest/config/rehearse-${f#kafka-}"
	done
	;;
*) die bad-version "unknown kind '$kind' (spark or kafka)" ;;
esac
log "installed $kind $v in $(($(date +%s) - t0))s"
