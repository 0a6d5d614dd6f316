#!/usr/bin/env bash
# Real storage servers for the `store::` integration tests, as host processes on 127.0.0.1 (no
# containers, no cloud): installed from the package registries once, cached, started fresh.
#
#   bash scripts/setup-test-servers.sh          install (cached) + start all four, write the env file
#   bash scripts/setup-test-servers.sh stop     stop them, remove their data and the env file
#
# Servers, ports and why (tested recipes: shared/docs/real-test-servers.md):
#   S3     MinIO, built from its Go module at a pinned pseudo-version   127.0.0.1:19100
#          Chosen as the S3 implementation because it is the S3 server on-premise users actually run,
#          it implements SigV4, ListObjectsV2, ETags, STS AssumeRole (used here for a read-only key)
#          and real AccessDenied / SignatureDoesNotMatch errors, and it builds from the Go module
#          proxy alone. Licence AGPLv3: only ever run as a separate process, never linked.
#   Azure  Azurite 3.37.0 (npm), Blob service only (it has no ADLS Gen2 dfs API)  127.0.0.1:19200
#   GCS    fake-gcs-server v1.56.1 (Go module), filesystem backend, no auth      127.0.0.1:19300
#   HDFS   Apache Hadoop 3.4.2 NameNode + DataNode from Maven Central jars, WebHDFS on
#          NameNode RPC 127.0.0.1:19000, WebHDFS (NameNode HTTP) 127.0.0.1:19870, DataNode 1986x
#
# Cache: $REHEARSE_CACHE/servers (default ~/.cache/rehearse/servers): Go binaries, node_modules,
# Hadoop jars. Data: a fresh `mktemp -d` per start. The env file ($REHEARSE_TEST_SERVERS_ENV,
# default /tmp/rehearse-test-servers.env) holds endpoints and test credentials; the tests read it.
# Measured 2026-12-01 on the 2-core machine while five other cargo builds ran (alone it is about
# 3x faster, see real-test-servers.md): cold install MinIO `go install` 1030 s, fake-gcs-server
# 493 s (after MinIO), Azurite npm 74 s, Hadoop jars 86 s; cached install check 0.1 s. Start: MinIO
# 1.8 s, Azurite 6.5 s, fake-gcs-server 0.3 s, HDFS format + NameNode + live DataNode 21 s (all four
# about 30 s; 90 s under the heaviest load). Stop: about 10 s.
# Idempotent: a second start with all four answering only re-checks them.
set -euo pipefail

CACHE=${REHEARSE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearse}/servers
ENV_FILE=${REHEARSE_TEST_SERVERS_ENV:-/tmp/rehearse-test-servers.env}
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
FAKE_GCS_VERSION=v1.56.1
AZURITE_VERSION=3.37.0
HADOOP_VERSION=3.4.2

S3_PORT=19100 AZ_PORT=19200 GCS_PORT=19300
NN_RPC=19000 NN_HTTP=19870 DN_PORT=19866 DN_HTTP=19864 DN_IPC=19867
S3_USER=rehearse-admin S3_PASSWORD=rehearse-admin-secret
AZ_ACCOUNT=devstoreaccount1
AZ_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

[ -d /usr/local/go/bin ] && PATH=$PATH:/usr/local/go/bin
export GOTOOLCHAIN=local GOFLAGS=-trimpath GOBIN=$CACHE/bin
export GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build

log() { echo "[test-servers] $*" >&2; }
die() { log "error: $*"; exit 1; }
# Runs "$@" and logs how long it took.
timed() {
	local what=$1 t0 ms
	shift
	t0=${EPOCHREALTIME/./}
	"$@"
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	log "$what: $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
}
# Polls "$@" every 0.1 s until it succeeds, at most $1 seconds.
wait_for() {
	local limit=$1 i=0
	shift
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le $((limit * 10)) ] || return 1
		sleep 0.1
	done
}

# --- install (each step skipped when its cached artefact is present) ---------------------------

