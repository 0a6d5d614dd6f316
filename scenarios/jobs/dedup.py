"""dropDuplicates on the record value within a watermark over a Kafka topic (stateful: one
dedup operator). Output: JSON files in append mode."""
from pyspark.sql import functions as F

from common import kafka_stream, parse_args, run_until_stopped, session

args = parse_args(__doc__)
spark = session("rehearse-dedup")
raw = kafka_stream(spark, args, args.topic)
columns = [F.col("timestamp").alias("ts"), F.col("value").cast("string").alias("value"),
           F.col("partition")]
if args.dedup_on_topic:
    # Another nullable string column in the first key's place: a state key schema whose names
    # differ and whose types match, which Spark accepts ("Detected schema change which is
    # compatible. Allowing to put rows.") although the dedup now means something else.
    columns.append(F.col("topic"))
events = raw.select(*columns)
keys = ["topic" if args.dedup_on_topic else "value", "ts"] + (["partition"] if args.extra_key else [])
if not args.no_watermark:
    events = events.withWatermark("ts", "30 seconds")
deduped = events.dropDuplicates(keys)
query = (deduped.writeStream.outputMode("append").format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
