"""Stream-stream LEFT OUTER join of two Kafka topics (stateful: one join operator with four
state stores). Left rows are ads shown, right rows are clicks on them; only even-offset clicks
exist, so half the left rows never match and wait in state until the watermark passes their
time bound, then come out with null click columns.

Records are JSON with an "ad" field (or anything: the value is used as the ad when it is not
JSON); event time is the Kafka record timestamp. Output: JSON files in append mode."""
from pyspark.sql import functions as F

from common import kafka_stream, parse_args, run_until_stopped, session

args = parse_args(__doc__, topics=("--left-topic", "--right-topic"))
spark = session("rehearse-outer-join")


def ads(topic, key, ts):
    value = F.col("value").cast("string")
    return kafka_stream(spark, args, topic).select(
        F.coalesce(F.get_json_object(value, "$.ad"), value).alias(key),
        F.col("timestamp").alias(ts),
        F.col("offset"))


shown = ads(args.left_topic, "ad", "shown_ts").drop("offset").withWatermark("shown_ts", "30 seconds")
clicks = (ads(args.right_topic, "click_ad", "click_ts")
          .where(F.col("offset") % 2 == 0).drop("offset")
          .withWatermark("click_ts", "30 seconds"))
joined = shown.join(
    clicks,
    F.expr("ad = click_ad AND click_ts >= shown_ts AND click_ts <= shown_ts + INTERVAL 20 SECONDS"),
    "leftOuter")
query = (joined.writeStream.outputMode("append").format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
