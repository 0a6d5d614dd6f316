# shellcheck shell=bash
# The Spark distribution rehearse runs, shared by the image recipe (spark.sh) and the local
# runtime (local-install.sh): Spark from the pyspark sdist on PyPI, plus the Kafka connector
# resolved from Maven Central. Sourced after common.sh, never run. Functions only; each one dies
# with a REHEARSE-ERROR line naming what failed.

# pyspark_sdist VERSION: prints the path of pyspark-VERSION.tar.gz in $CACHE/pyspark, downloading
# it from PyPI once (300-450 MB). A version PyPI does not have is the likeliest mistake.
pyspark_sdist() {
	local v=$1 sdists=$CACHE/pyspark pip_log
	local tgz=$sdists/pyspark-$v.tar.gz
	mkdir -p "$sdists"
	if [ ! -f "$tgz" ]; then
		log "downloading pyspark==$v from PyPI (300-450 MB)"
		pip_log=$LOGS/pip-pyspark-$v.log
		if ! python3 -m pip download -q --no-deps -d "$sdists.tmp-$v-$$" "pyspark==$v" >"$pip_log" 2>&1; then
			tail -n 20 "$pip_log" >&2
			if grep -qE 'No matching distribution|Could not find a version' "$pip_log"; then
				die not-published "pyspark==$v is not published on PyPI (see $pip_log)"
			fi
			if grep -qiE 'NewConnectionError|Max retries|Temporary failure|Name or service' "$pip_log"; then
				die registry-unreachable "PyPI is unreachable (see $pip_log)"
			fi
			if grep -qE 'No module named pip' "$pip_log"; then
				die tools-missing "python3 -m pip is not available (apt-get install python3-pip)"
			fi
			die build-failed "pip download pyspark==$v failed (see $pip_log)"
		fi
		mv "$sdists.tmp-$v-$$/pyspark-$v.tar.gz" "$tgz" || die build-failed "pip did not leave pyspark-$v.tar.gz"
		rm -rf "$sdists.tmp-$v-$$"
	fi
	printf '%s\n' "$tgz"
}

# published_versions ARTIFACT: the versions of org.apache.spark:ARTIFACT the registry serves
# (maven-metadata.xml).
published_versions() {
	curl -fsS --retry 2 "$MAVEN_REPO/org/apache/spark/$1/maven-metadata.xml" 2>/dev/null |
		sed -n 's:.*<version>\(.*\)</version>.*:\1:p'
}

