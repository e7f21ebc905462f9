#include "fjord/runtime/job_spec.h"

#include <yaml-cpp/yaml.h>

#include "fjord/cdc/cdc_format.h"
#include "fjord/runtime/cdc_metadata.h"
#include "fjord/runtime/java_sync_options.h"
#include "fjord/runtime/kafka_source.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace fjord::runtime {

namespace {

// Errors name "<file> line N: <key>: ..." (yaml-cpp marks are 0-based).
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  Status Error(const YAML::Node& node, const std::string& key, const std::string& what) const {
    std::string where = file_;
    if (node.Mark().line >= 0) where += " line " + std::to_string(node.Mark().line + 1);
    return Status::Invalid(where, ": ", key, ": ", what);
  }

  // The keys of a mapping, each checked against `allowed`.
  Status Keys(const YAML::Node& map, const std::string& prefix,
              const std::set<std::string>& allowed) const {
    if (!map.IsMap()) return Error(map, prefix, "must be a mapping");
    for (const auto& kv : map) {
      std::string key = kv.first.Scalar();
      if (!allowed.count(key)) {
        if (prefix == "sink" || prefix == "source") {
          if (auto java = JavaSyncOptionMessage(key))
            return Error(kv.first, prefix + "." + key, *java);
        }
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        return Error(kv.first, prefix + "." + key, "unknown key (known: " + list + ")");
      }
    }
    return Status::OK();
  }

  Result<std::string> Text(const YAML::Node& node, const std::string& key) const {
    if (node.IsNull()) return Error(node, key, "has no value (quote YAML's null words: \"NULL\")");
    if (!node.IsScalar()) return Error(node, key, "must be a single value");
    return node.Scalar();
  }

  Result<int64_t> Integer(const YAML::Node& node, const std::string& key, int64_t min) const {
    FJORD_ASSIGN_OR_RAISE(std::string text, Text(node, key));
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(text, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != text.size())
      return Error(node, key, "must be an integer, got '" + text + "'");
    if (v < min) return Error(node, key, "must be at least " + std::to_string(min));
    return v;
  }

  Result<double> Number(const YAML::Node& node, const std::string& key, double min,
                        double max) const {
    FJORD_ASSIGN_OR_RAISE(std::string text, Text(node, key));
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != text.size())
      return Error(node, key, "must be a number, got '" + text + "'");
    if (v < min || v > max) {
      std::ostringstream range;
      range << "must be between " << min << " and " << max;
      return Error(node, key, range.str());
    }
    return v;
  }

  Result<int64_t> Duration(const YAML::Node& node, const std::string& key) const {
    FJORD_ASSIGN_OR_RAISE(std::string text, Text(node, key));
    auto ms = ParseDurationMillis(text);
    if (!ms.ok()) return Error(node, key, ms.status().message());
    if (*ms <= 0) return Error(node, key, "must be positive");
    return *ms;
  }

  Result<std::string> Path(const YAML::Node& node, const std::string& key,
                           const std::string& base_dir) const {
    FJORD_ASSIGN_OR_RAISE(std::string text, Text(node, key));
    if (text.empty()) return Error(node, key, "must not be empty");
    std::filesystem::path p(text);
    if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
    return p.lexically_normal().string();
  }

  // A list: a YAML sequence or one comma-separated value.
  Result<std::vector<std::string>> List(const YAML::Node& node, const std::string& key) const {
    std::vector<std::string> out;
    if (node.IsSequence()) {
      for (const auto& item : node) {
        FJORD_ASSIGN_OR_RAISE(std::string v, Text(item, key));
        out.push_back(v);
      }
    } else {
      FJORD_ASSIGN_OR_RAISE(std::string v, Text(node, key));
      out = SplitList(v);
    }
    for (const std::string& v : out) {
      if (v.empty()) return Error(node, key, "has an empty item");
    }
    return out;
  }
  static std::vector<std::string> SplitList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
      size_t b = part.find_first_not_of(" \t");
      size_t e = part.find_last_not_of(" \t");
      out.push_back(b == std::string::npos ? "" : part.substr(b, e - b + 1));
    }
    return out;
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

