// The `kafka` source: the partitions of the job's topics are assigned to one librdkafka consumer
// by hand (no group rebalancing: the checkpoint, not the group, says where to resume), each from
// the next offset its position holds; partitions missing from the position start at `start`
// (no checkpoint yet) or at their earliest offset (partitions added later). Every message value
// is one JSON object; a batch is the messages one poll round hands out. The topics are looked at
// again every discovery interval for new partitions. --bounded: the end offsets (high
// watermarks) seen at the first Next are the end.

#include "fjord/runtime/kafka_source.h"

#include <librdkafka/rdkafka.h>

#include <arrow/api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <thread>
#include <vector>

#include "fjord/runtime/cdc_decode.h"
#include "fjord/runtime/cdc_source.h"
#include "fjord/runtime/source.h"

namespace fjord::runtime {

namespace {

using Clock = std::chrono::steady_clock;
using Partition = std::pair<std::string, int32_t>;

constexpr int kMetadataTimeoutMs = 10000;
// Looking again for topics and partitions happens on the source's thread, between polls: while
// the brokers are unreachable a metadata request waits its whole timeout, and the job's
// checkpoints and a SIGTERM wait with it. A look that gives up only delays new topics and
// partitions to the next interval, so later looks wait at most kRediscoveryTimeoutMs (an
// answering broker takes milliseconds), and once librdkafka said that every broker is down,
// kUnreachableMetadataTimeoutMs until a look or a fetch succeeds again.
constexpr int kRediscoveryTimeoutMs = 2000;
constexpr int kUnreachableMetadataTimeoutMs = 500;
constexpr int kPollTimeoutMs = 100;
constexpr int kFinalCommitWaitMs = 5000;

const std::set<std::string>& ManagedKeys() {
  static const std::set<std::string> keys = {
      "bootstrap.servers",    "metadata.broker.list",     "group.id",
      "enable.auto.commit",   "enable.auto.offset.store", "auto.offset.reset",
      "enable.partition.eof", "auto.commit.interval.ms"};
  return keys;
}

std::string Name(const Partition& p) {
  return "kafka topic " + p.first + " partition " + std::to_string(p.second);
}

struct Message {
  Partition partition;
  int64_t offset;
  std::string value;
  std::optional<std::string> key;
  bool tombstone = false;  // no value
  int64_t timestamp = -1;
  rd_kafka_timestamp_type_t timestamp_type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
};

// Java's Kafka metadata of a message (its timestamp type as Kafka's TimestampType names it).
std::shared_ptr<const cdc::KafkaMessageInfo> KafkaInfo(const Message& m) {
  auto info = std::make_shared<cdc::KafkaMessageInfo>();
  info->topic = m.partition.first;
  info->partition = m.partition.second;
  info->offset = m.offset;
  info->timestamp_ms = m.timestamp;
  info->timestamp_type = m.timestamp_type == RD_KAFKA_TIMESTAMP_CREATE_TIME ? "CreateTime"
                         : m.timestamp_type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME
                             ? "LogAppendTime"
                             : "NoTimestampType";
  return info;
}

// Rows of the table (Source) or, with a CDC format, change records (CdcSource).
class KafkaSource : public Source, public CdcSource {
 public:
  KafkaSource(SourceSpec spec, TableSchema schema)
      : spec_(std::move(spec)), kafka_(spec_.kafka), schema_(std::move(schema)) {}
  KafkaSource(SourceSpec spec, std::unique_ptr<CdcDecoder> decoder)
      : spec_(std::move(spec)), kafka_(spec_.kafka), decoder_(std::move(decoder)) {}

  ~KafkaSource() override {
    if (rk_) {
      CommitToGroup(/*async=*/false);  // the final checkpoint's offsets
      rd_kafka_consumer_close(rk_);
      rd_kafka_destroy(rk_);
    }
  }