# connector_jars VERSION SCALA OUTDIR MVNDIR: resolves spark-sql-kafka-0-10_SCALA:VERSION and the
# jars it needs (spark-token-provider-kafka-0-10, kafka-clients, commons-pool2; the versions the
# connector's POM names) from Maven Central into OUTDIR, with strict checksums. MVNDIR holds the
# generated POM. Sets $substituted to "artifact:wanted->used" when the registry lacks the token
# provider of the exact version and the newest one of the same line is used instead (else empty).
connector_jars() {
	local v=$1 scala=$2 out=$3 mvndir=$4 connector_versions token_version line a
	log "resolving spark-sql-kafka-0-10_$scala:$v and its Kafka jars from Maven Central"
	command -v curl >/dev/null 2>&1 || die tools-missing "curl not found (apt-get install curl)"
	mkdir -p "$out" "$mvndir"
	connector_versions=$(published_versions "spark-sql-kafka-0-10_$scala") ||
		die registry-unreachable "Maven Central ($MAVEN_REPO) unreachable"
	# Say which registry lacks it and what it has of the line: a mirror may serve part of Central
	# (4.1.4, 4.2.1 and 4.3.0 on the machines rehearse is built on), and online users get them.
	if ! grep -qx "$v" <<<"$connector_versions"; then
		local served
		served=$(grep -E "^${v%.*}\.[0-9]+$" <<<"$connector_versions" | sort -V | tr '\n' ' ' | sed 's/ $//') || served=
		die maven-missing "org.apache.spark:spark-sql-kafka-0-10_$scala:$v is not on the Maven registry $MAVEN_REPO (of the ${v%.*} line it serves: ${served:-none}); Maven Central publishes every Spark release's connector, so a machine that reaches it, or MAVEN_REPO naming a mirror that has it, builds this image"
	fi
	# The registry these machines reach serves part of Maven Central only: a missing token provider of
	# the exact version is replaced by the newest one of the same line (4.0.1 -> 4.0.0), said in a label.
	token_version=$v
	substituted=
	if ! published_versions "spark-token-provider-kafka-0-10_$scala" | grep -qx "$v"; then
		line=${v%.*}
		token_version=$(published_versions "spark-token-provider-kafka-0-10_$scala" |
			grep -E "^${line//./\\.}\.[0-9]+$" | sort -V | tail -1)
		[ -n "$token_version" ] ||
			die maven-missing "org.apache.spark:spark-token-provider-kafka-0-10_$scala:$v (and any $line.x) is not on Maven Central"
		substituted="spark-token-provider-kafka-0-10_$scala:$v->$token_version"
		log "WARNING: spark-token-provider-kafka-0-10_$scala:$v is not on the Maven registry; using $token_version"
	fi
	cat >"$mvndir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.rehearse.images</groupId>
  <artifactId>spark-kafka-connector</artifactId>
  <version>$v</version>
  <packaging>pom</packaging>
  <dependencyManagement><dependencies><dependency>
    <groupId>org.apache.spark</groupId><artifactId>spark-token-provider-kafka-0-10_$scala</artifactId>
    <version>$token_version</version>
  </dependency></dependencies></dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-sql-kafka-0-10_$scala</artifactId>
      <version>$v</version>
    </dependency>
  </dependencies>
</project>
POM
	maven_copy "spark-$v" "$out" "$mvndir/pom.xml" \
		"spark-sql-kafka-0-10_$scala,spark-token-provider-kafka-0-10_$scala,kafka-clients,commons-pool2"
	for a in "spark-sql-kafka-0-10_$scala-$v.jar" "spark-token-provider-kafka-0-10_$scala-$token_version.jar"; do
		[ -f "$out/$a" ] || die maven-missing "$a was not resolved"
	done
	ls "$out"/kafka-clients-*.jar "$out"/commons-pool2-*.jar >/dev/null 2>&1 ||
		die maven-missing "kafka-clients or commons-pool2 was not resolved for Spark $v"
	log "connector jars: $(cd "$out" && ls | tr '\n' ' ')"
}

# spark_home_from_sdist VERSION TGZ OUTDIR: lays SPARK_HOME out in OUTDIR (created; must not
# exist) from the pyspark sdist, which carries bin/, sbin/ and jars/ of the release:
# OUTDIR/{bin,sbin,jars,python/lib/{pyspark.zip,py4j-*-src.zip},RELEASE}.
spark_home_from_sdist() {
	local v=$1 tgz=$2 out=$3 src p
	log "laying out SPARK_HOME from pyspark-$v.tar.gz"
	src=$out.src
	rm -rf "$src"
	mkdir -p "$out/python" "$src"
	tar xzf "$tgz" -C "$src" || die build-failed "cannot unpack $tgz"
	p=$src/pyspark-$v
	[ -d "$p/deps/jars" ] || die build-failed "pyspark-$v.tar.gz has no deps/jars (not a full sdist)"
	mv "$p/deps/bin" "$p/deps/sbin" "$p/deps/jars" "$out/"
	mv "$p/lib" "$out/python/lib" # pyspark.zip + py4j-*-src.zip
	rm -rf "$src" "$out"/bin/*.cmd "$out"/sbin/*.cmd
	printf 'Spark %s (from pyspark==%s on PyPI) + Kafka connector from Maven Central\n' "$v" "$v" >"$out/RELEASE"
}
