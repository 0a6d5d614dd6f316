"""Windowed count with a watermark over a Kafka topic (stateful: one aggregation operator).

Event time is the Kafka record timestamp; records are JSON with a "user" field (or anything:
the value is used as the user when it is not JSON). Output: JSON files in append mode."""
from pyspark.sql import functions as F

from common import kafka_stream, parse_args, run_until_stopped, session

args = parse_args(__doc__)
spark = session("rehearse-windowed-count")
raw = kafka_stream(spark, args, args.topic)
value = F.col("value").cast("string")
events = raw.select(
    F.col("timestamp").alias("ts"),
    F.coalesce(F.get_json_object(value, "$.user"), value).alias("user"),
    F.col("partition"),
)
keys = [F.window("ts", "10 seconds"), F.col("user")]
if args.extra_key:
    keys.append(F.col("partition"))
counts = events.withWatermark("ts", "30 seconds").groupBy(*keys).count()
query = (counts.select(F.col("window.start").alias("window_start"), "user", "count")
         .writeStream.outputMode("append").format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
