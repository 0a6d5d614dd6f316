"""Windowed count with a watermark over a Kafka topic (stateful: one aggregation operator).

Event time is the Kafka record timestamp; records are JSON with a "user" field (or anything:
the value is used as the user when it is not JSON). Output: JSON files in append mode, or with
--output-topic a Kafka topic (a window is written once the watermark closes it)."""
from pyspark.sql import functions as F

from common import kafka_stream, parse_args, run_until_stopped, session

args = parse_args(__doc__)
spark = session("rehearse-windowed-count")
raw = kafka_stream(spark, args, args.topic)
value = F.col("value").cast("string")
columns = [
    F.col("timestamp").alias("ts"),
    F.coalesce(F.get_json_object(value, "$.user"), value).alias("user"),
    F.col("partition"),
]
group = "user"
if args.group_by_topic:
    # Another string column in the user's place: a state key whose names differ and whose types
    # match, which Spark accepts ("Detected schema change which is compatible") although the
    # old users' counts are now read as topics' counts.
    columns.append(F.col("topic"))
    group = "topic"
events = raw.select(*columns)
keys = [F.window("ts", "10 seconds"), F.col(group)]
if args.extra_key:
    keys.append(F.col("partition"))
counts = events.withWatermark("ts", "30 seconds").groupBy(*keys).count()
rows = counts.select(F.col("window.start").alias("window_start"), F.col(group).alias("user"),
                     "count")
if args.output_topic:
    # The sandbox broker creates no topic on demand: writing to a topic that does not exist fails
    # once the producer's metadata wait (max.block.ms) ends.
    writer = (rows.select(F.to_json(F.struct("window_start", "user", "count")).alias("value"))
              .writeStream.format("kafka")
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("kafka.max.block.ms", "10000")
              .option("topic", args.output_topic))
else:
    writer = rows.writeStream.format("json").option("path", args.output + "/data")
query = (writer.outputMode("append")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
