#!/usr/bin/env bash
# Installs the Scala compilers the JVM tests build their Scala job with (tests/integration/jvm.rs,
# scenarios/jobs/jvm/build.sh): scala-compiler, scala-library and scala-reflect of each Scala
# line Spark uses — 2.12.18 (Spark 3.5.3's scala-library) and 2.13.16 (Spark 4.0.1's) — from
# Maven Central, each jar checked against Maven Central's .sha1, into
# ${REHEARSE_SCALAC_DIR:-$HOME/.cache/rehearse/scalac}/<version>/. Idempotent: a version whose
# jars are present and complete is not downloaded again, so CI runs offline after the first.
# Fails loudly (non-zero, the jar named) on a download or checksum failure.
#
#   scripts/setup-scalac.sh            # both versions
#   scripts/setup-scalac.sh 2.13.16    # one
set -euo pipefail
root=${REHEARSE_SCALAC_DIR:-${HOME}/.cache/rehearse/scalac}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(2.12.18 2.13.16)
maven=${MAVEN_CENTRAL:-https://repo1.maven.org/maven2}
for v in "${versions[@]}"; do
    dir="$root/$v"
    if [ -f "$dir/complete" ]; then
        echo "scalac $v: cached in $dir"
        continue
    fi
    mkdir -p "$dir"
    for a in scala-compiler scala-library scala-reflect; do
        url="$maven/org/scala-lang/$a/$v/$a-$v.jar"
        curl -fsSL --retry 3 -o "$dir/$a.jar.part" "$url" || {
            echo "setup-scalac: cannot download $url" >&2
            exit 1
        }
        want=$(curl -fsSL --retry 3 "$url.sha1" | cut -c1-40) || {
            echo "setup-scalac: cannot download $url.sha1" >&2
            exit 1
        }
        have=$(sha1sum "$dir/$a.jar.part" | cut -c1-40)
        if [ "$want" != "$have" ]; then
            echo "setup-scalac: $url: sha1 $have, Maven Central says $want" >&2
            rm -f "$dir/$a.jar.part"
            exit 1
        fi
        mv "$dir/$a.jar.part" "$dir/$a.jar"
    done
    touch "$dir/complete"
    echo "scalac $v: installed in $dir"
done
