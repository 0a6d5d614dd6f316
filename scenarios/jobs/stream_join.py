"""Stream-stream inner join of two Kafka topics on the record value, with watermarks and a
time bound (stateful: one join operator with four state stores). Output: JSON files."""
from pyspark.sql import functions as F

from common import kafka_stream, parse_args, run_until_stopped, session

args = parse_args(__doc__, topics=("--left-topic", "--right-topic"))
spark = session("rehearse-stream-join")
left = (kafka_stream(spark, args, args.left_topic)
        .select(F.col("value").cast("string").alias("lkey"), F.col("timestamp").alias("lts"))
        .withWatermark("lts", "30 seconds"))
right = (kafka_stream(spark, args, args.right_topic)
         .select(F.col("value").cast("string").alias("rkey"), F.col("timestamp").alias("rts"))
         .withWatermark("rts", "30 seconds"))
joined = left.join(right, F.expr("lkey = rkey AND rts BETWEEN lts - INTERVAL 20 SECONDS AND lts + INTERVAL 20 SECONDS"))
query = (joined.writeStream.outputMode("append").format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
