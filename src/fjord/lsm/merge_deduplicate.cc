#include "fjord/lsm/merge_deduplicate.h"

#include <utility>

#include "fjord/lsm/merge_options.h"

namespace fjord {

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

Result<std::unique_ptr<MergeFunction>> CreateDeduplicateMergeFunction(const MergeContext& context) {
  FJORD_ASSIGN_OR_RAISE(bool ignore_delete, MergeOptions(context.options).IgnoreDelete());
  return std::unique_ptr<MergeFunction>(new DeduplicateMergeFunction(ignore_delete));
}

Result<std::unique_ptr<MergeFunction>> CreateFirstRowMergeFunction(const MergeContext& context) {
  FJORD_ASSIGN_OR_RAISE(bool ignore_delete, MergeOptions(context.options).IgnoreDelete());
  return std::unique_ptr<MergeFunction>(new FirstRowMergeFunction(ignore_delete));
}

}  // namespace fjord
