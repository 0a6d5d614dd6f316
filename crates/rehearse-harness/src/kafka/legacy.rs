//! Reading partitions with librdkafka's legacy ("simple") consumer, the one place rehearse calls
//! librdkafka through `rdkafka-sys` directly: `rd_kafka_topic_new`, then per partition
//! `rd_kafka_consume_start_queue` at an explicit offset, `rd_kafka_consume_batch_queue` on one
//! queue for the topic, and `rd_kafka_consume_stop` when done (librdkafka 2.12,
//! `rdkafka.h`, "Simple Consumer API (legacy)").
//!
//! Why: rdkafka's consumers read through `assign`, which librdkafka refuses without a
//! `group.id`; a client with a `group.id` makes a consumer-group handle at creation and looks up
//! the group's coordinator (FindCoordinator), which on a cluster without `__consumer_offsets`
//! creates that topic and on a cluster with ACLs needs Describe on the group. The legacy
//! consumer needs no group: started at an explicit offset it never uses the offset store
//! (`rd_kafka_offset_store_init` runs for `RD_KAFKA_OFFSET_STORED` only, rdkafka_partition.c)
//! and sends only Metadata, ListOffsets and Fetch requests.
//!
//! The client handle is the caller's rdkafka [`Client`] (made without `group.id`); this module
//! borrows it for as long as its topic handle and queue live, so the handle outlives them.
//! Everything it hands out is owned ([`Fetched`]); every message is destroyed before a batch
//! returns.

use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::time::Duration;

use rdkafka::client::{Client, ClientContext};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka_sys as rdsys;
use rdkafka_sys::bindings::{rd_kafka_message_t, rd_kafka_queue_t, rd_kafka_topic_t};

use super::mirrored::Mirrored;

/// What one partition's read gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Fetched {
    /// A record of `partition`.
    Record(i32, Mirrored),
    /// `partition` has no record past the last one given (`enable.partition.eof`).
    End(i32),
    /// Reading `partition` failed: the client's code and text.
    Failed(i32, RDKafkaErrorCode, String),
}

/// Partitions of one topic being read from explicit offsets onto one queue; stopped and freed
/// when dropped.
pub(super) struct TopicReads<'c> {
    rkt: *mut rd_kafka_topic_t,
    queue: *mut rd_kafka_queue_t,
    started: Vec<i32>,
    /// The client handle `rkt` and `queue` belong to must outlive them.
    _client: PhantomData<&'c ()>,
}

impl<'c> TopicReads<'c> {
    /// Starts reading `topic` at each `(partition, offset)` of `from` (offsets ≥ 0).
    pub(super) fn start<C: ClientContext>(
        client: &'c Client<C>,
        topic: &str,
        from: &[(i32, i64)],
    ) -> Result<TopicReads<'c>, String> {
        let name = CString::new(topic).map_err(|_| format!("topic name {topic:?} holds a NUL"))?;
        let rk = client.native_ptr();
        // SAFETY: `rk` is the live client handle `client` owns (borrowed for 'c); `name` is a
        // NUL-terminated string that librdkafka copies; a null `conf` takes the default topic
        // configuration. The returned handle is destroyed in Drop, before 'c ends.
        let rkt = unsafe { rdsys::rd_kafka_topic_new(rk, name.as_ptr(), std::ptr::null_mut()) };
        if rkt.is_null() {
            return Err(format!("cannot open topic {topic}: {}", last_error()));
        }
        // SAFETY: as above; the queue is destroyed in Drop after every partition is stopped.
        let queue = unsafe { rdsys::rd_kafka_queue_new(rk) };
        let mut reads = TopicReads {
            rkt,
            queue,
            started: Vec::new(),
            _client: PhantomData,
        };
        if queue.is_null() {
            return Err(format!("cannot make a queue for {topic}"));
        }
        for &(partition, offset) in from {
            // SAFETY: `rkt` and `queue` are live (owned by `reads`); an explicit offset ≥ 0
            // never starts the offset store (no group, no committed-offset lookup).
            let rc = unsafe {
                rdsys::rd_kafka_consume_start_queue(
                    reads.rkt,
                    partition,
                    offset.max(0),
                    reads.queue,
                )
            };
            if rc == -1 {
                return Err(format!(
                    "cannot start reading {topic}/{partition} at offset {offset}: {}",
                    last_error()
                ));
            }
            reads.started.push(partition);
        }
        Ok(reads)
    }

    /// Up to `max` results, waiting at most `timeout` for them (fewer or none when the time is
    /// up). Every message is copied out and destroyed here.
    pub(super) fn batch(&mut self, timeout: Duration, max: usize) -> Vec<Fetched> {
        let mut buf: Vec<*mut rd_kafka_message_t> = vec![std::ptr::null_mut(); max.max(1)];
        let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: `queue` is live; `buf` has room for `buf.len()` pointers, which librdkafka
        // fills with up to that many messages it hands over to us.
        let n = unsafe {
            rdsys::rd_kafka_consume_batch_queue(self.queue, ms, buf.as_mut_ptr(), buf.len())
        };
        let n = usize::try_from(n).unwrap_or(0).min(buf.len());
        let mut out = Vec::with_capacity(n);
        for &msg in &buf[..n] {
            if msg.is_null() {
                continue;
            }
            // SAFETY: librdkafka handed `msg` over (non-null, valid until destroyed); it is read
            // by `fetched` and destroyed right after, once.
            unsafe {
                out.push(fetched(msg));
                rdsys::rd_kafka_message_destroy(msg);
            }
        }
        out
    }
}