bool IsCdcFormat(const std::string& name) {
  const auto& names = cdc::CdcFormatNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string CdcFormatList() {
  std::string out;
  for (const std::string& n : cdc::CdcFormatNames()) out += ", " + n;
  return out;
}

// The sink keys of CDC jobs: table sync (`table`) or database sync (`warehouse` + `database`).
Status ParseCdcSink(const Checker& c, const YAML::Node& node, const std::string& base_dir,
                    SinkSpec* out) {
  bool database_sync = node["warehouse"] || node["database"];
  if (database_sync && node["table"]) {
    return c.Error(node["table"], "sink.table",
                   "table sync (sink.table) or database sync (sink.warehouse and sink.database), "
                   "not both");
  }
  if (!database_sync && !node["table"]) {
    return c.Error(node, "sink.table",
                   "missing (table sync: the table directory; database sync: sink.warehouse and "
                   "sink.database)");
  }
  if (database_sync) {
    if (!node["warehouse"]) return c.Error(node, "sink.warehouse", "missing");
    if (!node["database"]) return c.Error(node, "sink.database", "missing");
    FJORD_ASSIGN_OR_RAISE(out->warehouse, c.Path(node["warehouse"], "sink.warehouse", base_dir));
    FJORD_ASSIGN_OR_RAISE(out->database, c.Text(node["database"], "sink.database"));
    if (out->database.empty()) return c.Error(node["database"], "sink.database", "is empty");
  }
  if (node["primary-key"]) {
    FJORD_ASSIGN_OR_RAISE(out->primary_key, c.List(node["primary-key"], "sink.primary-key"));
  }
  if (node["partition-keys"]) {
    FJORD_ASSIGN_OR_RAISE(out->partition_keys,
                          c.List(node["partition-keys"], "sink.partition-keys"));
  }
  if (const YAML::Node options = node["table-options"]) {
    if (!options.IsMap()) return c.Error(options, "sink.table-options", "must be a mapping");
    for (const auto& kv : options) {
      std::string key = kv.first.Scalar();
      FJORD_ASSIGN_OR_RAISE(std::string value, c.Text(kv.second, "sink.table-options." + key));
      out->table_options.emplace_back(key, value);
    }
  }
  if (const YAML::Node computed = node["computed-columns"]) {
    if (!computed.IsSequence()) {
      return c.Error(computed, "sink.computed-columns",
                     "must be a list of \"name=function(args)\"");
    }
    for (const auto& item : computed) {
      FJORD_ASSIGN_OR_RAISE(std::string text, c.Text(item, "sink.computed-columns"));
      out->computed_columns.push_back(text);
    }
  }
  const std::pair<const char*, std::string*> patterns[] = {
      {"including-tables", &out->including_tables}, {"excluding-tables", &out->excluding_tables},
      {"including-dbs", &out->including_dbs},       {"excluding-dbs", &out->excluding_dbs},
      {"table-prefix", &out->table_prefix},         {"table-suffix", &out->table_suffix}};
  for (const auto& [key, target] : patterns) {
    if (!node[key]) continue;
    std::string name = std::string("sink.") + key;
    if (!database_sync) return c.Error(node[key], name, "only for database sync");
    FJORD_ASSIGN_OR_RAISE(*target, c.Text(node[key], name));
    if (std::string(key).find("ing-") != std::string::npos) {
      try {
        std::regex check(*target);
      } catch (const std::regex_error& e) {
        return c.Error(node[key], name, std::string("not a regular expression: ") + e.what());
      }
    }
  }
  // Java's maps: keys lower-cased, as Java's TableNameConverter and SyncDatabaseActionBase.
  const std::pair<const char*, std::map<std::string, std::string>*> maps[] = {
      {"table-prefix-db", &out->table_prefix_db},
      {"table-suffix-db", &out->table_suffix_db},
      {"table-mapping", &out->table_mapping}};
  for (const auto& [key, target] : maps) {
    const YAML::Node map = node[key];
    if (!map) continue;
    std::string name = std::string("sink.") + key;
    if (!database_sync) return c.Error(map, name, "only for database sync");
    if (!map.IsMap()) return c.Error(map, name, "must be a mapping");
    for (const auto& kv : map) {
      std::string from = kv.first.Scalar();
      for (char& ch : from) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      FJORD_ASSIGN_OR_RAISE((*target)[from], c.Text(kv.second, name + "." + kv.first.Scalar()));
      if (std::string(key) == "table-mapping" && (*target)[from].empty()) {
        return c.Error(kv.second, name + "." + kv.first.Scalar(), "is empty");
      }
    }
  }
  if (const YAML::Node merge = node["merge-shards"]) {
    if (!database_sync) return c.Error(merge, "sink.merge-shards", "only for database sync");
    FJORD_ASSIGN_OR_RAISE(std::string text, c.Text(merge, "sink.merge-shards"));
    if (text != "true" && text != "false") {
      return c.Error(merge, "sink.merge-shards", "must be true or false, got '" + text + "'");
    }
    out->merge_shards = text == "true";
  }
  if (const YAML::Node keys = node["multiple-table-partition-keys"]) {
    const std::string name = "sink.multiple-table-partition-keys";
    if (!database_sync) return c.Error(keys, name, "only for database sync");
    if (!keys.IsMap()) return c.Error(keys, name, "must be a mapping of source table to keys");
    for (const auto& kv : keys) {
      FJORD_ASSIGN_OR_RAISE(out->table_partition_keys[kv.first.Scalar()],
                            c.List(kv.second, name + "." + kv.first.Scalar()));
    }
  }
  if (const YAML::Node metadata = node["metadata-columns"]) {
    FJORD_ASSIGN_OR_RAISE(out->metadata_columns, c.List(metadata, "sink.metadata-columns"));
  }
  if (const YAML::Node prefix = node["metadata-column-prefix"]) {
    if (!node["metadata-columns"]) {
      return c.Error(prefix, "sink.metadata-column-prefix", "needs sink.metadata-columns");
    }
    FJORD_ASSIGN_OR_RAISE(out->metadata_column_prefix,
                          c.Text(prefix, "sink.metadata-column-prefix"));
  }
  return Status::OK();
}

// `source.on-error` and `source.dead-letter` (files and kafka sources).
Status ParseOnError(const Checker& c, const YAML::Node& node, const std::string& base_dir,
                    std::string* on_error, std::string* dead_letter) {
  if (node["on-error"]) {
    FJORD_ASSIGN_OR_RAISE(*on_error, c.Text(node["on-error"], "source.on-error"));
    if (*on_error != "fail" && *on_error != "dead-letter") {
      return c.Error(node["on-error"], "source.on-error",
                     "must be fail or dead-letter, got '" + *on_error + "'");
    }
  }
  if (node["dead-letter"]) {
    if (*on_error != "dead-letter") {
      return c.Error(node["dead-letter"], "source.dead-letter", "needs on-error: dead-letter");
    }
    FJORD_ASSIGN_OR_RAISE(*dead_letter,
                          c.Path(node["dead-letter"], "source.dead-letter", base_dir));
  }
  return Status::OK();
}

Status ParseTopics(const Checker& c, const YAML::Node& topic, KafkaSourceSpec* out) {
  if (topic.IsSequence()) {
    for (const auto& t : topic) {
      FJORD_ASSIGN_OR_RAISE(std::string name, c.Text(t, "source.topic"));
      out->topics.push_back(name);
    }
  } else {
    FJORD_ASSIGN_OR_RAISE(std::string name, c.Text(topic, "source.topic"));
    out->topics.push_back(name);
  }
  if (out->topics.empty()) return c.Error(topic, "source.topic", "names no topic");
  std::set<std::string> seen;
  for (const std::string& t : out->topics) {
    bool legal = !t.empty() && t.size() <= 249 && t != "." && t != "..";
    for (char ch : t) {
      legal = legal &&
              (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-');
    }
    if (!legal) return c.Error(topic, "source.topic", "not a legal Kafka topic name: '" + t + "'");
    if (!seen.insert(t).second) return c.Error(topic, "source.topic", "'" + t + "' given twice");
  }
  return Status::OK();
}

Status ParseKafka(const Checker& c, const YAML::Node& node, const std::string& base_dir,
                  KafkaSourceSpec* out) {
  FJORD_RETURN_NOT_OK(c.Keys(node, "source",
                             {"type", "bootstrap-servers", "topic", "format", "group-id", "start",
                              "properties", "discovery-interval", "on-error", "dead-letter",
                              "batch-rows", "type-mapping", "topic-pattern", "decode-threads"}));
  if (!node["bootstrap-servers"]) {
    return c.Error(node, "source.bootstrap-servers", "missing (host:port[,host:port...])");
  }
  FJORD_ASSIGN_OR_RAISE(out->bootstrap_servers,
                        c.Text(node["bootstrap-servers"], "source.bootstrap-servers"));
  if (out->bootstrap_servers.empty()) {
    return c.Error(node["bootstrap-servers"], "source.bootstrap-servers", "must not be empty");
  }
  const YAML::Node topic = node["topic"];
  if (const YAML::Node pattern = node["topic-pattern"]) {
    if (topic) return c.Error(pattern, "source.topic-pattern", "topic or topic-pattern, not both");
    FJORD_ASSIGN_OR_RAISE(out->topic_pattern, c.Text(pattern, "source.topic-pattern"));
    try {
      std::regex check(out->topic_pattern);
    } catch (const std::regex_error& e) {
      return c.Error(pattern, "source.topic-pattern",
                     std::string("not a regular expression: ") + e.what());
    }
  } else if (!topic) {
    return c.Error(node, "source.topic",
                   "missing (a topic or a list of topics; or source.topic-pattern)");
  }
  if (topic) FJORD_RETURN_NOT_OK(ParseTopics(c, topic, out));
  if (node["format"]) {
    FJORD_ASSIGN_OR_RAISE(out->format, c.Text(node["format"], "source.format"));
    if (out->format != "jsonl" && !IsCdcFormat(out->format)) {
      return c.Error(node["format"], "source.format",
                     "unknown format '" + out->format +
                         "' (kafka: jsonl, one JSON object per message value" + CdcFormatList() +
                         ")");
    }
  }
  if (node["group-id"]) {
    FJORD_ASSIGN_OR_RAISE(out->group_id, c.Text(node["group-id"], "source.group-id"));
    if (out->group_id.empty()) return c.Error(node["group-id"], "source.group-id", "is empty");
  }
  if (node["start"]) {
    FJORD_ASSIGN_OR_RAISE(out->start, c.Text(node["start"], "source.start"));
    const std::string prefix = "timestamp:";
    if (out->start.rfind(prefix, 0) == 0) {
      std::string ms = out->start.substr(prefix.size());
      bool digits = !ms.empty() && ms.size() <= 15;
      for (char ch : ms) digits = digits && std::isdigit(static_cast<unsigned char>(ch));
      if (!digits) {
        return c.Error(
            node["start"], "source.start",
            "timestamp:<ms> needs milliseconds since the epoch, got '" + out->start + "'");
      }
      out->start_timestamp_ms = std::stoll(ms);
    } else if (out->start != "earliest" && out->start != "latest") {
      return c.Error(node["start"], "source.start",
                     "must be earliest, latest or timestamp:<ms>, got '" + out->start + "'");
    }
  }
  if (const YAML::Node props = node["properties"]) {
    if (!props.IsMap()) return c.Error(props, "source.properties", "must be a mapping");
    for (const auto& kv : props) {
      std::string key = kv.first.Scalar();
      std::string name = "source.properties." + key;
      FJORD_ASSIGN_OR_RAISE(std::string value, c.Text(kv.second, name));
      Status valid = CheckKafkaProperty(key, value);
      if (!valid.ok()) return c.Error(kv.first, name, valid.message());
      out->properties[key] = value;
    }
  }
  if (node["discovery-interval"]) {
    FJORD_ASSIGN_OR_RAISE(out->discovery_interval_ms,
                          c.Duration(node["discovery-interval"], "source.discovery-interval"));
  }
  return ParseOnError(c, node, base_dir, &out->on_error, &out->dead_letter);
}

Status ParsePostgres(const Checker& c, const YAML::Node& node, PostgresSourceSpec* out) {
  FJORD_RETURN_NOT_OK(
      c.Keys(node, "source",
             {"type", "host", "port", "user", "password", "database", "schemas", "tables", "slot",
              "publication", "create-slot", "create-publication", "status-interval",
              "discovery-interval", "snapshot-fetch-rows", "batch-rows", "type-mapping"}));
  if (!node["database"]) return c.Error(node, "source.database", "missing (the database to read)");
  FJORD_ASSIGN_OR_RAISE(out->database, c.Text(node["database"], "source.database"));
  if (node["host"]) {
    FJORD_ASSIGN_OR_RAISE(out->host, c.Text(node["host"], "source.host"));
  }
  if (node["port"]) {
    FJORD_ASSIGN_OR_RAISE(int64_t port, c.Integer(node["port"], "source.port", 1));
    if (port > 65535) return c.Error(node["port"], "source.port", "at most 65535");
    out->port = static_cast<int>(port);
  }
  if (node["user"]) {
    FJORD_ASSIGN_OR_RAISE(out->user, c.Text(node["user"], "source.user"));
  }
  if (node["password"]) {
    FJORD_ASSIGN_OR_RAISE(out->password, c.Text(node["password"], "source.password"));
  }
  if (node["schemas"]) {
    FJORD_ASSIGN_OR_RAISE(out->schemas, c.List(node["schemas"], "source.schemas"));
  }
  if (node["tables"]) {
    FJORD_ASSIGN_OR_RAISE(out->tables, c.List(node["tables"], "source.tables"));
    for (const std::string& t : out->tables) {
      try {
        std::regex check(t);
      } catch (const std::regex_error& e) {
        return c.Error(node["tables"], "source.tables",
                       "'" + t + "' is not a regular expression: " + e.what());
      }
    }
  }
  if (node["slot"]) {
    FJORD_ASSIGN_OR_RAISE(out->slot_name, c.Text(node["slot"], "source.slot"));
  }
  if (node["publication"]) {
    FJORD_ASSIGN_OR_RAISE(out->publication_name, c.Text(node["publication"], "source.publication"));
  }
  const std::pair<const char*, bool*> flags[] = {{"create-slot", &out->create_slot},
                                                 {"create-publication", &out->create_publication}};
  for (const auto& [key, target] : flags) {
    if (!node[key]) continue;
    std::string name = std::string("source.") + key;
    FJORD_ASSIGN_OR_RAISE(std::string text, c.Text(node[key], name));
    if (text != "true" && text != "false") {
      return c.Error(node[key], name, "must be true or false, got '" + text + "'");
    }
    *target = text == "true";
  }
  if (node["status-interval"]) {
    FJORD_ASSIGN_OR_RAISE(out->status_interval_ms,
                          c.Duration(node["status-interval"], "source.status-interval"));
  }
  if (node["discovery-interval"]) {
    FJORD_ASSIGN_OR_RAISE(out->discovery_interval_ms,
                          c.Duration(node["discovery-interval"], "source.discovery-interval"));
  }
  if (node["snapshot-fetch-rows"]) {
    FJORD_ASSIGN_OR_RAISE(out->snapshot_fetch_rows,
                          c.Integer(node["snapshot-fetch-rows"], "source.snapshot-fetch-rows", 1));
  }
  return Status::OK();
}

Status ParseSource(const Checker& c, const YAML::Node& node, const std::string& base_dir,
                   SourceSpec* out) {
  if (!node.IsMap()) return c.Error(node, "source", "must be a mapping");
  if (!node["type"]) {
    return c.Error(node, "source.type", "missing (files, datagen, kafka or postgres)");
  }
  FJORD_ASSIGN_OR_RAISE(out->type, c.Text(node["type"], "source.type"));
  if (out->type == "files") {
    FJORD_RETURN_NOT_OK(
        c.Keys(node, "source",
               {"type", "path", "pattern", "format", "csv-null", "poll-interval", "batch-rows",
                "on-error", "dead-letter", "type-mapping", "decode-threads"}));
    if (!node["path"]) return c.Error(node, "source.path", "missing (the directory to read)");
    FJORD_ASSIGN_OR_RAISE(out->files.path, c.Path(node["path"], "source.path", base_dir));
    if (node["pattern"]) {
      FJORD_ASSIGN_OR_RAISE(out->files.pattern, c.Text(node["pattern"], "source.pattern"));
    }
    if (node["format"]) {
      FJORD_ASSIGN_OR_RAISE(out->files.format, c.Text(node["format"], "source.format"));
      if (IsCdcFormat(out->files.format)) {
        out->cdc_format = out->files.format;
        out->files.format = "jsonl";  // one message per line
      } else if (out->files.format != "jsonl" && out->files.format != "csv") {
        return c.Error(
            node["format"], "source.format",
            "unknown format '" + out->files.format + "' (jsonl, csv" + CdcFormatList() + ")");
      }
    }
    if (node["csv-null"]) {
      FJORD_ASSIGN_OR_RAISE(out->files.csv_null, c.Text(node["csv-null"], "source.csv-null"));
    }
    if (node["poll-interval"]) {
      FJORD_ASSIGN_OR_RAISE(out->files.poll_interval_ms,
                            c.Duration(node["poll-interval"], "source.poll-interval"));
    }
    FJORD_RETURN_NOT_OK(
        ParseOnError(c, node, base_dir, &out->files.on_error, &out->files.dead_letter));
  } else if (out->type == "datagen") {
    FJORD_RETURN_NOT_OK(c.Keys(
        node, "source",
        {"type", "rows-per-second", "rows", "key-range", "update-ratio", "seed", "batch-rows"}));
    DatagenSourceSpec& d = out->datagen;
    if (node["rows-per-second"]) {
      FJORD_ASSIGN_OR_RAISE(d.rows_per_second,
                            c.Number(node["rows-per-second"], "source.rows-per-second", 0, 1e9));
    }
    if (node["rows"]) {
      FJORD_ASSIGN_OR_RAISE(d.rows, c.Integer(node["rows"], "source.rows", 0));
    }
    if (node["key-range"]) {
      FJORD_ASSIGN_OR_RAISE(d.key_range, c.Integer(node["key-range"], "source.key-range", 1));
    }
    if (node["update-ratio"]) {
      FJORD_ASSIGN_OR_RAISE(d.update_ratio,
                            c.Number(node["update-ratio"], "source.update-ratio", 0, 1));
    }
    if (node["seed"]) {
      FJORD_ASSIGN_OR_RAISE(int64_t seed, c.Integer(node["seed"], "source.seed", 0));
      d.seed = static_cast<uint64_t>(seed);
    }
  } else if (out->type == "postgres") {
    FJORD_RETURN_NOT_OK(ParsePostgres(c, node, &out->postgres));
  } else if (out->type == "kafka") {
    FJORD_RETURN_NOT_OK(ParseKafka(c, node, base_dir, &out->kafka));
    if (IsCdcFormat(out->kafka.format)) out->cdc_format = out->kafka.format;
  } else {
    return c.Error(node["type"], "source.type",
                   "unknown source type '" + out->type + "' (files, datagen, kafka or postgres)");
  }
  if (node["batch-rows"]) {
    FJORD_ASSIGN_OR_RAISE(out->batch_rows, c.Integer(node["batch-rows"], "source.batch-rows", 1));
  }
  // CDC formats decode a batch of messages on this many threads (default: one per core).
  out->decode_threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  if (const YAML::Node threads = node["decode-threads"]) {
    if (out->cdc_format.empty()) {
      return c.Error(threads, "source.decode-threads", "only for a CDC format (docs/cdc.md)");
    }
    FJORD_ASSIGN_OR_RAISE(int64_t n, c.Integer(threads, "source.decode-threads", 1));
    if (n > 64) return c.Error(threads, "source.decode-threads", "at most 64");
    out->decode_threads = static_cast<int>(n);
  }
  if (const YAML::Node mapping = node["type-mapping"]) {
    if (out->cdc_format.empty() && out->type != "postgres") {
      return c.Error(mapping, "source.type-mapping", "only for a CDC format (docs/cdc.md)");
    }
    FJORD_ASSIGN_OR_RAISE(out->type_mapping, c.List(mapping, "source.type-mapping"));
    auto parsed = cdc::TypeMapping::Parse(out->type_mapping);
    if (!parsed.ok()) return c.Error(mapping, "source.type-mapping", parsed.status().message());
    out->postgres.type_mapping = *parsed;
  }
  return Status::OK();
}

Status ParseSink(const Checker& c, const YAML::Node& node, const std::string& base_dir,
                 const SourceSpec& source, bool cdc, SinkSpec* out) {
  if (!cdc) {
    FJORD_RETURN_NOT_OK(c.Keys(node, "sink", {"table", "options"}));
  } else {
    FJORD_RETURN_NOT_OK(c.Keys(node, "sink",
                               {"table",
                                "options",
                                "warehouse",
                                "database",
                                "primary-key",
                                "partition-keys",
                                "table-options",
                                "computed-columns",
                                "including-tables",
                                "excluding-tables",
                                "table-prefix",
                                "table-suffix",
                                "table-prefix-db",
                                "table-suffix-db",
                                "table-mapping",
                                "including-dbs",
                                "excluding-dbs",
                                "merge-shards",
                                "multiple-table-partition-keys",
                                "metadata-columns",
                                "metadata-column-prefix"}));
  }
  if (node["table"]) {
    FJORD_ASSIGN_OR_RAISE(out->table, c.Path(node["table"], "sink.table", base_dir));
  }
  if (const YAML::Node options = node["options"]) {
    if (!options.IsMap()) return c.Error(options, "sink.options", "must be a mapping");
    for (const auto& kv : options) {
      std::string key = kv.first.Scalar();
      FJORD_ASSIGN_OR_RAISE(out->options[key], c.Text(kv.second, "sink.options." + key));
    }
  }
  if (!cdc) {
    if (!node["table"]) return c.Error(node, "sink.table", "missing (the table directory)");
    return Status::OK();
  }
  FJORD_RETURN_NOT_OK(ParseCdcSink(c, node, base_dir, out));
  if (node["metadata-columns"]) {
    auto metadata = ParseMetadataColumns(out->metadata_columns, out->metadata_column_prefix,
                                         source.type, source.cdc_format);
    if (!metadata.ok()) {
      return c.Error(node["metadata-columns"], "sink.metadata-columns",
                     metadata.status().message());
    }
  }
  return Status::OK();
}

Status ParsePipeline(const Checker& c, const YAML::Node& node, const std::string& base_dir,
                     PipelineSpec* out) {
  FJORD_RETURN_NOT_OK(c.Keys(
      node, "pipeline",
      {"name", "parallelism", "checkpoint-interval", "checkpoint-timeout", "min-pause", "state-dir",
       "checkpoints-retained", "queue-batches", "metrics-port", "metrics-address"}));
  if (node["metrics-port"]) {
    FJORD_ASSIGN_OR_RAISE(int64_t port,
                          c.Integer(node["metrics-port"], "pipeline.metrics-port", 1));
    if (port > 65535)
      return c.Error(node["metrics-port"], "pipeline.metrics-port", "at most 65535");
    out->metrics_port = static_cast<int>(port);
  }
  if (node["metrics-address"]) {
    FJORD_ASSIGN_OR_RAISE(out->metrics_address,
                          c.Text(node["metrics-address"], "pipeline.metrics-address"));
  }
  if (node["name"]) {
    FJORD_ASSIGN_OR_RAISE(out->name, c.Text(node["name"], "pipeline.name"));
  }
  if (node["parallelism"]) {
    FJORD_ASSIGN_OR_RAISE(int64_t p, c.Integer(node["parallelism"], "pipeline.parallelism", 1));
    if (p > 256) return c.Error(node["parallelism"], "pipeline.parallelism", "at most 256");
    out->parallelism = static_cast<int>(p);
  }
  if (node["checkpoint-interval"]) {
    FJORD_ASSIGN_OR_RAISE(out->checkpoint_interval_ms,
                          c.Duration(node["checkpoint-interval"], "pipeline.checkpoint-interval"));
  }
  if (node["checkpoint-timeout"]) {
    FJORD_ASSIGN_OR_RAISE(out->checkpoint_timeout_ms,
                          c.Duration(node["checkpoint-timeout"], "pipeline.checkpoint-timeout"));
  }
  if (node["min-pause"]) {
    FJORD_ASSIGN_OR_RAISE(std::string text, c.Text(node["min-pause"], "pipeline.min-pause"));
    auto ms = ParseDurationMillis(text);
    if (!ms.ok()) return c.Error(node["min-pause"], "pipeline.min-pause", ms.status().message());
    out->min_pause_ms = *ms;
  }
  if (!node["state-dir"]) {
    return c.Error(node, "pipeline.state-dir", "missing (where checkpoints are kept)");
  }
  FJORD_ASSIGN_OR_RAISE(out->state_dir, c.Path(node["state-dir"], "pipeline.state-dir", base_dir));
  if (node["checkpoints-retained"]) {
    FJORD_ASSIGN_OR_RAISE(
        int64_t n, c.Integer(node["checkpoints-retained"], "pipeline.checkpoints-retained", 1));
    out->checkpoints_retained = static_cast<int>(std::min<int64_t>(n, 1000));
  }
  if (node["queue-batches"]) {
    FJORD_ASSIGN_OR_RAISE(int64_t n, c.Integer(node["queue-batches"], "pipeline.queue-batches", 1));
    out->queue_batches = static_cast<int>(std::min<int64_t>(n, 1024));
  }
  return Status::OK();
}

}  // namespace

Result<int64_t> ParseDurationMillis(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 15)
    return Status::Invalid("not a duration: '", text, "' (e.g. 500ms, 1s, 2min)");
  int64_t n = std::stoll(text.substr(0, i));
  size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  std::string unit = text.substr(j);
  if (unit.empty() || unit == "ms") return n;
  if (unit == "s") return n * 1000;
  if (unit == "min" || unit == "m") return n * 60000;
  if (unit == "h") return n * 3600000;
  return Status::Invalid("not a duration: '", text, "' (units ms, s, min, h)");
}

