"""Tags per record over a Kafka topic (stateless; JSON files): a real behaviour change between
Spark versions for output parity (issue 13). `size()` of a NULL array is -1 on Spark 3.x
(spark.sql.legacy.sizeOfNull = true with ANSI off) and NULL on Spark 4.0, where ANSI mode is on
by default (SQLConf.legacySizeOfNull = sizeOfNull && !ansiEnabled). Records without "tags"
therefore write "tags":-1 on 3.5 and no "tags" key on 4.0 (the JSON writer leaves NULLs out):
the same query, unchanged, writes other rows after an upgrade. Self-contained (no common.py),
so adding it changes no other job's generation key."""
import argparse

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--checkpoint", required=True)
p.add_argument("--bootstrap-servers", required=True)
p.add_argument("--output", required=True)
p.add_argument("--topic", required=True)
# Where a query on a NEW checkpoint starts (`rehearse run --fresh` passes the last committed
# batch's offsets as {starting_offsets}); a restart on the checkpoint ignores it (Spark reads
# startingOffsets only when sources/0/0 does not exist yet).
p.add_argument("--starting-offsets", default="earliest")
args = p.parse_args()

spark = SparkSession.builder.appName("rehearse-size-of-null").getOrCreate()
raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", args.bootstrap_servers)
       .option("subscribe", args.topic)
       .option("startingOffsets", args.starting_offsets)
       .load())
value = F.col("value").cast("string")
rows = raw.select(
    F.get_json_object(value, "$.user").alias("user"),
    F.get_json_object(value, "$.n").cast("int").alias("n"),
    F.size(F.split(F.get_json_object(value, "$.tags"), ",")).alias("tags"),
)
query = (rows.writeStream.format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime="1 seconds")
         .start())
query.awaitTermination()
