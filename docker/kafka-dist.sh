# shellcheck shell=bash
# The Apache Kafka broker rehearse runs, shared by the image recipe (kafka.sh) and the local
# runtime (local-install.sh): org.apache.kafka:kafka_2.13 + kafka-tools and their runtime
# dependencies from Maven Central, with the logging binding the distribution ships. Sourced after
# common.sh, never run.

# kafka_libs VERSION OUTDIR MVNDIR: resolves the broker's jars into OUTDIR (strict checksums);
# MVNDIR holds the generated POM.
kafka_libs() {
	local v=$1 out=$2 mvndir=$3 major=${1%%.*} logging
	if [ "$major" -ge 4 ]; then
		# Kafka 4 logs through log4j 2 (KIP-653); the jars name no binding, the distribution adds it.
		logging='<dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>2.24.3</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>2.24.3</version></dependency>'
	else
		# Kafka 3.x ships slf4j-reload4j + reload4j in its libs/ (log4j 1 API, used by Log4jController).
		logging='<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId><version>1.2.25</version></dependency>'
	fi
	mkdir -p "$mvndir" "$out"
	cat >"$mvndir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.rehearse.images</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>$v</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$v</version>
      <exclusions>
        <exclusion><groupId>ch.qos.logback</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>log4j</groupId><artifactId>log4j</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$v</version>
      <exclusions>
        <exclusion><groupId>ch.qos.logback</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>log4j</groupId><artifactId>log4j</artifactId></exclusion>
      </exclusions>
    </dependency>
    $logging
  </dependencies>
</project>
POM
	log "resolving org.apache.kafka:kafka_2.13:$v and its runtime dependencies from Maven Central"
	maven_copy "kafka-$v" "$out" "$mvndir/pom.xml"
	[ -f "$out/kafka_2.13-$v.jar" ] || die maven-missing "kafka_2.13-$v.jar was not resolved"
	log "$(find "$out" -name '*.jar' | wc -l) jars in libs/"
}
