#!/usr/bin/env bash
# rehearse/spark:<version> with the Kafka connector in $SPARK_HOME/jars.
#   spark.sh VERSION [packages|official]
# packages: base image (debootstrap) + SPARK_HOME laid out from the pyspark sdist on PyPI.
# official: FROM apache/spark:<version>-scala<S>-java<J>-python3-ubuntu (Docker Hub).
# Either way the connector (spark-sql-kafka-0-10, spark-token-provider-kafka-0-10, kafka-clients,
# commons-pool2, the versions the connector's POM names) comes from Maven Central via mvn with
# strict checksums, and the image runs as root by default and also with --user UID:GID.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/spark-dist.sh"

v=${1:?usage: spark.sh VERSION [packages|official]}
source_kind=${2:-packages}
check_version "$v"
major=${v%%.*}
minor=${v#*.}
minor=${minor%%.*}
[ "$major" -ge 3 ] || die bad-version "Spark $v: rehearse supports Spark 3.0 and later"
if [ "$major" -ge 4 ]; then scala=2.13; else scala=2.12; fi
if [ "$major" -eq 3 ] && [ "$minor" -le 3 ]; then suite=bullseye base=rehearse/base:bullseye-jre11; else suite=bookworm base=rehearse/base:bookworm-jre17; fi
tag=rehearse/spark:$v

case $source_kind in
packages) ;;
official)
	[ "$major" -gt 3 ] || [ "$minor" -ge 3 ] || die bad-version "no official apache/spark image for $v (they start at 3.3.0); use --from packages"
	if [ "$major" -eq 3 ] && [ "$minor" -le 4 ]; then java=11; else java=17; fi
	base=apache/spark:$v-scala$scala-java$java-python3-ubuntu
	;;
*) die bad-version "unknown source '$source_kind' (packages or official)" ;;
esac

hash=${REHEARSE_RECIPE_HASH:-$(recipe_hash common.sh base.sh spark-dist.sh spark.sh spark-entrypoint.sh -- spark "$v" "$source_kind")}
if up_to_date "$tag" "$hash"; then
	log "$tag is up to date"
	exit 0
fi
need_root
need_docker
lock "spark-$v"
if up_to_date "$tag" "$hash"; then
	log "$tag was built meanwhile by another process"
	exit 0
fi
t0=$(date +%s)
if [ "$source_kind" = packages ]; then
	build_base "$suite"
fi

# --- the pyspark sdist first: a version PyPI does not have is the likeliest mistake -----------
if [ "$source_kind" = packages ]; then
	tgz=$(pyspark_sdist "$v")
fi

ctx=$WORK/spark-$v
rm -rf "$ctx"
mkdir -p "$ctx/jars"

# --- the Kafka connector, resolved by Maven from the connector's own POM (spark-dist.sh) -----
connector_jars "$v" "$scala" "$ctx/jars" "$ctx/mvn"

# --- pandas + pyarrow (the Pandas APIs: applyInPandasWithState needs Spark 3.4+) -----------------
# Bookworm images only (Python 3.11; the bullseye images for 3.0-3.3 stay without). Wheels for the
# image's Python and platform are downloaded on the host by pip, every file checked against the
# sha256 pinned here (--require-hashes), then installed offline in a build stage of the image.
# Versions meet the minimums in each release's pyspark setup.py: 3.4/3.5 pandas>=1.0.5
# pyarrow>=4.0.0; 4.0 pandas>=2.0.0 pyarrow>=11.0.0 numpy>=1.21; 4.3 pandas>=2.2.0
# pyarrow>=18.0.0 numpy>=1.23.2. Changing a version means changing its hash (pip hash FILE).
py_requirements() { # SPARK_MAJOR: requirements with hashes; pip itself first (it installs the rest)
	echo "pip==24.3.1 --hash=sha256:3790624780082365f47549d032f3770eeb2b1e8bd1f7b2e02dace1afa361b4ed"
	if [ "$1" -ge 4 ]; then
		echo "pandas==2.2.3 --hash=sha256:c124333816c3a9b03fbeef3a9f230ba9a737e9e5bb4060aa2107a86cc0a497fc"
		echo "pyarrow==18.1.0 --hash=sha256:e31e9417ba9c42627574bdbfeada7217ad8a4cbbe45b9d6bdd4b62abbca4c6f6"
	else
		echo "pandas==2.0.3 --hash=sha256:d9cd88488cceb7635aebb84809d087468eb33551097d600c6dad13602029c2df"
		echo "pyarrow==12.0.1 --hash=sha256:e2c9cb8eeabbadf5fcfc3d1ddea616c7ce893db2ce4dcef0ac13b099ad7ca082"
	fi
	echo "numpy==1.26.4 --hash=sha256:666dbfb6ec68962c033a450943ded891bed2d54e6755e35e5835d63f4f6931d5"
	echo "python-dateutil==2.9.0.post0 --hash=sha256:a8b2bc7bffae282281c8140a97d3aa9c14da0b136dfe83f850eea9a5f7470427"
	echo "six==1.17.0 --hash=sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274"
	echo "pytz==2025.2 --hash=sha256:5ddf76296dd8c44c26eb8f4b6f35488f3ccbf6fbbd7adee0b7262d43f0ec2f00"
	echo "tzdata==2025.2 --hash=sha256:1a403fada01ff9221ca8044d701868fa132215d84beb92242d9acd2147f667a8"
}
py_packages=
if [ "$source_kind" = packages ] && [ "$suite" = bookworm ]; then
	wheels=$CACHE/wheels/py311-spark$major
	mkdir -p "$wheels" "$ctx/wheels"
	py_requirements "$major" >"$ctx/wheels/requirements.txt"
	log "downloading pandas, pyarrow and their dependencies for Python 3.11 (hash-checked)"
	pip_log=$LOGS/pip-wheels-spark-$v.log
	if ! python3 -m pip download -q --no-deps --require-hashes --only-binary=:all: \
		--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
		--python-version 3.11 --implementation cp --abi cp311 \
		-d "$wheels" -r "$ctx/wheels/requirements.txt" >"$pip_log" 2>&1; then
		tail -n 20 "$pip_log" >&2
		if grep -qiE 'NewConnectionError|Max retries|Temporary failure|Name or service' "$pip_log"; then
			die registry-unreachable "PyPI is unreachable (see $pip_log)"
		fi
		die build-failed "pip download of pandas/pyarrow wheels failed (see $pip_log)"
	fi
	while read -r req _; do
		name=${req%%==*}
		f=$(ls "$wheels" | grep -iE "^${name//-/_}-${req#*==}-" | head -1)
		[ -n "$f" ] || die build-failed "pip left no wheel for $req in $wheels"
		ln "$wheels/$f" "$ctx/wheels/$f" 2>/dev/null || cp "$wheels/$f" "$ctx/wheels/$f"
		if [ "$name" = pip ]; then pip_wheel=$f; fi
	done <"$ctx/wheels/requirements.txt"
	grep -v '^pip==' "$ctx/wheels/requirements.txt" >"$ctx/wheels/install.txt"
	py_packages=$(cut -d' ' -f1 "$ctx/wheels/install.txt" | tr '\n' ' ')
	py_packages=${py_packages% }
