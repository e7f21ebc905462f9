#include "fjord/table/read/diff_source.h"

#include <arrow/api.h>
#include <arrow/compare.h>

#include "fjord/common/arrow_status.h"
#include "fjord/lsm/kv_merge.h"

namespace fjord {

namespace {

constexpr int8_t kDelete = 3;

bool Adds(int8_t kind) { return kind == 0 || kind == 2; }

class DiffSource : public SplitSource {
 public:
  DiffSource(std::unique_ptr<SplitSource> before, std::unique_ptr<SplitSource> after,
             SortKeyEncoder keys, int kind_column, std::vector<int> output, int64_t batch_rows)
      : keys_(std::move(keys)),
        kind_column_(kind_column),
        output_(std::move(output)),
        batch_rows_(batch_rows > 0 ? batch_rows : 1) {
    before_.source = std::move(before);
    after_.source = std::move(after);
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      FJORD_RETURN_NOT_OK(Fill(&before_));
      FJORD_RETURN_NOT_OK(Fill(&after_));
      if (before_.done && after_.done) return std::shared_ptr<arrow::RecordBatch>();
      // Walk until one side's batch runs out or the output is full; the picks refer to the
      // current batches only.
      std::vector<int64_t> from_before, from_after;
      std::vector<bool> order;  // true: the next row is from_after's
      auto pick_after = [&](int64_t row) {
        from_after.push_back(row);
        order.push_back(true);
      };
      while (static_cast<int64_t>(order.size()) < batch_rows_) {
        bool b = before_.HasRow(), a = after_.HasRow();
        // A used-up batch of a side with more to come: build first, then refill.
        if ((!b && !before_.done) || (!a && !after_.done) || (!b && !a)) break;
        int cmp = 0;
        if (b && a) {
          std::string_view kb = before_.keys[before_.row], ka = after_.keys[after_.row];
          cmp = kb < ka ? -1 : (kb > ka ? 1 : 0);
        } else {
          cmp = b ? -1 : 1;
        }
        if (cmp < 0) {
          if (Adds(before_.Kind(kind_column_))) {
            from_before.push_back(before_.row);
            order.push_back(false);
          }
          ++before_.row;
        } else if (cmp > 0) {
          pick_after(after_.row++);
        } else {
          if (!SameRecord(before_.row, after_.row)) pick_after(after_.row);
          ++before_.row;
          ++after_.row;
        }
      }
      if (order.empty()) continue;
      return Build(from_before, from_after, order);
    }
  }

 private:
  struct Side {
    std::unique_ptr<SplitSource> source;
    std::shared_ptr<arrow::RecordBatch> batch;
    EncodedRows keys;
    int64_t row = 0;
    bool done = false;

    bool HasRow() const { return batch && row < batch->num_rows(); }
    int8_t Kind(int column) const {
      return static_cast<const arrow::Int8Array&>(*batch->column(column)).Value(row);
    }
  };

  // Loads the side's next batch when its current one is used up.
  Status Fill(Side* side) {
    while (!side->done && (!side->batch || side->row >= side->batch->num_rows())) {
      FJORD_ASSIGN_OR_RAISE(side->batch, side->source->Next());
      side->row = 0;
      if (!side->batch) {
        side->done = true;
        break;
      }
      FJORD_ASSIGN_OR_RAISE(side->keys, keys_.Encode(*side->batch));
    }
    return Status::OK();
  }

  // Equal in every column, and both add or both retract (Java compares the whole value row and
  // the kinds' add-ness; NaN equals NaN, -0.0 differs from 0.0, as bytes compare).
  bool SameRecord(int64_t b, int64_t a) const {
    if (Adds(before_.Kind(kind_column_)) != Adds(after_.Kind(kind_column_))) return false;
    static const arrow::EqualOptions kBytes =
        arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false);
    for (int c = 0; c < kind_column_; ++c) {
      const arrow::Array& x = *before_.batch->column(c);
      const arrow::Array& y = *after_.batch->column(c);
      if (!x.type()->Equals(*y.type())) return false;
      if (!x.RangeEquals(y, b, b + 1, a, kBytes)) return false;
    }
    return true;
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Build(const std::vector<int64_t>& from_before,
                                                    const std::vector<int64_t>& from_after,
                                                    const std::vector<bool>& order) {
    std::shared_ptr<arrow::RecordBatch> deletes, news;
    if (!from_before.empty()) {
      FJORD_ASSIGN_OR_RAISE(deletes, TakeRows(before_.batch, from_before));
      FJORD_ARROW_ASSIGN_OR_RAISE(
          auto kinds, arrow::MakeArrayFromScalar(arrow::Int8Scalar(kDelete), deletes->num_rows()));
      FJORD_ARROW_ASSIGN_OR_RAISE(
          deletes, deletes->SetColumn(kind_column_, deletes->schema()->field(kind_column_), kinds));
    }
    if (!from_after.empty()) {
      FJORD_ASSIGN_OR_RAISE(news, TakeRows(after_.batch, from_after));
    }
    std::shared_ptr<arrow::RecordBatch> out;
    if (!news) {
      out = deletes;
    } else if (!deletes) {
      out = news;
    } else {
      if (!deletes->schema()->Equals(*news->schema(), false)) {
        return Status::NotImplemented("an incremental diff of files whose column types differ");
      }
      FJORD_ARROW_ASSIGN_OR_RAISE(auto both, arrow::ConcatenateRecordBatches({deletes, news}));
      // Back into key order: the i-th pick is the next delete or the next new row.
      std::vector<int64_t> positions;
      positions.reserve(order.size());
      int64_t d = 0, n = static_cast<int64_t>(from_before.size());
      for (bool is_new : order) positions.push_back(is_new ? n++ : d++);
      FJORD_ASSIGN_OR_RAISE(out, TakeRows(both, positions));
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(out, out->SelectColumns(output_));
    return out;
  }

  SortKeyEncoder keys_;
  int kind_column_;
  std::vector<int> output_;
  int64_t batch_rows_;
  Side before_;
  Side after_;
};

}  // namespace

std::unique_ptr<SplitSource> MakeDiffSource(std::unique_ptr<SplitSource> before,
                                            std::unique_ptr<SplitSource> after, SortKeyEncoder keys,
                                            int kind_column, std::vector<int> output,
                                            int64_t batch_rows) {
  return std::make_unique<DiffSource>(std::move(before), std::move(after), std::move(keys),
                                      kind_column, std::move(output), batch_rows);
}

}  // namespace fjord