  Status Open() {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    auto set = [&](const std::string& key, const std::string& value) -> Status {
      if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof(err)) !=
          RD_KAFKA_CONF_OK) {
        return Status::Invalid("kafka source: ", key, ": ", err);
      }
      return Status::OK();
    };
    std::vector<std::pair<std::string, std::string>> settings = {
        {"bootstrap.servers", kafka_.bootstrap_servers},
        {"enable.auto.commit", "false"},
        {"enable.auto.offset.store", "false"},
        {"auto.offset.reset", "error"},  // a position retention deleted is an error, not a skip
        {"enable.partition.eof", "false"},
        {"client.id", "fjord"},
    };
    // librdkafka's assign() needs a group id; without source.group-id nothing is committed to it
    // and no group is joined (partitions are assigned by hand).
    settings.push_back(
        {"group.id", kafka_.group_id.empty() ? "fjord-uncommitted" : kafka_.group_id});
    for (const auto& kv : kafka_.properties) settings.push_back(kv);
    for (const auto& [key, value] : settings) {
      Status s = set(key, value);
      if (!s.ok()) {
        rd_kafka_conf_destroy(conf);
        return s;
      }
    }
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_error_cb(conf, &KafkaSource::OnError);
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
    if (!rk_) {
      rd_kafka_conf_destroy(conf);
      return Status::IOError("kafka source: cannot create the consumer: ", err);
    }
    // The client's own events (errors such as "all brokers are down") are served by the
    // consumer's poll, which calls OnError.
    rd_kafka_poll_set_consumer(rk_);
    return Status::OK();
  }

  Status Seek(const std::string& position) override {
    KafkaPosition p;
    if (!position.empty()) {
      FJORD_ASSIGN_OR_RAISE(p, ParseKafkaPosition(position));
    }
    resumed_ = !position.empty();
    offsets_ = p.offsets;
    dead_letter_bytes_ = p.dead_letter_bytes < 0 ? 0 : p.dead_letter_bytes;
    assigned_.clear();
    ends_.clear();
    ends_known_ = false;
    discovered_ = false;
    held_.clear();
    rd_kafka_assign(rk_, nullptr);
    return SeekDeadLetter();
  }

  std::string Position() const override {
    KafkaPosition p;
    p.offsets = offsets_;
    p.dead_letter_bytes = kafka_.dead_letter.empty() ? -1 : dead_letter_bytes_;
    return FormatKafkaPosition(p);
  }

  void Committed(const std::string& position) override {
    if (kafka_.group_id.empty()) return;
    std::lock_guard<std::mutex> lock(commit_mu_);
    to_commit_ = position;
  }

  int64_t idle_wait_ms() const override { return 0; }  // Next waits in the poll itself

