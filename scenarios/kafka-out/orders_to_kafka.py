"""Kafka to Kafka, as production has it: keyed records with headers, producer timestamps and a
Confluent-framed binary value (magic byte 0, 4-byte schema id, then the payload; JSON here, Avro
or Protobuf in production) are decoded, deduplicated per key within an event-time watermark on
the Kafka timestamp, and written to an output topic with the key, the decoded fields, the header
and the schema id the job saw, so the output itself shows what the job read.

rehearse fills {checkpoint}, {bootstrap_servers}, {topic.orders} and {topic.orders-enriched}.
--kafka-option KEY=VALUE (repeatable) passes a Kafka client setting to the source and the sink
(`kafka.` prefixed), e.g. security.protocol=SASL_SSL when the job runs against production."""
import argparse

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, expr, from_json, struct, to_json

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--checkpoint", required=True)
p.add_argument("--bootstrap-servers", required=True)
p.add_argument("--topic", required=True, help="input topic")
p.add_argument("--output-topic", required=True)
p.add_argument("--kafka-option", action="append", default=[], metavar="KEY=VALUE")
args = p.parse_args()
kafka_options = {"kafka." + k: v for k, v in (o.split("=", 1) for o in args.kafka_option)}

spark = SparkSession.builder.appName("orders-to-kafka").getOrCreate()

records = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", args.bootstrap_servers)
           .option("subscribe", args.topic)
           .option("startingOffsets", "earliest")
           .option("includeHeaders", "true")
           .options(**kafka_options)
           .load())

decoded = records.select(
    col("key").cast("string").alias("key"),
    col("timestamp"),
    col("headers"),
    # The Confluent wire format: byte 0 is the magic byte, bytes 1-4 the schema id.
    expr("conv(hex(substring(value, 2, 4)), 16, 10)").alias("schema_id"),
    from_json(expr("cast(substring(value, 6, length(value) - 5) as string)"),
              "order STRING, amount INT").alias("order"),
    expr("cast(filter(headers, h -> h.key = 'trace')[0].value as string)").alias("trace"),
)

deduped = (decoded
           .withWatermark("timestamp", "1 hour")
           .dropDuplicates(["key", "timestamp"]))

out = deduped.select(
    col("key"),
    to_json(struct(
        col("key"), col("trace"), col("schema_id"),
        col("order.order").alias("order"), col("order.amount").alias("amount"),
        col("timestamp").cast("long").alias("event_time_s"),
    )).alias("value"),
    col("headers"),
)

query = (out.writeStream.format("kafka")
         .option("kafka.bootstrap.servers", args.bootstrap_servers)
         .option("topic", args.output_topic)
         .options(**kafka_options)
         .option("checkpointLocation", args.checkpoint)
         .outputMode("append")
         .trigger(processingTime="1 second")
         .start())
query.awaitTermination()
