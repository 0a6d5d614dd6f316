//! The brokers of the mirror tests: the stand-in production broker (SASL_SSL, SCRAM users,
//! an authorizer, certificates made by the test) and a plain broker standing in for a trial's
//! sandbox, each removed when dropped; the records the test produces there and what it reads
//! back to check production is unchanged.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::TopicPartitionList;

pub(super) const IMAGE: &str = "rehearse/kafka:3.9.1";
pub(super) const PASSWORD: &str = "alice-Secret-42";
/// The password of `reader`, the user with Read and Describe on granted topics only.
pub(super) const READER_PASSWORD: &str = "reader-Secret-7";

/// Event time between two production records: 30 minutes, so the fresh records after the
/// checkpoint carry the job's watermark (`withWatermark("timestamp", "1 hour")`) past old
/// rows and its dedup state is evicted — the exercised-paths gate needs that path to run before
/// `resumed` (at 1 s a record, 20 fresh records moved event time 20 s: resume-unproven).
pub(super) const STEP_MS: i64 = 1_800_000;

/// A free TCP port on 127.0.0.1.
pub(super) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(super) fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes a CA, a server certificate for 127.0.0.1/localhost it signs (PKCS12), and a
/// truststore; returns the CA's PEM path.
pub(super) fn certificates(dir: &Path) -> PathBuf {
    let sh = format!(
        r#"set -e
cd '{d}'
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout ca.key -out ca.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > san.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.crt 2>/dev/null
openssl pkcs12 -export -in server.crt -inkey server.key -certfile ca.crt -passout pass:changeit -out server.p12
keytool -importcert -noprompt -alias ca -file ca.crt -keystore truststore.p12 -storetype PKCS12 -storepass changeit >/dev/null 2>&1
chmod 644 *
"#,
        d = dir.display()
    );
    run(Command::new("sh").arg("-c").arg(sh));
    dir.join("ca.crt")
}

/// Per (topic, partition) its log start and end offsets, and the consumer groups.
pub(super) type ProductionState = (Vec<(String, i32, i64, i64)>, Vec<String>);

/// The stand-in production broker: removed when dropped.
pub(super) struct Production {
    pub(super) name: String,
    port: u16,
    pub(super) ca: PathBuf,
    pub(super) dir: tempfile::TempDir,
}

impl Drop for Production {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(["rm", "-f", &self.name])
            .output();
    }
}

impl Production {
    pub(super) fn start() -> Production {
        let dir = tempfile::tempdir().unwrap();
        let ca = certificates(dir.path());
        let (port, controller) = (free_port(), free_port());
        let name = format!("rehearse-test-mirror-prod-{}-{port}", std::process::id());
        let script = format!(
            r#"set -e
cat > /tmp/server.properties <<'EOF'
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{controller}
listeners=SASL_SSL://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}
advertised.listeners=SASL_SSL://127.0.0.1:{port}
listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="admin-secret";
ssl.keystore.type=PKCS12
ssl.keystore.location=/certs/server.p12
ssl.keystore.password=changeit
ssl.truststore.type=PKCS12
ssl.truststore.location=/certs/truststore.p12
ssl.truststore.password=changeit
log.dirs=/tmp/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.ms=-1
log.retention.bytes=-1
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin;User:alice;User:ANONYMOUS
EOF
cat > /tmp/admin.properties <<'EOF'
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="admin-secret";
ssl.truststore.type=PKCS12
ssl.truststore.location=/certs/truststore.p12
ssl.truststore.password=changeit
EOF
L=-Dlog4j.configuration=file:/opt/kafka/config/rehearse-log4j.properties
java $L -cp '/opt/kafka/libs/*' kafka.tools.StorageTool format -t cmVoZWFyc2UtcHJvZC0xMjM0 -c /tmp/server.properties \
  --add-scram 'SCRAM-SHA-512=[name=admin,password=admin-secret]' --add-scram 'SCRAM-SHA-512=[name=alice,password={PASSWORD}]' \
  --add-scram 'SCRAM-SHA-512=[name=reader,password={READER_PASSWORD}]' >/dev/null
exec java -Xmx384m $L -cp '/opt/kafka/libs/*' kafka.Kafka /tmp/server.properties
"#
        );
        run(Command::new("docker").args([
            "run",
            "-d",
            "--name",
            &name,
            "--label",
            "rehearse-test=mirror",
            "--network",
            "host",
            "-v",
            &format!("{}:/certs:ro", dir.path().display()),
            "--entrypoint",
            "sh",
            IMAGE,
            "-c",
            &script,
        ]));
        let p = Production {
            name,
            port,
            ca,
            dir,
        };
        p.wait_ready();
        p
    }