need_tools() {
	local missing=()
	command -v curl >/dev/null || missing+=(curl)
	command -v openssl >/dev/null || missing+=(openssl)
	command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
	command -v mvn >/dev/null || missing+=(maven)
	command -v npm >/dev/null || missing+=(nodejs npm)
	if [ ${#missing[@]} -gt 0 ]; then
		log "apt-get install ${missing[*]}"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
	command -v go >/dev/null || die "no Go toolchain (MinIO and fake-gcs-server are built from their Go modules)"
}

# go_install MODULE@VERSION BINARY: the binary is rebuilt only when its embedded version differs.
go_install() {
	local module=${1%@*} version=${1#*@} bin=$CACHE/bin/$2
	if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "mod[[:space:]]*$module[[:space:]]*$version"; then
		return
	fi
	mkdir -p "$CACHE/bin"
	timed "go install $1" go install "$1"
}

install_all() {
	need_tools
	go_install "github.com/minio/minio@$MINIO_VERSION" minio
	go_install "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION" fake-gcs-server
	if [ "$(cat "$CACHE/azurite/version" 2>/dev/null)" != "$AZURITE_VERSION" ]; then
		timed "npm install azurite@$AZURITE_VERSION" npm install --no-audit --no-fund --silent \
			--prefix "$CACHE/azurite" "azurite@$AZURITE_VERSION"
		echo "$AZURITE_VERSION" >"$CACHE/azurite/version"
	fi
	local hadoop=$CACHE/hadoop-$HADOOP_VERSION
	if [ ! -f "$hadoop/lib/.complete" ]; then
		mkdir -p "$hadoop"
		cat >"$hadoop/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>rehearse</groupId><artifactId>hdfs-test-server</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-hdfs</artifactId><version>$HADOOP_VERSION</version></dependency>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-common</artifactId><version>$HADOOP_VERSION</version></dependency>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-hdfs-client</artifactId><version>$HADOOP_VERSION</version></dependency>
  </dependencies>
</project>
EOF
		timed "maven resolve hadoop $HADOOP_VERSION" mvn -B -q -f "$hadoop/pom.xml" \
			-Dmaven.repo.local="$CACHE/m2" \
			org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
			-DincludeScope=runtime -DoutputDirectory="$hadoop/lib"
		touch "$hadoop/lib/.complete"
	fi
}

# --- start -------------------------------------------------------------------------------------

# s3_sigv4 METHOD URL [curl args…]: one request signed with the MinIO root keys.
s3_sigv4() {
	local method=$1 url=$2
	shift 2
	curl -fsS -X "$method" --aws-sigv4 "aws:amz:us-east-1:${SIGV4_SERVICE:-s3}" \
		--user "$S3_USER:$S3_PASSWORD" "$@" "$url"
}

# az_create_container NAME: Shared Key signed `Create Container` against Azurite.
az_create_container() {
	local name=$1 date version=2021-08-06 sts sig
	date=$(LC_ALL=C TZ=GMT date '+%a, %d %b %Y %H:%M:%S GMT')
	# VERB, 11 empty standard headers (Content-Length empty for 0), canonical headers, resource.
	sts="PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:$date\nx-ms-version:$version\n/$AZ_ACCOUNT/$AZ_ACCOUNT/$name\nrestype:container"
	sig=$(printf '%b' "$sts" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(echo -n "$AZ_KEY" | base64 -d | od -An -v -tx1 | tr -d ' \n')" -binary | base64 -w0)
	curl -fsS -X PUT -H "x-ms-date: $date" -H "x-ms-version: $version" -H "Content-Length: 0" \
		-H "Authorization: SharedKey $AZ_ACCOUNT:$sig" \
		"http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT/$name?restype=container"
}

start_minio() {
	mkdir -p "$RUN/minio"
	MINIO_ROOT_USER=$S3_USER MINIO_ROOT_PASSWORD=$S3_PASSWORD MINIO_BROWSER=off \
		"$CACHE/bin/minio" server --quiet --address "127.0.0.1:$S3_PORT" "$RUN/minio/data" \
		>"$RUN/minio/log" 2>&1 &
	echo $! >"$RUN/minio.pid"
	wait_for 90 curl -fsS "http://127.0.0.1:$S3_PORT/minio/health/ready" || die "MinIO not ready: $RUN/minio/log"
	# Buckets for the tests; `rehearse-ro` is the only one the read-only key may read.
	# /minio/health/ready answers 200 before the object layer takes writes: on a loaded machine
	# the first bucket PUT got `503 Service Unavailable` (seen 2026-12-01), so each is retried.
	for b in rehearse-test rehearse-ro rehearse-private; do
		wait_for 60 s3_sigv4 PUT "http://127.0.0.1:$S3_PORT/$b" ||
			die "MinIO refused to create bucket $b: $RUN/minio/log"
	done
	# A read-only key (temporary, 12 h) limited to rehearse-ro, from STS AssumeRole with a policy.
	local policy resp
	policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetBucketLocation","s3:ListBucket","s3:GetObject"],"Resource":["arn:aws:s3:::rehearse-ro","arn:aws:s3:::rehearse-ro/*"]}]}'
	resp=$(SIGV4_SERVICE=sts s3_sigv4 POST "http://127.0.0.1:$S3_PORT/" \
		--data-urlencode Action=AssumeRole --data-urlencode Version=2011-06-15 \
		--data-urlencode DurationSeconds=43200 --data-urlencode "Policy=$policy")
	S3_RO_KEY=$(sed -n 's:.*<AccessKeyId>\(.*\)</AccessKeyId>.*:\1:p' <<<"$resp")
	S3_RO_SECRET=$(sed -n 's:.*<SecretAccessKey>\(.*\)</SecretAccessKey>.*:\1:p' <<<"$resp")
	S3_RO_TOKEN=$(sed -n 's:.*<SessionToken>\(.*\)</SessionToken>.*:\1:p' <<<"$resp")
	[ -n "$S3_RO_KEY" ] || die "MinIO AssumeRole gave no key: $resp"
}

start_azurite() {
	mkdir -p "$RUN/azurite"
	"$CACHE/azurite/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$AZ_PORT" \
		--location "$RUN/azurite/data" --skipApiVersionCheck --disableTelemetry --silent \
		>"$RUN/azurite/log" 2>&1 &
	echo $! >"$RUN/azurite.pid"
	# Any HTTP answer (an unsigned list is a 403) means it listens.
	wait_for 90 sh -c "curl -sS -o /dev/null http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT?comp=list" ||
		die "Azurite not ready: $RUN/azurite/log"
	az_create_container rehearse-test
}

start_gcs() {
	mkdir -p "$RUN/gcs/data/rehearse-test"   # a directory under the root is a bucket
	"$CACHE/bin/fake-gcs-server" -scheme http -host 127.0.0.1 -port "$GCS_PORT" -backend filesystem \
		-filesystem-root "$RUN/gcs/data" -public-host "127.0.0.1:$GCS_PORT" \
		-external-url "http://127.0.0.1:$GCS_PORT" -log-level warn >"$RUN/gcs/log" 2>&1 &
	echo $! >"$RUN/gcs.pid"
	wait_for 30 curl -fsS "http://127.0.0.1:$GCS_PORT/_internal/healthcheck" || die "fake-gcs-server not ready: $RUN/gcs/log"
}

hdfs_live() {
	curl -fsS "http://127.0.0.1:$NN_HTTP/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState" |
		grep -q '"NumLiveDataNodes" : 1'
}

start_hdfs() {
	local conf=$RUN/hdfs/conf lib=$CACHE/hadoop-$HADOOP_VERSION/lib
	mkdir -p "$conf/webapps/hdfs" "$conf/webapps/datanode"
	prop() { echo "<property><name>$1</name><value>$2</value></property>"; }
	{
		echo "<configuration>"
		prop fs.defaultFS "hdfs://127.0.0.1:$NN_RPC"
		echo "</configuration>"
	} >"$conf/core-site.xml"
	{
		echo "<configuration>"
		prop dfs.replication 1
		prop dfs.permissions.enabled false
		prop dfs.webhdfs.enabled true
		prop dfs.namenode.safemode.extension 0
		prop dfs.namenode.name.dir "$RUN/hdfs/name"
		prop dfs.datanode.data.dir "$RUN/hdfs/data"
		prop dfs.namenode.http-address "127.0.0.1:$NN_HTTP"
		prop dfs.datanode.address "127.0.0.1:$DN_PORT"
		prop dfs.datanode.http.address "127.0.0.1:$DN_HTTP"
		prop dfs.datanode.ipc.address "127.0.0.1:$DN_IPC"
		prop dfs.datanode.hostname 127.0.0.1
		prop dfs.namenode.datanode.registration.ip-hostname-check false
		echo "</configuration>"
	} >"$conf/hdfs-site.xml"
	cat >"$conf/log4j.properties" <<'EOF'
log4j.rootLogger=WARN, console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d %p %c: %m%n
EOF
	local cp="$conf:$lib/*" j=(-Xmx384m --add-opens java.base/java.lang=ALL-UNNAMED)
	java "${j[@]}" -cp "$cp" org.apache.hadoop.hdfs.server.namenode.NameNode -format -nonInteractive -force \
		>"$RUN/hdfs/format.log" 2>&1 || die "HDFS format failed: $RUN/hdfs/format.log"
	java "${j[@]}" -cp "$cp" org.apache.hadoop.hdfs.server.namenode.NameNode >"$RUN/hdfs/nn.log" 2>&1 &
	echo $! >"$RUN/hdfs-nn.pid"
	java "${j[@]}" -cp "$cp" org.apache.hadoop.hdfs.server.datanode.DataNode >"$RUN/hdfs/dn.log" 2>&1 &
	echo $! >"$RUN/hdfs-dn.pid"
	wait_for 180 hdfs_live || die "HDFS has no live DataNode: $RUN/hdfs/nn.log, $RUN/hdfs/dn.log"
}

all_answer() {
	curl -fsS "http://127.0.0.1:$S3_PORT/minio/health/ready" >/dev/null 2>&1 &&
		curl -fsS "http://127.0.0.1:$GCS_PORT/_internal/healthcheck" >/dev/null 2>&1 &&
		curl -sS -o /dev/null "http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT?comp=list" 2>/dev/null &&
		hdfs_live 2>/dev/null
}

stop_all() {
	local dir
	dir=$(sed -n 's/^REHEARSE_TEST_SERVERS_DIR=//p' "$ENV_FILE" 2>/dev/null || true)
	[ -n "$dir" ] && [ -d "$dir" ] || { rm -f "$ENV_FILE"; return 0; }
	for pidfile in "$dir"/*.pid; do
		[ -f "$pidfile" ] || continue
		kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
	done
	for pidfile in "$dir"/*.pid; do
		[ -f "$pidfile" ] || continue
		local pid i=0
		pid=$(cat "$pidfile")
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$pid" 2>/dev/null || true
	done
	rm -rf "$dir" "$ENV_FILE"
	log "stopped; removed $dir"
}

start_all() {
	local started
	started=$(sed -n 's/^REHEARSE_TEST_SERVERS_STARTED=//p' "$ENV_FILE" 2>/dev/null || true)
	# The read-only S3 key lives 12 h: restart before it expires.
	if [ -n "$started" ] && [ $(($(date +%s) - started)) -lt 39600 ] && all_answer; then
		log "already running ($ENV_FILE)"
		return
	fi
	stop_all
	timed "install (cached)" install_all
	RUN=$(mktemp -d /tmp/rehearse-test-servers.XXXXXX)
	# The env file names the run dir first, so `stop` can clean up after a failed start.
	echo "REHEARSE_TEST_SERVERS_DIR=$RUN" >"$ENV_FILE"
	timed "start MinIO" start_minio
	timed "start Azurite" start_azurite
	timed "start fake-gcs-server" start_gcs
	timed "start HDFS (format + NameNode + DataNode)" start_hdfs
	cat >"$ENV_FILE" <<EOF
# Written by scripts/setup-test-servers.sh; read by tests/integration/store.rs. Test credentials only.
REHEARSE_TEST_SERVERS_DIR=$RUN
REHEARSE_TEST_SERVERS_STARTED=$(date +%s)
S3_ENDPOINT=http://127.0.0.1:$S3_PORT
S3_ACCESS_KEY_ID=$S3_USER
S3_SECRET_ACCESS_KEY=$S3_PASSWORD
S3_REGION=us-east-1
S3_BUCKET=rehearse-test
S3_RO_BUCKET=rehearse-ro
S3_PRIVATE_BUCKET=rehearse-private
S3_RO_ACCESS_KEY_ID=$S3_RO_KEY
S3_RO_SECRET_ACCESS_KEY=$S3_RO_SECRET
S3_RO_SESSION_TOKEN=$S3_RO_TOKEN
AZURE_BLOB_ENDPOINT=http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT
AZURE_ACCOUNT=$AZ_ACCOUNT
AZURE_ACCOUNT_KEY=$AZ_KEY
AZURE_CONTAINER=rehearse-test
GCS_ENDPOINT=http://127.0.0.1:$GCS_PORT
GCS_BUCKET=rehearse-test
WEBHDFS_ENDPOINT=http://127.0.0.1:$NN_HTTP
HDFS_URL=hdfs://127.0.0.1:$NN_RPC
EOF
	log "ready: $ENV_FILE (data in $RUN; stop with: bash $0 stop)"
}

case "${1:-start}" in
start) start_all ;;
stop) stop_all ;;
install) install_all ;;
*) die "usage: $0 [start|stop|install]" ;;
esac
