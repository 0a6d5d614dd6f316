"""Shared argument parsing for the example jobs: every job reads Kafka and is restarted by
rehearse with {checkpoint}, {bootstrap_servers}, {output} and {topic.NAME} filled in."""
import argparse

from pyspark.sql import SparkSession


def parse_args(description, topics=("--topic",)):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--checkpoint", required=True, help="checkpointLocation")
    p.add_argument("--bootstrap-servers", required=True, help="kafka.bootstrap.servers")
    p.add_argument("--output", required=True, help="sink directory")
    for t in topics:
        p.add_argument(t, required=True, help="Kafka topic")
    p.add_argument("--max-offsets-per-trigger", type=int, default=None)
    p.add_argument("--extra-key", action="store_true",
                   help="add the Kafka partition as a grouping key (a changed query for rehearsals)")
    p.add_argument("--trigger-seconds", type=int, default=1)
    p.add_argument("--output-topic", default=None,
                   help="windowed count: write to this Kafka topic instead of JSON files")
    # Changed queries Spark restarts without an error, for rehearsing semantic warnings:
    p.add_argument("--no-watermark", action="store_true",
                   help="drop the withWatermark call (state is then never evicted)")
    p.add_argument("--dedup-on-topic", action="store_true",
                   help="dedup: key on the Kafka topic instead of the value (same type, "
                        "another meaning)")
    p.add_argument("--group-by-topic", action="store_true",
                   help="windowed count: group by the Kafka topic instead of the user (same "
                        "type, another meaning)")
    return p.parse_args()


def session(app_name):
    return SparkSession.builder.appName(app_name).getOrCreate()


def kafka_stream(spark, args, topic):
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("subscribe", topic)
              .option("startingOffsets", "earliest"))
    if args.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", args.max_offsets_per_trigger)
    return reader.load()


def run_until_stopped(query):
    # Runs until the harness stops the container; a query failure surfaces as the
    # StreamingQueryException traceback rehearse classifies.
    query.awaitTermination()