    pub(super) fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The owner's client (admin): creates topics and produces the test's records.
    pub(super) fn admin_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", self.bootstrap())
            .set("security.protocol", "SASL_SSL")
            .set("sasl.mechanism", "SCRAM-SHA-512")
            .set("sasl.username", "admin")
            .set("sasl.password", "admin-secret")
            .set("ssl.ca.location", self.ca.display().to_string());
        c
    }

    pub(super) fn wait_ready(&self) {
        let consumer: BaseConsumer = self.admin_config().create().unwrap();
        let start = Instant::now();
        loop {
            if consumer
                .fetch_metadata(None, Duration::from_secs(3))
                .is_ok_and(|m| !m.brokers().is_empty())
            {
                return;
            }
            if start.elapsed() > Duration::from_secs(90) {
                let logs = Command::new("docker")
                    .args(["logs", &self.name])
                    .output()
                    .unwrap();
                panic!(
                    "the production broker did not answer in 90 s:\n{}{}",
                    String::from_utf8_lossy(&logs.stdout),
                    String::from_utf8_lossy(&logs.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    pub(super) fn create_topic(&self, topic: &str, partitions: i32) {
        let admin: AdminClient<DefaultClientContext> = self.admin_config().create().unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let r = rt
            .block_on(admin.create_topics(
                &[NewTopic::new(topic, partitions, TopicReplication::Fixed(1))],
                &AdminOptions::new().operation_timeout(Some(Duration::from_secs(30))),
            ))
            .unwrap();
        assert!(r.iter().all(Result::is_ok), "{r:?}");
    }

    /// `n` records per partition: key `order-P-I`, a `trace` header, a Confluent-framed value
    /// (magic 0, schema id 1, then JSON), timestamps 2025-12-01T00:00:00Z + I × [`STEP_MS`].
    pub(super) fn produce(&self, topic: &str, partitions: i32, from: usize, n: usize) {
        let p: BaseProducer = self.admin_config().create().unwrap();
        for part in 0..partitions {
            for i in from..from + n {
                let key = format!("order-{part}-{i:04}");
                let mut value = vec![0u8, 0, 0, 0, 1];
                value.extend(format!(r#"{{"order":"{key}","amount":{i}}}"#).bytes());
                let trace = format!("t-{part}-{i}");
                let r = BaseRecord::to(topic)
                    .partition(part)
                    .key(key.as_bytes())
                    .payload(&value)
                    .timestamp(1_764_547_200_000 + i as i64 * STEP_MS)
                    .headers(OwnedHeaders::new().insert(Header {
                        key: "trace",
                        value: Some(trace.as_bytes()),
                    }));
                p.send(r).map_err(|(e, _)| e).unwrap();
                p.poll(Duration::ZERO);
            }
        }
        p.flush(Duration::from_secs(30)).unwrap();
    }

    /// Lets `reader` Read and Describe `topic` — the only ACLs it gets (no group, no cluster).
    pub(super) fn grant_read(&self, topic: &str) {
        self.grant(topic, &["Read", "Describe"]);
    }

    /// Gives `reader` the `operations` on `topic`.
    pub(super) fn grant(&self, topic: &str, operations: &[&str]) {
        let ops: Vec<&str> = operations.iter().flat_map(|o| ["--operation", o]).collect();
        run(Command::new("docker")
            .args([
                "exec",
                &self.name,
                "java",
                "-Dlog4j.configuration=file:/opt/kafka/config/rehearse-log4j.properties",
                "-cp",
                "/opt/kafka/libs/*",
                "kafka.admin.AclCommand",
                "--bootstrap-server",
                &self.bootstrap(),
                "--command-config",
                "/tmp/admin.properties",
                "--add",
                "--allow-principal",
                "User:reader",
                "--topic",
                topic,
            ])
            .args(ops));
    }

    /// Every topic's name, internal ones too (`__consumer_offsets` once any group committed or
    /// asked for its coordinator).
    pub(super) fn topics(&self) -> Vec<String> {
        let c: BaseConsumer = self.admin_config().create().unwrap();
        let md = c.fetch_metadata(None, Duration::from_secs(10)).unwrap();
        let mut names: Vec<String> = md.topics().iter().map(|t| t.name().to_string()).collect();
        names.sort();
        names
    }

    /// Deletes the records of `topic`/`partition` below `offset` (what retention does).
    pub(super) fn delete_below(&self, topic: &str, partition: i32, offset: i64) {
        let admin: AdminClient<DefaultClientContext> = self.admin_config().create().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(topic, partition, rdkafka::Offset::Offset(offset))
            .unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(admin.delete_records(&tpl, &AdminOptions::new()))
            .unwrap();
    }

    /// (topic, partition) → (log start, end) of every non-internal topic, and the consumer
    /// groups: what must not change.
    pub(super) fn state(&self) -> ProductionState {
        let c: BaseConsumer = self.admin_config().create().unwrap();
        let md = c.fetch_metadata(None, Duration::from_secs(10)).unwrap();
        let mut offsets = Vec::new();
        for t in md.topics().iter().filter(|t| !t.name().starts_with("__")) {
            for p in t.partitions() {
                let (lo, hi) = c
                    .fetch_watermarks(t.name(), p.id(), Duration::from_secs(10))
                    .unwrap();
                offsets.push((t.name().to_string(), p.id(), lo, hi));
            }
        }
        offsets.sort();
        let groups = c
            .fetch_group_list(None, Duration::from_secs(10))
            .unwrap()
            .groups()
            .iter()
            .map(|g| g.name().to_string())
            .collect();
        (offsets, groups)
    }

    /// A client properties file as a Java client would have it (JAAS line, PEM truststore),
    /// for `alice` (a super user).
    pub(super) fn properties(&self, password: &str) -> PathBuf {
        self.properties_of("alice", password)
    }

    /// [`Production::properties`] for `user`.
    pub(super) fn properties_of(&self, user: &str, password: &str) -> PathBuf {
        let path = self
            .dir
            .path()
            .join(format!("client-{user}-{}.properties", password.len()));
        std::fs::write(
            &path,
            format!(
                "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"{user}\" password=\"{password}\";\nssl.truststore.type=PEM\nssl.truststore.location={}\n",
                self.ca.display()
            ),
        )
        .unwrap();
        path
    }
}

/// A plain broker of the test's own standing in for a trial's sandbox (the image's own start
/// script, PLAINTEXT on free host ports): removed when dropped.
pub(super) struct Sandbox {
    name: String,
    port: u16,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(["rm", "-f", &self.name])
            .output();
    }
}

impl Sandbox {
    pub(super) fn start() -> Sandbox {
        let (port, internal, controller) = (free_port(), free_port(), free_port());
        let name = format!("rehearse-test-mirror-sandbox-{}-{port}", std::process::id());
        run(Command::new("docker").args([
            "run",
            "-d",
            "--name",
            &name,
            "--label",
            "rehearse-test=mirror",
            "--network",
            "host",
            "-e",
            &format!("KAFKA_EXTERNAL_PORT={port}"),
            "-e",
            &format!("KAFKA_INTERNAL_PORT={internal}"),
            "-e",
            &format!("KAFKA_CONTROLLER_PORT={controller}"),
            "-e",
            "KAFKA_LISTEN_HOST=127.0.0.1",
            "-e",
            "KAFKA_INTERNAL_HOST=127.0.0.1",
            IMAGE,
        ]));
        let s = Sandbox { name, port };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(rehearse::kafka::wait_ready(
            &s.bootstrap(),
            Duration::from_secs(120),
        ))
        .unwrap_or_else(|e| panic!("the sandbox broker did not answer: {e}"));
        s
    }

    pub(super) fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The keys (UTF-8) of `topic`/`partition` at offsets `from..to`.
    pub(super) fn keys(&self, topic: &str, partition: i32, from: i64, to: i64) -> Vec<String> {
        let c: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap())
            .set("group.id", "rehearse-test-sandbox-reader")
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(topic, partition, rdkafka::Offset::Offset(from))
            .unwrap();
        c.assign(&tpl).unwrap();
        let mut keys = Vec::new();
        let start = Instant::now();
        while keys.len() < (to - from) as usize {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{topic}/{partition}: only {keys:?}"
            );
            if let Some(m) = c.poll(Duration::from_millis(500)) {
                let m = m.unwrap();
                use rdkafka::Message as _;
                keys.push(String::from_utf8_lossy(m.key().unwrap_or_default()).into_owned());
            }
        }
        keys
    }
}