fi

cp "$RECIPE_DIR/spark-entrypoint.sh" "$ctx/entrypoint.sh"
chmod 755 "$ctx/entrypoint.sh"

if [ "$source_kind" = packages ]; then
	# --- SPARK_HOME from the pyspark sdist (it carries bin/, sbin/, jars/ of the release) ------
	spark_home_from_sdist "$v" "$tgz" "$ctx/spark"
	mv "$ctx"/jars/*.jar "$ctx/spark/jars/"
	pydeps_stage= pydeps_copy=
	if [ -n "$py_packages" ]; then
		# a build stage installs the wheels (pip run from its own wheel, no index), so the final
		# image holds the installed packages (less their tests and C headers) but not the wheels
		pydeps_stage="FROM $base AS pydeps
COPY wheels /wheels
RUN python3 -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version' \\
 && python3 /wheels/$pip_wheel/pip install -q --no-index --find-links /wheels --no-deps --require-hashes \\
      --root-user-action=ignore --target /pydeps -r /wheels/install.txt \\
 && rm -rf /pydeps/bin /pydeps/pandas/tests /pydeps/pyarrow/tests /pydeps/pyarrow/include /pydeps/numpy/*/tests
"
		pydeps_copy="COPY --from=pydeps /pydeps /usr/local/lib/python3.11/dist-packages/
RUN python3 -c 'import pandas, pyarrow; print(\"pandas\", pandas.__version__, \"pyarrow\", pyarrow.__version__)'"
	fi
	cat >"$ctx/Dockerfile" <<DOCKERFILE
${pydeps_stage}FROM $base
$pydeps_copy
COPY spark /opt/spark
COPY entrypoint.sh /opt/entrypoint.sh
ENV SPARK_HOME=/opt/spark \\
    PATH=/opt/spark/bin:/opt/spark/sbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    PYSPARK_PYTHON=python3
# 'import pyspark' from plain python3 too; /etc/passwd writable so --user UID gets an entry
RUN ls /opt/spark/python/lib/*.zip > /usr/lib/python3/dist-packages/rehearse-spark.pth \\
 && mkdir -p /opt/spark/work-dir && chmod 1777 /opt/spark/work-dir && chmod 666 /etc/passwd
WORKDIR /opt/spark/work-dir
LABEL org.rehearse.recipe=$hash org.rehearse.spark.version=$v org.rehearse.source=packages org.rehearse.substituted="$substituted" org.rehearse.python.packages="$py_packages"
ENTRYPOINT ["/opt/entrypoint.sh"]
CMD ["bash"]
DOCKERFILE
else
	cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM $base
USER root
COPY jars/ /opt/spark/jars/
COPY entrypoint.sh /opt/rehearse-entrypoint.sh
ENV SPARK_HOME=/opt/spark \\
    PATH=/opt/spark/bin:/opt/spark/sbin:/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    PYSPARK_PYTHON=python3
RUN chmod 644 /opt/spark/jars/*.jar && mkdir -p /opt/spark/work-dir && chmod 1777 /opt/spark/work-dir && chmod 666 /etc/passwd
WORKDIR /opt/spark/work-dir
LABEL org.rehearse.recipe=$hash org.rehearse.spark.version=$v org.rehearse.source=official org.rehearse.substituted="$substituted"
ENTRYPOINT ["/opt/rehearse-entrypoint.sh"]
CMD ["bash"]
DOCKERFILE
fi

log "docker build $tag (FROM $base)"
build_log=$LOGS/docker-build-spark-$v.log
if ! docker build -t "$tag" "$ctx" >"$build_log" 2>&1; then
	tail -n 30 "$build_log" >&2
	if grep -qiE 'no such host|pull access denied|manifest unknown|dial tcp' "$build_log"; then
		die registry-unreachable "could not get $base (see $build_log)"
	fi
	die build-failed "docker build of $tag failed (see $build_log)"
fi
rm -rf "$ctx"
log "built $tag in $(($(date +%s) - t0))s"