  // The high watermark of each partition as its last fetch reported it (no request to the
  // broker), minus the next offset to hand out; partitions not fetched yet are left out.
  std::vector<SourceLagMetric> Lag() override {
    std::vector<SourceLagMetric> out;
    for (const Partition& p : assigned_) {
      int64_t low = 0;
      int64_t high = -1;
      if (rd_kafka_get_watermark_offsets(rk_, p.first.c_str(), p.second, &low, &high) !=
              RD_KAFKA_RESP_ERR_NO_ERROR ||
          high < 0) {
        continue;
      }
      auto at = offsets_.find(p);
      int64_t next = at == offsets_.end() ? low : at->second;
      out.push_back({p.first, p.second, std::max<int64_t>(0, high - next)});
    }
    return out;
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next(bool bounded, bool* end) override {
    *end = false;
    CommitToGroup(/*async=*/true);
    if (!discovered_ || (!bounded && Clock::now() >= next_discovery_)) {
      FJORD_RETURN_NOT_OK(Discover());
    }
    if (bounded && !ends_known_) FJORD_RETURN_NOT_OK(ReadEnds());
    while (true) {
      if (bounded && AtEnds()) {
        *end = true;
        return nullptr;
      }
      std::vector<Message> messages;
      FJORD_RETURN_NOT_OK(Poll(bounded, &messages));
      if (messages.empty()) {
        if (bounded) AdvancePastGaps();
        if (bounded && AtEnds()) *end = true;
        return nullptr;
      }
      FJORD_ASSIGN_OR_RAISE(auto batch, Parse(messages));
      for (const Message& m : messages) offsets_[m.partition] = m.offset + 1;
      if (batch->num_rows() > 0) return batch;
    }
  }

  Status Next(bool bounded, size_t max_records, const CdcCut& cut, std::vector<cdc::CdcRecord>* out,
              bool* end) override {
    *end = false;
    if (held_.empty()) {
      CommitToGroup(/*async=*/true);
      if (!discovered_ || (!bounded && Clock::now() >= next_discovery_)) {
        FJORD_RETURN_NOT_OK(Discover());
      }
      if (bounded && !ends_known_) FJORD_RETURN_NOT_OK(ReadEnds());
      if (bounded && AtEnds()) {
        *end = true;
        return Status::OK();
      }
      std::vector<Message> messages;
      FJORD_RETURN_NOT_OK(Poll(bounded, &messages));
      if (messages.empty()) {
        if (bounded) AdvancePastGaps();
        if (bounded && AtEnds()) *end = true;
        return Status::OK();
      }
      // The whole poll decoded at once, on the decoder's threads.
      std::vector<cdc::CdcMessage> polled(messages.size());
      for (size_t i = 0; i < messages.size(); ++i) {
        Message& m = messages[i];
        polled[i].key = std::move(m.key);
        if (!m.tombstone) polled[i].value = std::move(m.value);
        polled[i].origin = Name(m.partition) + " offset " + std::to_string(m.offset);
        polled[i].kafka = KafkaInfo(m);
      }
      decoder_->DecodeAll(polled, &decoded_);
      for (size_t i = 0; i < messages.size(); ++i) {
        held_.push_back({messages[i].partition, messages[i].offset, std::move(polled[i]),
                         std::move(decoded_[i])});
      }
    }
    // Messages taken move the position past them; one the cut keeps back stays first.
    std::string letters;
    while (!held_.empty() && out->size() < max_records) {
      Held& m = held_.front();
      const cdc::CdcMessage& message = m.message;
      FJORD_ASSIGN_OR_RAISE(bool took,
                            TakeDecoded(m.decoded, message, cut, !kafka_.dead_letter.empty(), out,
                                        [&](const std::string& error) {
                                          nlohmann::json j;
                                          j["topic"] = m.partition.first;
                                          j["partition"] = m.partition.second;
                                          j["offset"] = m.offset;
                                          j["error"] = error;
                                          j["record"] = message.value.value_or("");
                                          letters += j.dump() + "\n";
                                        }));
      if (!took) break;
      offsets_[m.partition] = m.offset + 1;
      held_.pop_front();
    }
    if (!letters.empty()) {
      FJORD_RETURN_NOT_OK(AppendDeadLetters(kafka_.dead_letter, letters, &dead_letter_bytes_));
    }
    return Status::OK();
  }

 private:
  // librdkafka's errors of the client (not of a partition), on the source's thread (Poll). They
  // are retried by librdkafka; logged as librdkafka logs them without this callback.
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    auto* self = static_cast<KafkaSource*>(opaque);
    if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) self->unreachable_ = true;
    // A failed connection is in librdkafka's log already (FAIL lines).
    if (err == RD_KAFKA_RESP_ERR__TRANSPORT) return;
    std::fprintf(stderr, "kafka source: %s: %s\n", rd_kafka_name(rk), reason);
  }

  // The partitions of every topic; new ones are assigned (with all known ones, at their
  // positions: every message polled was handed out, so the positions are exact).
  Status Discover() {
    bool first = !discovered_;
    int timeout_ms = first          ? kMetadataTimeoutMs
                     : unreachable_ ? kUnreachableMetadataTimeoutMs
                                    : kRediscoveryTimeoutMs;
    // Whatever happens below, the next look is an interval away (also after a failed one).
    next_discovery_ = Clock::now() + std::chrono::milliseconds(kafka_.discovery_interval_ms);
    std::vector<Partition> fresh;
    std::vector<std::string> topics = kafka_.topics;
    if (!kafka_.topic_pattern.empty()) {
      auto matching = MatchingTopics(timeout_ms);
      if (!matching.ok()) {
        if (!first) return Status::OK();  // looked at again at the next interval
        return matching.status();
      }
      topics = std::move(*matching);
    }
    for (const std::string& topic : topics) {
      rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_, topic.c_str(), nullptr);
      const rd_kafka_metadata_t* md = nullptr;
      rd_kafka_resp_err_t e = rd_kafka_metadata(rk_, 0, rkt, &md, timeout_ms);
      rd_kafka_topic_destroy(rkt);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (!first) return Status::OK();  // looked at again at the next interval
        return Status::IOError("kafka source: no metadata for topic '", topic, "' from ",
                               kafka_.bootstrap_servers, ": ", rd_kafka_err2str(e));
      }
      Status status;
      if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rd_kafka_resp_err_t te =
            md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
        status = Status::NotFound("kafka source: topic '", topic, "' at ", kafka_.bootstrap_servers,
                                  ": ", rd_kafka_err2str(te));
      } else {
        for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
          Partition p{topic, md->topics[0].partitions[i].id};
          if (!assigned_.count(p)) fresh.push_back(p);
        }
      }
      rd_kafka_metadata_destroy(md);
      if (!status.ok()) {
        if (!first) return Status::OK();
        return status;
      }
    }
    for (const Partition& p : fresh) {
      if (!offsets_.count(p)) {
        // No checkpoint yet and known at the first look: `start`; else a new partition, whole.
        bool start = first && !resumed_;
        FJORD_ASSIGN_OR_RAISE(offsets_[p], StartOffset(p, start ? kafka_.start : "earliest"));
      }
      assigned_.insert(p);
    }
    if (!fresh.empty()) {
      rd_kafka_topic_partition_list_t* list =
          rd_kafka_topic_partition_list_new(static_cast<int>(assigned_.size()));
      for (const Partition& p : assigned_) {
        rd_kafka_topic_partition_list_add(list, p.first.c_str(), p.second)->offset = offsets_[p];
      }
      rd_kafka_resp_err_t e = rd_kafka_assign(rk_, list);
      rd_kafka_topic_partition_list_destroy(list);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return Status::IOError("kafka source: cannot assign partitions: ", rd_kafka_err2str(e));
      }
    }
    discovered_ = true;
    unreachable_ = false;
    return Status::OK();
  }

  // The topics whose names match `topic-pattern` (Kafka's internal ones, "__...", never).
  Result<std::vector<std::string>> MatchingTopics(int timeout_ms) {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk_, 1, nullptr, &md, timeout_ms);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::IOError("kafka source: no topic list from ", kafka_.bootstrap_servers, ": ",
                             rd_kafka_err2str(e));
    }
    std::vector<std::string> out;
    for (int i = 0; i < md->topic_cnt; ++i) {
      std::string name = md->topics[i].topic;
      if (name.rfind("__", 0) == 0) continue;
      if (std::regex_match(name, pattern_)) out.push_back(name);
    }
    rd_kafka_metadata_destroy(md);
    std::sort(out.begin(), out.end());
    return out;
  }

  // A partition of a topic created a moment ago may have no leader yet: its watermarks are
  // asked for again for up to kMetadataTimeoutMs on the errors that say so.
  rd_kafka_resp_err_t QueryWatermarks(const Partition& p, int64_t* low, int64_t* high) {
    auto deadline = Clock::now() + std::chrono::milliseconds(kMetadataTimeoutMs);
    while (true) {
      rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(rk_, p.first.c_str(), p.second, low,
                                                               high, kMetadataTimeoutMs);
      bool leaderless = e == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION ||
                        e == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE ||
                        e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
      if (!leaderless || Clock::now() >= deadline) return e;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  Result<int64_t> StartOffset(const Partition& p, const std::string& start) {
    int64_t low = 0;
    int64_t high = 0;
    rd_kafka_resp_err_t e = QueryWatermarks(p, &low, &high);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::IOError(Name(p), ": no watermark offsets: ", rd_kafka_err2str(e));
    }
    if (start == "earliest") return low;
    if (start == "latest") return high;
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, p.first.c_str(), p.second)->offset =
        kafka_.start_timestamp_ms;
    e = rd_kafka_offsets_for_times(rk_, list, kMetadataTimeoutMs);
    int64_t offset = list->elems[0].offset;
    rd_kafka_resp_err_t pe = list->elems[0].err;
    rd_kafka_topic_partition_list_destroy(list);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR || pe != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::IOError(Name(p), ": no offset for ", start, ": ",
                             rd_kafka_err2str(e != RD_KAFKA_RESP_ERR_NO_ERROR ? e : pe));
    }
    return offset < 0 ? high : offset;  // no message at or after the timestamp: the end
  }

  Status ReadEnds() {
    for (const Partition& p : assigned_) {
      int64_t low = 0;
      int64_t high = 0;
      rd_kafka_resp_err_t e = QueryWatermarks(p, &low, &high);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return Status::IOError(Name(p), ": no end offset: ", rd_kafka_err2str(e));
      }
      ends_[p] = high;
    }
    ends_known_ = true;
    return Status::OK();
  }

  bool AtEnds() const {
    for (const auto& [p, end] : ends_) {
      auto it = offsets_.find(p);
      if (it == offsets_.end() || it->second < end) return false;
    }
    return true;
  }

  // --bounded: offsets without a message (transaction markers) are passed when the consumer's
  // own position is past them.
  void AdvancePastGaps() {
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(assigned_.size()));
    for (const Partition& p : assigned_) {
      rd_kafka_topic_partition_list_add(list, p.first.c_str(), p.second);
    }
    if (rd_kafka_position(rk_, list) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      for (int i = 0; i < list->cnt; ++i) {
        Partition p{list->elems[i].topic, list->elems[i].partition};
        int64_t at = list->elems[i].offset;
        auto end = ends_.find(p);
        if (at >= 0 && end != ends_.end() && at > offsets_[p] && at <= end->second) {
          offsets_[p] = at;
        }
      }
    }
    rd_kafka_topic_partition_list_destroy(list);
  }

  Status Poll(bool bounded, std::vector<Message>* out) {
    std::map<Partition, int64_t> next;  // within this poll
    int timeout = kPollTimeoutMs;
    while (static_cast<int64_t>(out->size()) < spec_.batch_rows) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, timeout);
      if (!m) break;
      timeout = 0;
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        std::string what = rd_kafka_message_errstr(m);
        rd_kafka_resp_err_t err = m->err;
        bool partition_error = m->rkt != nullptr;
        Partition p =
            partition_error ? Partition{rd_kafka_topic_name(m->rkt), m->partition} : Partition{};
        int64_t offset = m->offset;
        rd_kafka_message_destroy(m);
        if (rd_kafka_fatal_error(rk_, nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
          return Status::IOError("kafka source: fatal consumer error: ", what);
        }
        // Errors of the connection are retried by librdkafka itself.
        if (!partition_error || err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
        return Status::IOError(Name(p), " offset ", offset, ": ", what);
      }
      unreachable_ = false;  // a message fetched: a broker answers
      Partition p{rd_kafka_topic_name(m->rkt), m->partition};
      int64_t offset = m->offset;
      auto it = next.find(p);
      if (it == next.end()) {
        auto known = offsets_.find(p);
        it = next.emplace(p, known == offsets_.end() ? INT64_MAX : known->second).first;
      }
      bool skip = offset < it->second;
      if (bounded) {
        auto end = ends_.find(p);
        if (end == ends_.end() || offset >= end->second) skip = true;
      }
      if (!skip) {
        Message message{p, offset, std::string(), std::nullopt, m->payload == nullptr};
        if (m->payload) message.value.assign(static_cast<const char*>(m->payload), m->len);
        if (m->key) message.key.emplace(static_cast<const char*>(m->key), m->key_len);
        message.timestamp = rd_kafka_message_timestamp(m, &message.timestamp_type);
        out->push_back(std::move(message));
        it->second = offset + 1;
      }
      rd_kafka_message_destroy(m);
    }
    return Status::OK();
  }

  // A line of JSON text per message (raw line breaks can only be whitespace in JSON).
  static std::string Line(const std::string& value) {
    std::string line = value;
    for (char& ch : line) {
      if (ch == '\n' || ch == '\r') ch = ' ';
    }
    return line + "\n";
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Parse(const std::vector<Message>& messages) {
    std::string text;
    for (const Message& m : messages) text += Line(m.value);
    auto parsed = ParseChunk(text, false, "", "", schema_, "kafka", 1);
    if (parsed.ok() || parsed.status().code() != StatusCode::kInvalid) return parsed;
    // Which messages do not fit: an error naming the first, or all of them dead-lettered.
    std::string good;
    std::string letters;
    for (const Message& m : messages) {
      std::string where = Name(m.partition) + " offset " + std::to_string(m.offset);
      auto one = ParseChunk(Line(m.value), false, "", "", schema_, where, 1);
      if (one.ok()) {
        good += Line(m.value);
        continue;
      }
      if (kafka_.dead_letter.empty()) return one.status();
      nlohmann::json j;
      j["topic"] = m.partition.first;
      j["partition"] = m.partition.second;
      j["offset"] = m.offset;
      j["error"] = one.status().ToString();
      j["record"] = m.value;
      letters += j.dump() + "\n";
    }
    if (!letters.empty()) {
      FJORD_RETURN_NOT_OK(AppendDeadLetters(kafka_.dead_letter, letters, &dead_letter_bytes_));
    }
    return ParseChunk(good, false, "", "", schema_, "kafka", 1);
  }

  Status SeekDeadLetter() {
    if (kafka_.dead_letter.empty()) return Status::OK();
    return runtime::SeekDeadLetter(kafka_.dead_letter, &dead_letter_bytes_);
  }

  // The offsets of the last committed checkpoint, copied to the group for monitoring (a failure
  // only delays the copy: the group's offsets are never read back).
  void CommitToGroup(bool async) {
    std::string position;
    {
      std::lock_guard<std::mutex> lock(commit_mu_);
      position.swap(to_commit_);
    }
    if (position.empty()) return;
    auto p = ParseKafkaPosition(position);
    if (!p.ok() || p->offsets.empty()) return;
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(p->offsets.size()));
    for (const auto& [tp, offset] : p->offsets) {
      rd_kafka_topic_partition_list_add(list, tp.first.c_str(), tp.second)->offset = offset;
    }
    if (async) {
      rd_kafka_commit(rk_, list, 1);
    } else {
      // At exit: waits for the answer, but not for long (the broker may be gone).
      rd_kafka_queue_t* queue = rd_kafka_queue_new(rk_);
      rd_kafka_commit_queue(rk_, list, queue, nullptr, nullptr);
      if (rd_kafka_event_t* ev = rd_kafka_queue_poll(queue, kFinalCommitWaitMs)) {
        rd_kafka_event_destroy(ev);
      }
      rd_kafka_queue_destroy(queue);
    }
    rd_kafka_topic_partition_list_destroy(list);
  }

  SourceSpec spec_;
  KafkaSourceSpec kafka_;
  TableSchema schema_;
  std::regex pattern_{kafka_.topic_pattern};  // topic-pattern (checked by the job file)
  // CDC jobs: the decoder, and the messages polled and decoded but not handed out yet.
  struct Held {
    Partition partition;
    int64_t offset;
    cdc::CdcMessage message;
    DecodedMessage decoded;
  };
  std::unique_ptr<CdcDecoder> decoder_;
  std::deque<Held> held_;
  std::vector<DecodedMessage> decoded_;
  rd_kafka_t* rk_ = nullptr;
  bool resumed_ = false;  // Seek had a position (a checkpoint)
  KafkaOffsets offsets_;
  std::set<Partition> assigned_;
  std::map<Partition, int64_t> ends_;  // --bounded
  bool ends_known_ = false;
  bool discovered_ = false;
  bool unreachable_ = false;  // librdkafka reported every broker down since the last answer
  Clock::time_point next_discovery_;
  int64_t dead_letter_bytes_ = 0;
  std::mutex commit_mu_;
  std::string to_commit_;
};

}  // namespace

