"""The Avro schema of the `orders-avro` topic's values (Confluent Schema Registry id 1), shipped
to the job with `py_files`."""
import json

SCHEMA_ID = 1
ORDER = json.dumps({
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "order", "type": "string"},
        {"name": "amount", "type": "long"},
    ],
})
