package com.example.rehearse

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{coalesce, col, get_json_object}
import org.apache.spark.sql.streaming.Trigger

/** The Scala twin of CountByKey.java: reads a Kafka topic, counts records by key (the "user"
  * field of a JSON value, else the value) in update mode, prints each batch's changed counts.
  * Takes --checkpoint, --bootstrap-servers, --topic (and --output, unused).
  *
  * Build it once per Spark line (build.sh): Scala 2.12 for Spark 3.5, 2.13 for Spark 4. A
  * class compiled by Scala 2.12 fails on Spark 4's Scala 2.13 library at link time.
  */
object CountByKeyScala {
  def main(argv: Array[String]): Unit = {
    val args = argv.grouped(2).collect { case Array(k, v) => k -> v }.toMap
    for (required <- Seq("--checkpoint", "--bootstrap-servers", "--topic"))
      require(args.contains(required), s"missing $required VALUE")
    val spark = SparkSession.builder().appName("rehearse-count-by-key-scala").getOrCreate()
    val raw = spark.readStream
      .format("kafka")
      .option("kafka.bootstrap.servers", args("--bootstrap-servers"))
      .option("subscribe", args("--topic"))
      .option("startingOffsets", "earliest")
      .load()
    val value = col("value").cast("string")
    val counts = raw
      .select(coalesce(get_json_object(value, "$.user"), value).alias("user"))
      .groupBy("user")
      .count()
    val query = counts.writeStream
      .outputMode("update")
      .format("console")
      .option("checkpointLocation", args("--checkpoint"))
      .trigger(Trigger.ProcessingTime(args.getOrElse("--trigger", "1 second")))
      .start()
    query.awaitTermination()
  }
}
