#!/usr/bin/env bash
# Kafka throughput of rehearse's seeding and `[kafka.mirror]` copy (issue 12 §5), side by side
# with Kafka's own tools, one run each, on one broker (rehearse/kafka:3.9.1, host network,
# plaintext), RECORDS records of 1 KiB values over 8 partitions:
#   1. seeding (examples/kafka_bench.rs `seed`: kafka::seed, template records, one producer)
#      vs Kafka's ProducerPerformance (kafka-producer-perf-test.sh) with the same producer
#      settings rehearse uses (acks=1, linger.ms=20, batch.size=1000000);
#   2. mirroring (`mirror`: kafka::read_mirror of the perf topic, assign and seek, then
#      kafka::seed_from into another topic at the same offsets, keys/headers/timestamps kept)
#      vs kafka-console-consumer.sh piped into kafka-console-producer.sh (wall time, JVM start
#      included; it keeps neither partitions, headers nor timestamps).
# Prints records/s and MB/s of each and the ratios (rehearse ÷ Kafka tool; target >= 1.0).
# Not a timed test: run it by hand on a quiet machine. Needs Docker and the Kafka image.
#
# Usage: bench/kafka.sh [RECORDS]     (default 400000; PROFILE=dev uses a debug build, which
#        skips the release build of OpenSSL and librdkafka but understates rehearse)
set -euo pipefail

records=${1:-400000}
parts=8
size=1024
root=$(cd "$(dirname "$0")/.." && pwd)
profile=${PROFILE:-release}
(cd "$root" && cargo build --profile "$profile" --quiet --example kafka_bench)
[[ $profile == dev ]] && outdir=debug || outdir=$profile
bench="${CARGO_TARGET_DIR:-$root/target}/$outdir/examples/kafka_bench"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p_int=$(free_port); p_ctl=$(free_port); p_ext=$(free_port)
name="rehearse-bench-kafka-$$"
docker run -d --name "$name" --network host --label rehearse-bench=kafka \
  -e KAFKA_LISTEN_HOST=127.0.0.1 -e KAFKA_INTERNAL_HOST=127.0.0.1 \
  -e KAFKA_INTERNAL_PORT="$p_int" -e KAFKA_CONTROLLER_PORT="$p_ctl" -e KAFKA_EXTERNAL_PORT="$p_ext" \
  -e KAFKA_HEAP_OPTS="-Xmx1g -Xms1g" -e KAFKA_DATA_DIR=/tmp/kafka-logs -e KAFKA_CONFIG_DIR=/tmp/kafka-config \
  rehearse/kafka:3.9.1 >/dev/null
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
bs="127.0.0.1:$p_int"
kx() { docker exec "$name" "$@"; }
for _ in $(seq 1 120); do
  if kx /opt/kafka/bin/kafka-topics.sh --bootstrap-server "$bs" --list >/dev/null 2>&1; then break; fi
  sleep 1
done
mk() { kx /opt/kafka/bin/kafka-topics.sh --bootstrap-server "$bs" --create --topic "$1" --partitions "$parts" >/dev/null; }

echo "broker: rehearse/kafka:3.9.1 at $bs; $records records of $size bytes over $parts partitions"

# 1. Seeding vs ProducerPerformance.
mk perf
perf_line=$(kx /opt/kafka/bin/kafka-run-class.sh org.apache.kafka.tools.ProducerPerformance \
  --topic perf --num-records "$records" --record-size "$size" --throughput -1 \
  --producer-props bootstrap.servers="$bs" acks=1 linger.ms=20 batch.size=1000000 2>/dev/null | tail -1)
perf_rps=$(sed -E 's/.* ([0-9.]+) records\/sec.*/\1/' <<<"$perf_line")
seed_line=$("$bench" seed "$bs" seeded "$parts" "$records" "$size")
read -r s_records s_bytes s_secs < <(sed -E 's/records=([0-9]+) bytes=([0-9]+) seconds=([0-9.]+).*/\1 \2 \3/' <<<"$seed_line")

# 2. Mirroring vs console consumer | console producer.
mirror_line=$("$bench" mirror "$bs" perf mirrored "$parts" "$records")
read -r m_records m_bytes m_secs m_read < <(sed -E 's/records=([0-9]+) bytes=([0-9]+) seconds=([0-9.]+) read_seconds=([0-9.]+).*/\1 \2 \3 \4/' <<<"$mirror_line")
mk console
c_start=$(date +%s.%N)
kx sh -c "/opt/kafka/bin/kafka-console-consumer.sh --bootstrap-server $bs --topic perf --from-beginning --max-messages $records --timeout-ms 60000 2>/dev/null | /opt/kafka/bin/kafka-console-producer.sh --bootstrap-server $bs --topic console --producer-property acks=1 --producer-property linger.ms=20 --producer-property batch.size=1000000 >/dev/null 2>&1"
c_end=$(date +%s.%N)
c_count=$(kx /opt/kafka/bin/kafka-get-offsets.sh --bootstrap-server "$bs" --topic console 2>/dev/null | awk -F: '{s+=$3} END {print s}')

python3 - "$records" "$size" "$perf_rps" "$s_records" "$s_bytes" "$s_secs" "$m_records" "$m_bytes" "$m_secs" "$m_read" "$c_start" "$c_end" "$c_count" <<'PY'
import sys
(records, size, perf_rps, s_records, s_bytes, s_secs, m_records, m_bytes, m_secs, m_read,
 c_start, c_end, c_count) = sys.argv[1:]
records, size = int(records), int(size)
mb = lambda rps, sz: rps * sz / 1e6
perf_rps = float(perf_rps)
seed_rps = int(s_records) / float(s_secs)
mir_rps = int(m_records) / float(m_secs)
c_secs = float(c_end) - float(c_start)
c_rps = int(c_count) / c_secs
print(f"seeding   rehearse      {int(s_records):>9} records {float(s_secs):7.2f} s {seed_rps:>10.0f} rec/s {mb(seed_rps, size):7.1f} MB/s")
print(f"          ProducerPerf  {records:>9} records {'':>9} {perf_rps:>10.0f} rec/s {mb(perf_rps, size):7.1f} MB/s")
print(f"          ratio {seed_rps / perf_rps:.2f}x (target >= 1.0)")
print(f"mirroring rehearse      {int(m_records):>9} records {float(m_secs):7.2f} s {mir_rps:>10.0f} rec/s {int(m_bytes) / float(m_secs) / 1e6:7.1f} MB/s (read {float(m_read):.2f} s)")
print(f"          console|console {int(c_count):>7} records {c_secs:7.2f} s {c_rps:>10.0f} rec/s {mb(c_rps, size):7.1f} MB/s")
print(f"          ratio {mir_rps / c_rps:.2f}x (target >= 1.0)")
PY
