"""dropDuplicates on the record value within a watermark over a Kafka topic (stateful: one
dedup operator). Output: JSON files in append mode."""
from pyspark.sql import functions as F

from common import kafka_stream, parse_args, run_until_stopped, session

args = parse_args(__doc__)
spark = session("rehearse-dedup")
raw = kafka_stream(spark, args, args.topic)
events = raw.select(F.col("timestamp").alias("ts"), F.col("value").cast("string").alias("value"),
                    F.col("partition"))
keys = ["value", "ts"] + (["partition"] if args.extra_key else [])
deduped = events.withWatermark("ts", "30 seconds").dropDuplicates(keys)
query = (deduped.writeStream.outputMode("append").format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
