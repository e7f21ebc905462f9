#include "fjord/runtime/kafka_source.h"

#include <gtest/gtest.h>

#include "fjord/runtime/job_spec.h"
#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

Status ParseError(const std::string& source) {
  auto r = ParseJobSpec("source: " + source + "\nsink: {table: t}\npipeline: {state-dir: s}\n",
                        "job.yaml", "/base");
  return r.ok() ? Status::OK() : r.status();
}

void ExpectError(const std::string& source, const std::string& text) {
  Status st = ParseError(source);
  EXPECT_EQ(st.code(), StatusCode::kInvalid) << source;
  EXPECT_NE(st.message().find(text), std::string::npos) << st.message();
}

TEST(KafkaSpecTest, ParsesEveryKey) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"(
source:
  type: kafka
  bootstrap-servers: 127.0.0.1:9092
  topic: [orders, refunds]
  format: jsonl
  group-id: fjord-orders
  start: timestamp:1700000000000
  properties: {fetch.max.bytes: "1048576", isolation.level: read_committed}
  discovery-interval: 2s
  on-error: dead-letter
  batch-rows: 100
sink: {table: t}
pipeline: {state-dir: state}
)",
                                                 "job.yaml", "/base"));
  const KafkaSourceSpec& k = job.source.kafka;
  EXPECT_EQ(job.source.type, "kafka");
  EXPECT_EQ(k.bootstrap_servers, "127.0.0.1:9092");
  EXPECT_EQ(k.topics, (std::vector<std::string>{"orders", "refunds"}));
  EXPECT_EQ(k.group_id, "fjord-orders");
  EXPECT_EQ(k.start_timestamp_ms, 1700000000000);
  EXPECT_EQ(k.properties.at("fetch.max.bytes"), "1048576");
  EXPECT_EQ(k.discovery_interval_ms, 2000);
  EXPECT_EQ(k.dead_letter, "/base/state/dead-letter.jsonl");
  EXPECT_EQ(job.source.batch_rows, 100);

  ASSERT_OK_AND_ASSIGN(job, ParseJobSpec("source: {type: kafka, bootstrap-servers: 'h:1', "
                                         "topic: one}\nsink: {table: t}\n"
                                         "pipeline: {state-dir: s}\n",
                                         "job.yaml", "/base"));
  EXPECT_EQ(job.source.kafka.topics, std::vector<std::string>{"one"});
  EXPECT_EQ(job.source.kafka.start, "earliest");
  EXPECT_TRUE(job.source.kafka.group_id.empty());
  EXPECT_TRUE(job.source.kafka.dead_letter.empty());
}

TEST(KafkaSpecTest, RefusesBadKeysNamingLineAndKey) {
  ExpectError("{type: kafka, topic: t}", "job.yaml line 1: source.bootstrap-servers: missing");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1'}", "source.topic: missing");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: 'a b'}",
              "source.topic: not a legal Kafka topic name: 'a b'");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: [a, a]}", "'a' given twice");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, format: csv}",
              "source.format: unknown format 'csv'");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, start: newest}",
              "source.start: must be earliest, latest or timestamp:<ms>");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, start: 'timestamp:x'}",
              "timestamp:<ms> needs milliseconds");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, path: in}",
              "source.path: unknown key");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, properties: {no.such: 1}}",
              "source.properties.no.such: not a librdkafka property");
  ExpectError(
      "{type: kafka, bootstrap-servers: 'h:1', topic: t, properties: {fetch.wait.max.ms: "
      "soon}}",
      "source.properties.fetch.wait.max.ms: ");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, properties: {group.id: g}}",
              "source.properties.group.id: set by Fjord");
  ExpectError(
      "{type: kafka, bootstrap-servers: 'h:1', topic: t, properties: "
      "{enable.auto.commit: 'true'}}",
      "set by Fjord");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, dead-letter: d.jsonl}",
              "source.dead-letter: needs on-error: dead-letter");
  ExpectError("{type: kafka, bootstrap-servers: 'h:1', topic: t, on-error: skip}",
              "source.on-error: must be fail or dead-letter");
}

TEST(KafkaPositionTest, RoundTrips) {
  KafkaPosition p;
  p.offsets[{"orders", 0}] = 17;
  p.offsets[{"orders", 2}] = 0;
  p.offsets[{"refunds", 11}] = 123456789012;
  std::string text = FormatKafkaPosition(p);
  EXPECT_EQ(text, R"({"offsets":{"orders":{"0":17,"2":0},"refunds":{"11":123456789012}}})");
  ASSERT_OK_AND_ASSIGN(KafkaPosition back, ParseKafkaPosition(text));
  EXPECT_EQ(back.offsets, p.offsets);
  EXPECT_EQ(back.dead_letter_bytes, -1);
  p.dead_letter_bytes = 42;
  ASSERT_OK_AND_ASSIGN(back, ParseKafkaPosition(FormatKafkaPosition(p)));
  EXPECT_EQ(back.dead_letter_bytes, 42);
  EXPECT_EQ(FormatKafkaPosition(KafkaPosition{}), R"({"offsets":{}})");
  for (const char* bad : {"", "{}", R"({"offsets":{"t":{"x":1}}})", R"({"offsets":{"t":{"0":-1}}})",
                          R"({"offsets":{"t":5}})", R"({"file":"a","offset":1})"}) {
    EXPECT_EQ(ParseKafkaPosition(bad).status().code(), StatusCode::kInvalid) << bad;
  }
}

}  // namespace
}  // namespace fjord::runtime
