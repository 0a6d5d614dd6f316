#!/usr/bin/env bash
# Builds the example JVM jobs once per Spark line, against the Spark jars of the image rehearse
# runs that line on (rehearse/spark:V):
#   count-by-key_<scala>-<spark>.jar        CountByKey.java         (javac, --release 17)
#   count-by-key-scala_<scala>-<spark>.jar  CountByKeyScala.scala   (scalac of the image's Scala)
# the names `jar = "…count-by-key_{scala}-{spark}.jar"` in a scenario fills per target.
#
#   scenarios/jobs/jvm/build.sh 3.5.3 4.0.1            # into this directory
#   OUT=/tmp/jobs JOBS=java scenarios/jobs/jvm/build.sh 3.5.3
#
# Needs docker and the images (`rehearse images build --spark V`), a JDK 17 (javac, jar) and,
# for the Scala job, scripts/setup-scalac.sh (run here when the image's Scala is not
# installed). Each image's jars are copied out once and cached by image id under
# ${REHEARSE_JVM_CACHE:-$HOME/.cache/rehearse/jvm-jars}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${OUT:-$here}
jobs=${JOBS:-java scala}
cache=${REHEARSE_JVM_CACHE:-${HOME}/.cache/rehearse/jvm-jars}
scalac_root=${REHEARSE_SCALAC_DIR:-${HOME}/.cache/rehearse/scalac}
[ $# -gt 0 ] || { echo "usage: $0 SPARK_VERSION..." >&2; exit 2; }
for tool in javac jar docker; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool not found (a JDK 17 and docker are needed)" >&2; exit 1; }
done
mkdir -p "$out"
for v in "$@"; do
    id=$(docker image inspect --format '{{.Id}}' "rehearse/spark:$v" | sed 's/^sha256://' | cut -c1-16) || {
        echo "build.sh: no image rehearse/spark:$v; build it: rehearse images build --spark $v" >&2
        exit 1
    }
    jars="$cache/$v-$id"
    if [ ! -f "$jars/complete" ]; then
        rm -rf "$jars" && mkdir -p "$jars"
        c=$(docker create "rehearse/spark:$v")
        docker cp -q "$c:/opt/spark/jars" "$jars/jars"
        docker rm "$c" >/dev/null
        touch "$jars/complete"
    fi
    library=$(basename "$jars"/jars/scala-library-*.jar .jar)
    scala_full=${library#scala-library-}
    scala=$(echo "$scala_full" | cut -d. -f1-2)
    for job in $jobs; do
        classes=$(mktemp -d)
        case $job in
        java)
            javac --release 17 -nowarn -cp "$jars/jars/*" -d "$classes" \
                "$here/src/java/com/example/rehearse/CountByKey.java"
            name=count-by-key ;;
        scala)
            [ -f "$scalac_root/$scala_full/complete" ] || bash "$repo/scripts/setup-scalac.sh" "$scala_full"
            sc="$scalac_root/$scala_full"
            cp=$(printf '%s:' "$jars"/jars/*.jar)
            java -cp "$sc/scala-compiler.jar:$sc/scala-library.jar:$sc/scala-reflect.jar" \
                scala.tools.nsc.Main -nowarn -usejavacp -classpath "$cp" -d "$classes" \
                "$here/src/scala/CountByKeyScala.scala"
            name=count-by-key-scala ;;
        *) echo "build.sh: JOBS names $job; java or scala" >&2; exit 2 ;;
        esac
        jar="$out/${name}_${scala}-${v}.jar"
        (cd "$classes" && jar --create --file "$jar" .)
        rm -rf "$classes"
        echo "$jar"
    done
done