Result<JobSpec> ParseJobSpec(const std::string& text, const std::string& file,
                             const std::string& base_dir) {
  Checker c(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::Invalid(file, " line ", e.mark.line + 1, ": not valid YAML: ", e.msg);
  }
  if (!root.IsMap())
    return Status::Invalid(file, ": a job file is a mapping of source, sink, pipeline");
  JobSpec job;
  job.file = file;
  try {
    FJORD_RETURN_NOT_OK(c.Keys(root, "job", {"source", "sink", "pipeline"}));
    for (const char* key : {"source", "sink", "pipeline"}) {
      if (!root[key]) return Status::Invalid(file, ": ", key, ": missing");
    }
    FJORD_RETURN_NOT_OK(ParseSource(c, root["source"], base_dir, &job.source));
    FJORD_RETURN_NOT_OK(ParseSink(c, root["sink"], base_dir, job.source, job.cdc(), &job.sink));
    FJORD_RETURN_NOT_OK(ParsePipeline(c, root["pipeline"], base_dir, &job.pipeline));
  } catch (const YAML::Exception& e) {
    return Status::Invalid(file, " line ", e.mark.line + 1, ": ", e.msg);
  }
  if (job.source.files.on_error == "dead-letter" && job.source.files.dead_letter.empty()) {
    job.source.files.dead_letter =
        (std::filesystem::path(job.pipeline.state_dir) / "dead-letter.jsonl").string();
  }
  if (job.source.kafka.on_error == "dead-letter" && job.source.kafka.dead_letter.empty()) {
    job.source.kafka.dead_letter =
        (std::filesystem::path(job.pipeline.state_dir) / "dead-letter.jsonl").string();
  }
  if (job.pipeline.name.empty()) job.pipeline.name = std::filesystem::path(file).stem().string();
  return job;
}

Result<JobSpec> LoadJobSpec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open job file ", path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string base = std::filesystem::absolute(path).parent_path().string();
  return ParseJobSpec(buffer.str(), path, base);
}

}  // namespace fjord::runtime
