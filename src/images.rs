//! Local container images: `rehearse/spark:<version>` and `rehearse/kafka:<version>`, built from
//! package registries (offline recipe under `docker/`) or from the official images.
