#include "fjord/lsm/merge_function.h"

#include <charconv>
#include <limits>
#include <string>
#include <utility>

#include "fjord/common/strings.h"
#include "fjord/lsm/merge_internal.h"
#include "fjord/options.h"

namespace fjord {

std::string_view RowKindShortString(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert:
      return "+I";
    case RowKind::kUpdateBefore:
      return "-U";
    case RowKind::kUpdateAfter:
      return "+U";
    case RowKind::kDelete:
      return "-D";
  }
  return "?";
}

Result<RowKind> ParseRowKind(std::string_view text) {
  if (text == "+I") return RowKind::kInsert;
  if (text == "-U") return RowKind::kUpdateBefore;
  if (text == "+U") return RowKind::kUpdateAfter;
  if (text == "-D") return RowKind::kDelete;
  std::string upper = Upper(text);
  if (upper == "INSERT") return RowKind::kInsert;
  if (upper == "UPDATE_BEFORE") return RowKind::kUpdateBefore;
  if (upper == "UPDATE_AFTER") return RowKind::kUpdateAfter;
  if (upper == "DELETE") return RowKind::kDelete;
  return Status::Invalid("unknown row kind '", text, "': expected +I, -U, +U or -D");
}

// ---------------------------------------------------------------------------------------------
// Options

std::string TrimCopy(std::string_view text) { return std::string(Trim(text)); }

std::vector<std::string> SplitLikeJava(std::string_view text, char separator) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    size_t found = text.find(separator, begin);
    if (found == std::string_view::npos) {
      out.emplace_back(text.substr(begin));
      break;
    }
    out.emplace_back(text.substr(begin, found - begin));
    begin = found + 1;
  }
  // Java drops trailing empty strings, except that an empty input stays one empty piece.
  while (out.size() > 1 && out.back().empty()) out.pop_back();
  if (out.size() == 1 && out[0].empty() && !text.empty()) out.clear();
  return out;
}

int FindField(const std::vector<DataField>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<std::string> MergeOptions::Get(std::string_view key) const {
  auto it = options_.find(std::string(key));
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

Result<bool> MergeOptions::GetBool(std::string_view key, bool fallback) const {
  std::optional<std::string> text = Get(key);
  if (!text) return fallback;
  Result<bool> parsed = ParseBoolean(*text);
  if (!parsed.ok()) return parsed.status().WithContext("option '", key, "'");
  return parsed;
}

Result<int32_t> MergeOptions::GetInt32(std::string_view key, int32_t fallback) const {
  std::optional<std::string> text = Get(key);
  if (!text) return fallback;
  std::string t = TrimCopy(*text);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size() || t.empty() ||
      v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("option '", key, "': cannot parse '", *text, "' as an INT");
  }
  return static_cast<int32_t>(v);
}

std::optional<std::string> MergeOptions::FieldOption(std::string_view field,
                                                     std::string_view suffix) const {
  std::string key = "fields.";
  key.append(field).append(".").append(suffix);
  return Get(key);
}

Result<bool> MergeOptions::FieldBool(std::string_view field, std::string_view suffix,
                                     bool fallback) const {
  std::string key = "fields.";
  key.append(field).append(".").append(suffix);
  return GetBool(key, fallback);
}

Result<bool> MergeOptions::IgnoreDelete() const {
  for (std::string_view key : {"ignore-delete", "first-row.ignore-delete",
                               "deduplicate.ignore-delete", "partial-update.ignore-delete"}) {
    if (Get(key)) return GetBool(key, false);
  }
  return false;
}

std::vector<std::string> MergeOptions::SequenceFields() const {
  std::vector<std::string> out;
  std::optional<std::string> text = Get(kSequenceFieldOption);
  if (!text) return out;
  for (const std::string& piece : SplitLikeJava(*text, ',')) out.push_back(TrimCopy(piece));
  return out;
}

// ---------------------------------------------------------------------------------------------
// deduplicate and first-row

namespace {

// Java: DeduplicateMergeFunction. The last record wins, retracts included (readers then drop
// the key); with ignore-delete, retracts (possible in files written by old versions) are skipped.
class DeduplicateMergeFunction final : public MergeFunction {
 public:
  explicit DeduplicateMergeFunction(bool ignore_delete) : ignore_delete_(ignore_delete) {}

  void Reset() override { has_latest_ = false; }

  Status Add(const MergeRecord& record) override {
    if (ignore_delete_ && IsRetract(record.kind)) return Status::OK();
    latest_ = record;
    has_latest_ = true;
    return Status::OK();
  }

  Result<std::optional<MergeRecord>> GetResult() override {
    if (!has_latest_) return std::optional<MergeRecord>();
    return std::optional<MergeRecord>(latest_);
  }

 private:
  bool ignore_delete_;
  bool has_latest_ = false;
  MergeRecord latest_;
};

// Java: FirstRowMergeFunction. The first insert wins; a retract is an error unless
// ignore-delete is set, then it is skipped.
class FirstRowMergeFunction final : public MergeFunction {
 public:
  explicit FirstRowMergeFunction(bool ignore_delete) : ignore_delete_(ignore_delete) {}

  void Reset() override { has_first_ = false; }

  Status Add(const MergeRecord& record) override {
    if (IsRetract(record.kind)) {
      if (ignore_delete_) return Status::OK();
      return Status::Invalid("the first-row merge engine cannot accept ",
                             RowKindShortString(record.kind),
                             " (DELETE/UPDATE_BEFORE) records by default; set 'ignore-delete' = "
                             "'true' to ignore them");
    }
    if (!has_first_) {
      first_ = record;
      has_first_ = true;
    }
    return Status::OK();
  }

  Result<std::optional<MergeRecord>> GetResult() override {
    if (!has_first_) return std::optional<MergeRecord>();
    return std::optional<MergeRecord>(first_);
  }

 private:
  bool ignore_delete_;
  bool has_first_ = false;
  MergeRecord first_;
};

}  // namespace

Result<std::unique_ptr<MergeFunction>> CreateMergeFunction(const MergeContext& context) {
  MergeOptions options(context.options);
  std::string engine = Lower(options.Get(kMergeEngineOption).value_or("deduplicate"));
  if (engine == "deduplicate") {
    FJORD_ASSIGN_OR_RAISE(bool ignore_delete, options.IgnoreDelete());
    return std::unique_ptr<MergeFunction>(new DeduplicateMergeFunction(ignore_delete));
  }
  if (engine == "first-row") {
    FJORD_ASSIGN_OR_RAISE(bool ignore_delete, options.IgnoreDelete());
    return std::unique_ptr<MergeFunction>(new FirstRowMergeFunction(ignore_delete));
  }
  if (engine == "partial-update") return CreatePartialUpdateMergeFunction(context);
  if (engine == "aggregation") return CreateAggregateMergeFunction(context);
  return Status::Invalid("option 'merge-engine': unknown merge engine '",
                         *options.Get(kMergeEngineOption),
                         "'; expected deduplicate, partial-update, aggregation or first-row");
}

}  // namespace fjord
