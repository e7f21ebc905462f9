// The test producer of the kafka source's tests (tests/kafka/runtime_kafka_test.py), on librdkafka:
//   fjord_kafka_produce BROKERS create TOPIC PARTITIONS   create a topic (replication 1)
//   fjord_kafka_produce BROKERS grow TOPIC PARTITIONS     raise its partition count
//   fjord_kafka_produce BROKERS produce TOPIC             stdin lines "PARTITION<TAB>VALUE", each
//                                                         one message; flushed at every empty line
//                                                         (then "flushed N" on stdout) and at EOF
//   fjord_kafka_produce BROKERS produce-keyed TOPIC       as produce, lines
//   "PARTITION<TAB>KEY<TAB>VALUE":
//                                                         each message with that key (the CDC
//                                                         benchmark's Debezium messages);
//                                                         PARTITION -1: by the key, as Java's
//                                                         default partitioner does
//   fjord_kafka_produce BROKERS committed TOPIC GROUP     print the sum of GROUP's committed
//                                                         offsets over TOPIC's partitions
//   fjord_kafka_produce BROKERS truncate TOPIC OFFSET     delete the messages of TOPIC's
//                                                         partition 0 before OFFSET (as
//                                                         retention would)
#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

int64_t delivery_failures = 0;

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  if (m->err) {
    ++delivery_failures;
    std::cerr << "fjord_kafka_produce: not delivered: " << rd_kafka_err2str(m->err) << "\n";
  }
}

int Fail(const std::string& what) {
  std::cerr << "fjord_kafka_produce: " << what << "\n";
  return 1;
}

rd_kafka_t* NewClient(rd_kafka_type_t type, const char* brokers) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", brokers, err, sizeof(err)) != RD_KAFKA_CONF_OK ||
      (type == RD_KAFKA_PRODUCER &&
       (rd_kafka_conf_set(conf, "enable.idempotence", "true", err, sizeof(err)) !=
            RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof(err)) != RD_KAFKA_CONF_OK ||
        // a message produced without a partition goes where Java's default partitioner puts
        // its key (murmur2 of the key bytes), as a Kafka Connect producer would
        rd_kafka_conf_set(conf, "partitioner", "murmur2_random", err, sizeof(err)) !=
            RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(conf, "topic.metadata.refresh.interval.ms", "500", err, sizeof(err)) !=
            RD_KAFKA_CONF_OK))) {
    std::cerr << err << "\n";
    return nullptr;
  }
  if (type == RD_KAFKA_PRODUCER) rd_kafka_conf_set_dr_msg_cb(conf, OnDelivery);
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof(err));
  if (!rk) std::cerr << err << "\n";
  return rk;
}

// Runs one admin request (create topic or partitions) and waits for its answer.
int Admin(const char* brokers, const std::string& op, const char* topic, int partitions) {
  rd_kafka_t* rk = NewClient(RD_KAFKA_PRODUCER, brokers);
  if (!rk) return 1;
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  char err[512];
  if (op == "create") {
    rd_kafka_NewTopic_t* t = rd_kafka_NewTopic_new(topic, partitions, 1, err, sizeof(err));
    if (!t) return Fail(err);
    rd_kafka_CreateTopics(rk, &t, 1, nullptr, queue);
    rd_kafka_NewTopic_destroy(t);
  } else {
    rd_kafka_NewPartitions_t* p =
        rd_kafka_NewPartitions_new(topic, static_cast<size_t>(partitions), err, sizeof(err));
    if (!p) return Fail(err);
    rd_kafka_CreatePartitions(rk, &p, 1, nullptr, queue);
    rd_kafka_NewPartitions_destroy(p);
  }
  rd_kafka_event_t* ev = rd_kafka_queue_poll(queue, 30000);
  int rc = 0;
  if (!ev || rd_kafka_event_error(ev)) {
    rc = Fail(op + ": " + (ev ? rd_kafka_event_error_string(ev) : "no answer"));
  } else {
    const rd_kafka_topic_result_t** results = nullptr;
    size_t n = 0;
    if (op == "create") {
      results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    } else {
      results =
          rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(ev), &n);
    }
    for (size_t i = 0; i < n; ++i) {
      if (rd_kafka_topic_result_error(results[i])) {
        rc = Fail(op + " " + topic + ": " + rd_kafka_topic_result_error_string(results[i]));
      }
    }
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(queue);
  rd_kafka_destroy(rk);
  return rc;
}

