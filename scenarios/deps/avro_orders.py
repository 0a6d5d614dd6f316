"""Confluent-framed Avro from Kafka, decoded with `from_avro` of spark-avro (resolved by rehearse
from `[job] packages`), tagged on the executors with a function of `toolz` (installed from
`[job] requirements`), and written to an output topic — so the output itself shows what the job
decoded and that its Python workers imported the package.

The Confluent wire format: byte 0 is the magic byte 0, bytes 1-4 the schema id (big endian),
then the Avro binary encoding of the value.

rehearse fills {checkpoint}, {bootstrap_servers}, {topic.orders-avro} and {topic.orders-decoded}."""
import argparse

import toolz  # from requirements.txt: fails here, on the driver, if it is not installed
from order_schema import ORDER, SCHEMA_ID  # from py_files
from pyspark.sql import SparkSession
from pyspark.sql.avro.functions import from_avro
from pyspark.sql.functions import col, expr, struct, to_json, udf

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--checkpoint", required=True)
p.add_argument("--bootstrap-servers", required=True)
p.add_argument("--topic", required=True)
p.add_argument("--output-topic", required=True)
args = p.parse_args()

spark = SparkSession.builder.appName("avro-orders").getOrCreate()


@udf("string")
def toolz_tag(order):
    # Runs in the executors' Python workers: toolz must be on their path too.
    import toolz as t
    return "toolz-%s:%s" % (t.__version__, t.first([order]))


records = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", args.bootstrap_servers)
           .option("subscribe", args.topic)
           .option("startingOffsets", "earliest")
           .load())

decoded = records.select(
    col("key").cast("string").alias("key"),
    expr("conv(hex(substring(value, 2, 4)), 16, 10)").cast("int").alias("schema_id"),
    from_avro(expr("substring(value, 6, length(value) - 5)"), ORDER).alias("o"),
).where(col("schema_id") == SCHEMA_ID)

out = decoded.select(
    col("key"),
    to_json(struct(
        col("o.order").alias("order"),
        col("o.amount").alias("amount"),
        toolz_tag(col("o.order")).alias("tag"),
        col("schema_id"),
    )).alias("value"),
)

query = (out.writeStream.format("kafka")
         .option("kafka.bootstrap.servers", args.bootstrap_servers)
         .option("topic", args.output_topic)
         .option("checkpointLocation", args.checkpoint)
         .outputMode("append")
         .trigger(processingTime="1 second")
         .start())
query.awaitTermination()