impl Drop for TopicReads<'_> {
    fn drop(&mut self) {
        for &partition in &self.started {
            // SAFETY: `rkt` is live and `partition` was started on it; stop purges its queue.
            unsafe { rdsys::rd_kafka_consume_stop(self.rkt, partition) };
        }
        // SAFETY: every partition forwarding to `queue` is stopped; `queue` and `rkt` were
        // created by this value, are destroyed once, and the client handle is still alive
        // (borrowed for 'c).
        unsafe {
            if !self.queue.is_null() {
                rdsys::rd_kafka_queue_destroy(self.queue);
            }
            rdsys::rd_kafka_topic_destroy(self.rkt);
        }
    }
}

/// The text of the calling thread's last librdkafka error (set by the legacy calls that
/// return −1 or null).
fn last_error() -> String {
    // SAFETY: both return pointers to static, NUL-terminated strings.
    unsafe {
        let code = rdsys::rd_kafka_last_error();
        CStr::from_ptr(rdsys::rd_kafka_err2str(code))
            .to_string_lossy()
            .into_owned()
    }
}

/// Bytes at `ptr`, `len` long, copied (`None` for a null pointer).
///
/// # Safety
/// `ptr` is null or points at `len` readable bytes.
unsafe fn bytes(ptr: *const c_void, len: usize) -> Option<Vec<u8>> {
    (!ptr.is_null()).then(|| std::slice::from_raw_parts(ptr.cast::<u8>(), len).to_vec())
}

/// One message, copied out.
///
/// # Safety
/// `msg` is a live message librdkafka handed over, not yet destroyed.
unsafe fn fetched(msg: *mut rd_kafka_message_t) -> Fetched {
    let m = &*msg;
    let partition = m.partition;
    let code = RDKafkaErrorCode::from(m.err);
    if m.err == rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__PARTITION_EOF {
        return Fetched::End(partition);
    }
    if m.err != rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
        let text = rdsys::rd_kafka_message_errstr(msg);
        let text = if text.is_null() {
            code.to_string()
        } else {
            CStr::from_ptr(text).to_string_lossy().into_owned()
        };
        return Fetched::Failed(partition, code, text);
    }
    let mut headers = Vec::new();
    let mut hdrs: *mut rdsys::bindings::rd_kafka_headers_t = std::ptr::null_mut();
    if rdsys::rd_kafka_message_headers(msg, &mut hdrs)
        == rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
        && !hdrs.is_null()
    {
        let mut i = 0;
        loop {
            let (mut name, mut value, mut size) = (std::ptr::null(), std::ptr::null(), 0usize);
            if rdsys::rd_kafka_header_get_all(hdrs, i, &mut name, &mut value, &mut size)
                != rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                break;
            }
            let name = CStr::from_ptr(name).to_string_lossy().into_owned();
            headers.push((name, bytes(value, size)));
            i += 1;
        }
    }
    let mut kind = rdsys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    let ts = rdsys::rd_kafka_message_timestamp(msg, &mut kind);
    Fetched::Record(
        partition,
        Mirrored {
            offset: m.offset,
            key: bytes(m.key, m.key_len),
            value: bytes(m.payload, m.len),
            headers,
            timestamp_ms: (kind
                != rdsys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
                && ts >= 0)
                .then_some(ts),
        },
    )
}