int Produce(const char* brokers, const char* topic, bool keyed) {
  rd_kafka_t* rk = NewClient(RD_KAFKA_PRODUCER, brokers);
  if (!rk) return 1;
  int64_t sent = 0;
  auto flush = [&]() {
    if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
    if (delivery_failures > 0) return false;
    std::cout << "flushed " << sent << std::endl;
    return true;
  };
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) {
      if (!flush()) return Fail("flush failed");
      continue;
    }
    size_t tab = line.find('\t');
    if (tab == std::string::npos) return Fail("line without PARTITION<TAB>: " + line);
    int32_t partition = std::atoi(line.substr(0, tab).c_str());
    if (partition < 0) partition = RD_KAFKA_PARTITION_UA;
    std::string key;
    size_t value_at = tab + 1;
    if (keyed) {
      size_t tab2 = line.find('\t', value_at);
      if (tab2 == std::string::npos) return Fail("line without PARTITION<TAB>KEY<TAB>: " + line);
      key = line.substr(value_at, tab2 - value_at);
      value_at = tab2 + 1;
    }
    std::string value = line.substr(value_at);
    while (true) {
      rd_kafka_resp_err_t e =
          keyed ? rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                                    RD_KAFKA_V_KEY(key.data(), key.size()),
                                    RD_KAFKA_V_VALUE(value.data(), value.size()),
                                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)
                : rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                                    RD_KAFKA_V_VALUE(value.data(), value.size()),
                                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      // A partition just added is unknown until the next metadata refresh (every 500 ms).
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL || e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
        rd_kafka_poll(rk, 100);
        continue;
      }
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return Fail(rd_kafka_err2str(e));
      break;
    }
    ++sent;
    rd_kafka_poll(rk, 0);
  }
  if (!flush()) return Fail("flush failed");
  rd_kafka_destroy(rk);
  return 0;
}

// The offsets GROUP has committed for TOPIC, added up over its partitions (-1 for none).
int Committed(const char* brokers, const char* topic, const char* group) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", brokers, err, sizeof(err)) != RD_KAFKA_CONF_OK ||
      rd_kafka_conf_set(conf, "group.id", group, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
    return Fail(err);
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (!rk) return Fail(err);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic, nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR ||
      md->topic_cnt != 1) {
    return Fail("no metadata");
  }
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
    rd_kafka_topic_partition_list_add(list, topic, md->topics[0].partitions[i].id);
  }
  rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  if (rd_kafka_committed(rk, list, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Fail("committed: no answer");
  }
  int64_t sum = -1;
  for (int i = 0; i < list->cnt; ++i) {
    if (list->elems[i].offset >= 0) sum = (sum < 0 ? 0 : sum) + list->elems[i].offset;
  }
  std::cout << sum << std::endl;
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy(rk);
  return 0;
}

// Deletes the messages of partition 0 of TOPIC before OFFSET (DeleteRecords).
int Truncate(const char* brokers, const char* topic, int64_t offset) {
  rd_kafka_t* rk = NewClient(RD_KAFKA_PRODUCER, brokers);
  if (!rk) return 1;
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic, 0)->offset = offset;
  rd_kafka_DeleteRecords_t* del = rd_kafka_DeleteRecords_new(list);
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_DeleteRecords(rk, &del, 1, nullptr, queue);
  rd_kafka_DeleteRecords_destroy(del);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(queue, 30000);
  int rc = 0;
  if (!ev || rd_kafka_event_error(ev)) {
    rc = Fail(std::string("truncate: ") + (ev ? rd_kafka_event_error_string(ev) : "no answer"));
  } else {
    const rd_kafka_topic_partition_list_t* done =
        rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev));
    if (done->cnt != 1 || done->elems[0].err) {
      rc = Fail(std::string("truncate: ") + rd_kafka_err2str(done->elems[0].err));
    }
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(queue);
  rd_kafka_destroy(rk);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return Fail("usage: BROKERS create|grow|produce|produce-keyed TOPIC [PARTITIONS]");
  std::string op = argv[2];
  if ((op == "create" || op == "grow") && argc == 5) {
    return Admin(argv[1], op, argv[3], std::atoi(argv[4]));
  }
  if (op == "produce" && argc == 4) return Produce(argv[1], argv[3], false);
  if (op == "produce-keyed" && argc == 4) return Produce(argv[1], argv[3], true);
  if (op == "committed" && argc == 5) return Committed(argv[1], argv[3], argv[4]);
  if (op == "truncate" && argc == 5) return Truncate(argv[1], argv[3], std::atoll(argv[4]));
  return Fail("usage: BROKERS create|grow|produce|produce-keyed TOPIC [PARTITIONS]");
}
