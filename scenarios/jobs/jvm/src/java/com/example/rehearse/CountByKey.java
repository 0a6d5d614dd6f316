package com.example.rehearse;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.get_json_object;

import java.util.HashMap;
import java.util.Map;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A stateful Structured Streaming job in Java, like the PySpark examples beside it: reads a
 * Kafka topic, counts records by key (the "user" field of a JSON value, else the value) in
 * update mode, and prints each batch's changed counts. rehearse restarts it with
 * --checkpoint, --bootstrap-servers, --output and --topic filled in.
 *
 * <p>Build it once per Spark line (build.sh): Spark 4 is Scala 2.13 only and moved the Dataset
 * and streaming classes, so a jar compiled against 3.5 fails on 4.x with a linkage error.
 */
public final class CountByKey {
    private CountByKey() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i], argv[i + 1]);
        }
        for (String required : new String[] {"--checkpoint", "--bootstrap-servers", "--topic"}) {
            if (!args.containsKey(required)) {
                throw new IllegalArgumentException("missing " + required + " VALUE");
            }
        }
        SparkSession spark = SparkSession.builder().appName("rehearse-count-by-key").getOrCreate();
        Dataset<Row> raw = spark.readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", args.get("--bootstrap-servers"))
                .option("subscribe", args.get("--topic"))
                .option("startingOffsets", "earliest")
                .load();
        Column value = col("value").cast("string");
        Dataset<Row> counts = raw
                .select(coalesce(get_json_object(value, "$.user"), value).alias("user"))
                .groupBy("user")
                .count();
        StreamingQuery query = counts.writeStream()
                .outputMode("update")
                .format("console")
                .option("checkpointLocation", args.get("--checkpoint"))
                .trigger(Trigger.ProcessingTime(args.getOrDefault("--trigger", "1 second")))
                .start();
        // Runs until the harness stops the container; a failure surfaces as the
        // StreamingQueryException rehearse classifies.
        query.awaitTermination();
    }
}