std::string FormatKafkaPosition(const KafkaPosition& position) {
  nlohmann::json offsets = nlohmann::json::object();
  for (const auto& [tp, offset] : position.offsets) {
    offsets[tp.first][std::to_string(tp.second)] = offset;
  }
  nlohmann::json j;
  j["offsets"] = offsets;
  if (position.dead_letter_bytes >= 0) j["dead-letter-bytes"] = position.dead_letter_bytes;
  return j.dump();
}

Result<KafkaPosition> ParseKafkaPosition(const std::string& text) {
  KafkaPosition p;
  try {
    auto j = nlohmann::json::parse(text);
    for (const auto& [topic, partitions] : j.at("offsets").items()) {
      if (!partitions.is_object()) throw std::runtime_error("topic " + topic + ": not an object");
      for (const auto& [partition, offset] : partitions.items()) {
        size_t used = 0;
        int64_t id = std::stoll(partition, &used);
        if (used != partition.size() || id < 0 || id > INT32_MAX) {
          throw std::runtime_error("not a partition number: " + partition);
        }
        int64_t next = offset.get<int64_t>();
        if (next < 0) throw std::runtime_error("negative offset");
        p.offsets[{topic, static_cast<int32_t>(id)}] = next;
      }
    }
    if (j.contains("dead-letter-bytes"))
      p.dead_letter_bytes = j.at("dead-letter-bytes").get<int64_t>();
  } catch (const std::exception& e) {
    return Status::Invalid("kafka source: bad position '", text, "': ", e.what());
  }
  return p;
}

Status CheckKafkaProperty(const std::string& key, const std::string& value) {
  if (ManagedKeys().count(key)) {
    return Status::Invalid(
        "set by Fjord (bootstrap-servers, group-id; offsets live in the checkpoint)");
  }
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  rd_kafka_conf_res_t r = rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof(err));
  rd_kafka_conf_destroy(conf);
  if (r == RD_KAFKA_CONF_UNKNOWN) return Status::Invalid("not a librdkafka property");
  if (r != RD_KAFKA_CONF_OK) return Status::Invalid(err);
  return Status::OK();
}

Result<std::unique_ptr<Source>> MakeKafkaSource(const SourceSpec& spec, const TableSchema& schema) {
  auto source = std::make_unique<KafkaSource>(spec, schema);
  FJORD_RETURN_NOT_OK(source->Open());
  return source;
}

Result<std::unique_ptr<CdcSource>> MakeKafkaCdcSource(const SourceSpec& spec,
                                                      std::unique_ptr<CdcDecoder> decoder) {
  auto source = std::make_unique<KafkaSource>(spec, std::move(decoder));
  FJORD_RETURN_NOT_OK(source->Open());
  return source;
}

}  // namespace fjord::runtime
