//! Where Kafka's default partitioner puts a keyed record: `toPositive(murmur2(key)) % partitions`
//! (`BuiltInPartitioner.partitionForKey`, Kafka 3.3+; `DefaultPartitioner.partition` before it),
//! with murmur2 exactly as `org.apache.kafka.common.utils.Utils.murmur2` computes it. librdkafka's
//! own default (`consistent_random`, CRC32) puts keys elsewhere, so seeding computes the
//! partition here and produces to it explicitly: a record lands where a Java producer in
//! production would have written it.

/// Kafka's `Utils.murmur2` (clients/src/main/java/org/apache/kafka/common/utils/Utils.java):
/// 32-bit MurmurHash2 with seed `0x9747b28c`, little-endian 4-byte blocks, Java `int` wrapping.
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let length = data.len();
    let mut h: u32 = SEED ^ (length as u32);
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: the sign bit cleared (not `abs`, which overflows on `MIN`).
pub fn to_positive(n: i32) -> u32 {
    (n & 0x7fff_ffff) as u32
}

/// The partition Kafka's default partitioner gives `key` among `partitions` (at least 1).
pub fn partition_for_key(key: &[u8], partitions: u32) -> u32 {
    to_positive(murmur2(key)) % partitions.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's own expectations, `UtilsTest.testMurmur2`
    /// (clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java).
    #[test]
    fn murmur2_matches_kafkas_utils_test() {
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (key, want) in cases {
            assert_eq!(murmur2(key), want, "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn partitions_are_the_positive_hash_modulo_the_count() {
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(to_positive(-1), 0x7fff_ffff);
        // -973932308 & 0x7fffffff = 1173551340; % 3 = 0, % 7 = 1173551340 % 7.
        assert_eq!(partition_for_key(b"21", 3), 1_173_551_340 % 3);
        assert_eq!(partition_for_key(b"21", 7), 1_173_551_340 % 7);
        assert_eq!(partition_for_key(b"", 1), 0);
    }
}
