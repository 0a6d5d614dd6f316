#!/usr/bin/env bash
# Manual end-to-end check of the images: a Kafka container and Spark containers on one user-defined
# network; each Spark version runs a PySpark streaming query that reads a topic with format("kafka")
# and writes its checkpoint to a bind-mounted host directory; the check passes when the
# checkpoint's last offsets/N names exactly the end offsets that were produced.
#   smoke.sh [SPARK_VERSION...]          default: 3.5.3 4.0.1
# Env: KAFKA_VERSION (3.9.1), SMOKE_DIR (host dir for checkpoints, default a new temp dir),
#      SMOKE_USER (e.g. 1000:1000, runs Spark with --user), KEEP=1 (leave containers and network).
set -euo pipefail
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(3.5.3 4.0.1)
kafka_version=${KAFKA_VERSION:-3.9.1}
dir=${SMOKE_DIR:-$(mktemp -d -t rehearse-smoke.XXXXXX)}
net=rehearse-smoke-$$
kafka=rehearse-smoke-kafka-$$
ext_port=${SMOKE_EXTERNAL_PORT:-29092}
mkdir -p "$dir/app"
now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
cleanup() {
	[ "${KEEP:-0}" = 1 ] && { echo "kept: network $net, container $kafka, dir $dir"; return; }
	docker rm -f "$kafka" >/dev/null 2>&1 || true
	docker network rm "$net" >/dev/null 2>&1 || true
}
trap cleanup EXIT

cat >"$dir/app/kafka_stream.py" <<'PY'
"""Read a Kafka topic from the earliest offset into a checkpointed memory sink; stop after all
`want` records were read, then print what the query saw."""
import sys, time
from pyspark.sql import SparkSession

bootstrap, topic, ckpt, want = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
spark = (SparkSession.builder.appName("rehearse-smoke")
         .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
         .getOrCreate())
print("SPARK_VERSION", spark.version, flush=True)
src = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
       .option("subscribe", topic).option("startingOffsets", "earliest").load())
q = (src.selectExpr("CAST(key AS STRING) k", "CAST(value AS STRING) v", "partition", "offset")
     .writeStream.format("memory").queryName("seen").option("checkpointLocation", ckpt)
     .trigger(processingTime="1 second").start())
t0 = time.time()
while spark.sql("select count(*) from seen").collect()[0][0] < want:
    if q.exception():
        raise q.exception()
    if time.time() - t0 > 180:
        raise SystemExit("timeout: records not read")
    time.sleep(0.5)
q.processAllAvailable()
q.stop()
rows = spark.sql("select partition, count(*) n, max(offset) m from seen group by partition order by partition").collect()
print("RESULT", {r["partition"]: (r["n"], r["m"]) for r in rows}, flush=True)
spark.stop()
PY

echo "== network $net, kafka rehearse/kafka:$kafka_version as $kafka (EXTERNAL 127.0.0.1:$ext_port)"
docker network create "$net" >/dev/null
t0=$(now)
docker run -d --name "$kafka" --network "$net" -e KAFKA_INTERNAL_HOST="$kafka" \
	-e KAFKA_EXTERNAL_PORT="$ext_port" -p "127.0.0.1:$ext_port:$ext_port" "rehearse/kafka:$kafka_version" >/dev/null
for _ in $(seq 240); do
	docker logs "$kafka" 2>&1 | grep -q 'Kafka Server started' && break
	docker inspect -f '{{.State.Running}}' "$kafka" | grep -q true || { docker logs "$kafka" | tail -20; exit 1; }
	sleep 0.25
done
echo "kafka ready after $(since "$t0")s"

fail=0
for v in "${versions[@]}"; do
	topic=smoke-${v//./-}
	n=30
	docker exec "$kafka" kafka-topics.sh --bootstrap-server localhost:9092 --create --topic "$topic" --partitions 3 >/dev/null
	# keyed records spread over the 3 partitions; produced through the INTERNAL listener
	seq 1 "$n" | awk '{print "k" $1 ":value-" $1}' | docker exec -i "$kafka" kafka-console-producer.sh \
		--bootstrap-server "$kafka:9092" --topic "$topic" --property parse.key=true --property key.separator=: >/dev/null
	ends=$(docker exec "$kafka" kafka-get-offsets.sh --bootstrap-server localhost:9092 --topic "$topic" | sort)
	want=$(printf '%s\n' "$ends" | awk -F: '{printf "%s\"%s\":%s", (NR>1?",":""), $2, $3}')
	ckpt=$dir/ckpt-$v
	rm -rf "$ckpt"
	user_args=()
	[ -n "${SMOKE_USER:-}" ] && { user_args=(--user "$SMOKE_USER"); mkdir -p "$ckpt"; chown "$SMOKE_USER" "$ckpt" "$dir"; }
	echo "== spark $v: topic $topic end offsets {$want}"
	t0=$(now)
	if ! docker run --rm --network "$net" "${user_args[@]}" --memory 1g -v "$dir:/smoke" "rehearse/spark:$v" \
		spark-submit --master 'local[2]' /smoke/app/kafka_stream.py "$kafka:9092" "$topic" "/smoke/ckpt-$v" "$n" \
		>"$dir/driver-$v.log" 2>&1; then
		echo "FAIL spark $v: spark-submit failed, see $dir/driver-$v.log"
		grep -E 'Exception|Error' "$dir/driver-$v.log" | head -5
		fail=1
		continue
	fi
	last=$(ls "$ckpt/offsets" | grep -E '^[0-9]+$' | sort -n | tail -1)
	got=$(tail -1 "$ckpt/offsets/$last")
	echo "spark $v: $(grep -E '^(SPARK_VERSION|RESULT)' "$dir/driver-$v.log" | tr '\n' ' ')"
	echo "spark $v: offsets/$last = $got (owner $(stat -c %u:%g "$ckpt/offsets/$last")), $(since "$t0")s"
	# Spark writes {"topic":{"0":10,"1":12,...}}: compare as JSON.
	if python3 -c 'import json,sys; got=json.loads(sys.argv[1]); want={k:int(v) for k,v in json.loads("{"+sys.argv[2]+"}").items()}; sys.exit(got.get(sys.argv[3])!=want)' \
		"$got" "$want" "$topic"; then
		echo "PASS spark $v"
	else
		echo "FAIL spark $v: offsets/$last does not name the produced end offsets {$want}"
		fail=1
	fi
done
echo "checkpoints and driver logs in $dir"
exit $fail
