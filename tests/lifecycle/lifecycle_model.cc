#include "lifecycle_model.h"

#include <sstream>

namespace fjord::lifecycle {

TableConfig TableConfig::Random(std::mt19937_64& rng, bool primary_key) {
  TableConfig c;
  c.primary_key = primary_key;
  c.partitioned = rng() % 2 == 0;
  if (primary_key) {
    c.buckets = 1 + static_cast<int>(rng() % 2);
    const char* producers[] = {"none", "input", "full-compaction"};
    c.producer = producers[rng() % 3];
    // Deletion vectors: Fjord reads them but does not write them yet.
  } else {
    c.buckets = rng() % 2 == 0 ? 2 : -1;
  }
  c.decoupled = rng() % 5 < 2;
  c.auto_tags = rng() % 5 < 3;
  c.file_format = rng() % 4 == 0 ? "orc" : "parquet";
  return c;
}

std::vector<std::pair<std::string, std::string>> TableConfig::Options() const {
  std::vector<std::pair<std::string, std::string>> o = {{"bucket", std::to_string(buckets)},
                                                        {"file.format", file_format}};
  if (primary_key) {
    o.emplace_back("changelog-producer", producer);
    o.emplace_back("num-sorted-run.compaction-trigger", "3");
    if (deletion_vectors) o.emplace_back("deletion-vectors.enabled", "true");
  } else {
    if (buckets > 0) o.emplace_back("bucket-key", "k");
    o.emplace_back("compaction.min.file-num", "3");
  }
  if (decoupled) {
    // Above every snapshot retention the steps draw (docs/maintenance.md: switching between
    // decoupled and coupled leaves long-lived changelogs unprotected, in Java as in Fjord).
    o.emplace_back("changelog.num-retained.min", "9");
    o.emplace_back("changelog.num-retained.max", "14");
    o.emplace_back("changelog.time-retained", "1000 d");
  }
  return o;
}

std::string TableConfig::Describe() const {
  std::ostringstream s;
  s << (primary_key ? "primary-key" : "append") << " bucket=" << buckets
    << (partitioned ? " partitioned" : "") << " format=" << file_format;
  if (primary_key) s << " producer=" << producer << (deletion_vectors ? " dv" : "");
  s << (decoupled ? " decoupled" : "") << (auto_tags ? " auto-tags" : "");
  return s.str();
}

std::string RowText(int32_t k, int32_t p, const std::string& v) {
  return std::to_string(k) + "|" + std::to_string(p) + "|" + v;
}

std::multiset<std::string> State::Rows() const {
  std::multiset<std::string> out;
  for (const auto& [k, values] : by_key) {
    for (const std::string& v : values) out.insert(RowText(k, k % 2, v));
  }
  return out;
}

size_t State::size() const {
  size_t n = 0;
  for (const auto& [k, values] : by_key) n += values.size();
  return n;
}

std::string DiffRows(const std::multiset<std::string>& got,
                     const std::multiset<std::string>& want) {
  std::ostringstream s;
  s << got.size() << " rows, want " << want.size() << ";";
  int shown = 0;
  for (const std::string& r : want) {
    if (got.count(r) < want.count(r) && shown++ < 5) s << " missing " << r;
  }
  for (const std::string& r : got) {
    if (want.count(r) < got.count(r) && shown++ < 10) s << " extra " << r;
  }
  return s.str();
}

}  // namespace fjord::lifecycle
