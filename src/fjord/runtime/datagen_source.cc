// The `datagen` source: rows made up from their index alone (so a position is a row count and a
// restart regenerates the same rows), at `rows-per-second`. Row i's key is i mod key-range, or,
// with probability update-ratio, a key emitted before (an update of a primary-key table); the
// other columns are derived from (seed, i, column). Key columns: the primary key, else the first
// column. Columns of types it cannot make up are refused when the job starts.

#include <arrow/api.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <set>

#include "fjord/runtime/source.h"

namespace fjord::runtime {

namespace {

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class DatagenSource : public Source {
 public:
  DatagenSource(SourceSpec spec, TableSchema schema, std::vector<bool> is_key)
      : spec_(std::move(spec)),
        d_(spec_.datagen),
        schema_(std::move(schema)),
        is_key_(std::move(is_key)),
        start_(std::chrono::steady_clock::now()) {}

  Status Seek(const std::string& position) override {
    rows_ = 0;
    if (!position.empty()) {
      try {
        rows_ = nlohmann::json::parse(position).at("rows").get<int64_t>();
      } catch (const std::exception& e) {
        return Status::Invalid("datagen source: bad position '", position, "': ", e.what());
      }
    }
    start_ = std::chrono::steady_clock::now();
    emitted_since_start_ = 0;
    return Status::OK();
  }

  std::string Position() const override {
    nlohmann::json j;
    j["rows"] = rows_;
    return j.dump();
  }

  int64_t idle_wait_ms() const override { return 10; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next(bool bounded, bool* end) override {
    *end = false;
    int64_t n = spec_.batch_rows;
    if (d_.rows >= 0) n = std::min(n, d_.rows - rows_);
    if (n <= 0) {
      *end = bounded;
      return nullptr;
    }
    if (d_.rows_per_second > 0) {
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      int64_t allowed = static_cast<int64_t>(seconds * d_.rows_per_second) - emitted_since_start_;
      n = std::min(n, allowed);
      if (n <= 0) return nullptr;
    }
    std::string text;
    for (int64_t i = rows_; i < rows_ + n; ++i) AppendRow(i, &text);
    FJORD_ASSIGN_OR_RAISE(auto batch, ParseChunk(text, false, "", "", schema_, "datagen", 1));
    rows_ += n;
    emitted_since_start_ += n;
    return batch;
  }

 private:
  int64_t KeyOf(int64_t i) const {
    uint64_t h = Mix(d_.seed ^ Mix(static_cast<uint64_t>(i)));
    double u = static_cast<double>(h >> 11) / 9007199254740992.0;
    if (i > 0 && u < d_.update_ratio) {
      int64_t seen = std::min<int64_t>(i, d_.key_range);
      return static_cast<int64_t>(Mix(h) % static_cast<uint64_t>(seen));
    }
    return i % d_.key_range;
  }

  void AppendRow(int64_t i, std::string* out) const {
    int64_t key = KeyOf(i);
    nlohmann::json row = nlohmann::json::object();
    for (size_t f = 0; f < schema_.fields.size(); ++f) {
      const DataField& field = schema_.fields[f];
      uint64_t v = is_key_[f] ? static_cast<uint64_t>(key) * 0x9e3779b97f4a7c15ULL + f
                              : Mix(d_.seed * 31 + f) ^ Mix(static_cast<uint64_t>(i));
      int64_t small = static_cast<int64_t>(is_key_[f] ? static_cast<uint64_t>(key) : v % 1000);
      switch (field.type->root()) {
        case TypeRoot::kBoolean:
          row[field.name] = (v & 1) != 0;
          break;
        case TypeRoot::kTinyInt:
          row[field.name] = small % 128;
          break;
        case TypeRoot::kSmallInt:
          row[field.name] = small % 32768;
          break;
        case TypeRoot::kInt:
          row[field.name] = is_key_[f] ? key : static_cast<int64_t>(v % 1000000);
          break;
        case TypeRoot::kBigInt:
          row[field.name] = is_key_[f] ? key : static_cast<int64_t>(v % 1000000000);
          break;
        case TypeRoot::kFloat:
        case TypeRoot::kDouble:
          row[field.name] = static_cast<double>(v % 100000) / 100.0;
          break;
        default:
          row[field.name] = (is_key_[f] ? "k" : "v") +
                            std::to_string(is_key_[f] ? key : static_cast<int64_t>(v % 1000000));
          break;
      }
    }
    *out += row.dump();
    *out += '\n';
  }

  SourceSpec spec_;
  DatagenSourceSpec d_;
  TableSchema schema_;
  std::vector<bool> is_key_;
  int64_t rows_ = 0;
  std::chrono::steady_clock::time_point start_;
  int64_t emitted_since_start_ = 0;
};

}  // namespace

Result<std::unique_ptr<Source>> MakeDatagenSource(const SourceSpec& spec,
                                                  const TableSchema& schema) {
  std::set<std::string> keys(schema.primary_keys.begin(), schema.primary_keys.end());
  if (keys.empty() && !schema.fields.empty()) keys.insert(schema.fields[0].name);
  std::vector<bool> is_key;
  for (const DataField& f : schema.fields) {
    is_key.push_back(keys.count(f.name) > 0);
    switch (f.type->root()) {
      case TypeRoot::kBoolean:
      case TypeRoot::kTinyInt:
      case TypeRoot::kSmallInt:
      case TypeRoot::kInt:
      case TypeRoot::kBigInt:
      case TypeRoot::kFloat:
      case TypeRoot::kDouble:
      case TypeRoot::kChar:
      case TypeRoot::kVarChar:
        break;
      default:
        return Status::NotImplemented("datagen source: cannot make up values of column '", f.name,
                                      "' (", f.type->ToString(),
                                      "); it makes BOOLEAN, integers, FLOAT, DOUBLE and strings");
    }
  }
  return std::unique_ptr<Source>(new DatagenSource(spec, schema, std::move(is_key)));
}

}  // namespace fjord::runtime
