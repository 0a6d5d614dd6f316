"""Per-user sessions with applyInPandasWithState (stateful: one flatMapGroupsWithState-style
operator; Spark 3.4 or later, with pandas and pyarrow in the image). Each batch emits every
active user's running count; a session closes (one final row, state removed) when the
watermark passes 60 seconds after the user's last event (event-time timeout).

Records are JSON with a "user" field (or anything: the value is used as the user when it is not
JSON); event time is the Kafka record timestamp. Output: JSON files in append mode."""
import pandas as pd
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupStateTimeout

from common import kafka_stream, parse_args, run_until_stopped, session

SESSION_GAP_MS = 60_000

args = parse_args(__doc__)
spark = session("rehearse-stateful")
raw = kafka_stream(spark, args, args.topic)
value = F.col("value").cast("string")
events = raw.select(
    F.col("timestamp").alias("ts"),
    (F.col("timestamp").cast("double") * 1000).cast("long").alias("ts_ms"),
    F.coalesce(F.get_json_object(value, "$.user"), value).alias("user"),
    F.col("partition"),
)
keys = ["user"] + (["partition"] if args.extra_key else [])

OUTPUT = "user string, events long, session_start_ms long, session_end_ms long, closed boolean"
STATE = "events long, session_start_ms long, session_end_ms long"


def sessions(key, batches, state):
    if state.hasTimedOut:
        events_, start, end = state.get
        state.remove()
        yield pd.DataFrame({"user": [key[0]], "events": [events_], "session_start_ms": [start],
                            "session_end_ms": [end], "closed": [True]})
        return
    events_, start, end = state.get if state.exists else (0, None, None)
    for pdf in batches:
        events_ += len(pdf)
        lo, hi = int(pdf["ts_ms"].min()), int(pdf["ts_ms"].max())
        start = lo if start is None else min(start, lo)
        end = hi if end is None else max(end, hi)
    state.update((events_, start, end))
    # the timeout may not lie before the current watermark
    state.setTimeoutTimestamp(max(end + SESSION_GAP_MS, state.getCurrentWatermarkMs() + 1))
    yield pd.DataFrame({"user": [key[0]], "events": [events_], "session_start_ms": [start],
                        "session_end_ms": [end], "closed": [False]})


out = (events.withWatermark("ts", "30 seconds")
       .groupBy(*keys)
       .applyInPandasWithState(sessions, OUTPUT, STATE, "append", GroupStateTimeout.EventTimeTimeout))
query = (out.writeStream.outputMode("append").format("json")
         .option("path", args.output + "/data")
         .option("checkpointLocation", args.checkpoint)
         .trigger(processingTime=f"{args.trigger_seconds} seconds")
         .start())
run_until_stopped(query)
