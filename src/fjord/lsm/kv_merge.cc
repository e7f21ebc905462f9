#include "fjord/lsm/kv_merge.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <cstring>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/gather_rows.h"
#include "fjord/lsm/merge_engine.h"
#include "fjord/meta/core_options.h"
#include "fjord/options.h"

namespace fjord {

namespace {

class BatchRunReader : public KvRunReader {
 public:
  explicit BatchRunReader(std::vector<std::shared_ptr<arrow::RecordBatch>> batches)
      : batches_(std::move(batches)) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= batches_.size()) return std::shared_ptr<arrow::RecordBatch>();
    return std::move(batches_[next_++]);
  }
  bool RestInMemory() const override { return true; }

 private:
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  size_t next_ = 0;
};

bool IsRetractByte(int8_t kind) { return kind == 1 || kind == 3; }

}  // namespace

std::unique_ptr<KvRunReader> MakeBatchRunReader(
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches) {
  return std::make_unique<BatchRunReader>(std::move(batches));
}

Result<std::shared_ptr<arrow::RecordBatch>> TakeRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<int64_t>& indices,
    arrow::MemoryPool* pool) {
  // Writers take rows before any reader has registered Arrow's compute functions, on several
  // threads at once (`array_take` unknown otherwise).
  EnsureArrowCompute();
  if (!pool) pool = arrow::default_memory_pool();
  arrow::Int64Builder b(pool);
  FJORD_ARROW_RETURN_NOT_OK(b.AppendValues(indices));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto idx, b.Finish());
  arrow::compute::ExecContext context(pool);
  FJORD_ARROW_ASSIGN_OR_RAISE(
      arrow::Datum taken, arrow::compute::Take(arrow::Datum(batch), idx,
                                               arrow::compute::TakeOptions::Defaults(), &context));
  return taken.record_batch();
}

Result<std::unique_ptr<MergeFunction>> CreateKvMergeFunction(const TableSchema& schema) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  if (options.merge_engine() == MergeEngine::kDeduplicate && !options.ignore_delete()) {
    return std::unique_ptr<MergeFunction>();
  }
  MergeContext ctx{schema.fields, schema.primary_keys, schema.EffectiveOptions()};
  return CreateMergeFunction(ctx);
}

class KvMergeReader::Impl {
 public:
  Impl(const KvLayout& layout, std::unique_ptr<MergeFunction> merge, KvMergeOptions options)
      : layout_(layout), merge_(std::move(merge)), options_(options) {}

  Status Init(std::vector<std::unique_ptr<KvRunReader>> runs) {
    EnsureArrowCompute();
    FJORD_ASSIGN_OR_RAISE(key_encoder_, layout_.KeyEncoder());
    FJORD_ASSIGN_OR_RAISE(order_encoder_, layout_.OrderEncoder());
    if (options_.full_changelog) {
      if (options_.keep_all_records) {
        return Status::Invalid("a full-compaction changelog needs merged records");
      }
      if (options_.full_changelog->max_level_runs.size() != runs.size()) {
        return Status::Invalid("full-compaction changelog: ", runs.size(), " runs but ",
                               options_.full_changelog->max_level_runs.size(), " run flags");
      }
    }
    if (options_.lookup) {
      if (options_.full_changelog || options_.keep_all_records) {
        return Status::Invalid(
            "a lookup merge goes with neither a full-compaction changelog "
            "nor unmerged output");
      }
      if (options_.run_levels.size() != runs.size()) {
        return Status::Invalid("lookup merge: ", runs.size(), " runs but ",
                               options_.run_levels.size(), " run levels");
      }
    }
    // Every key of a changelog or lookup merge goes through the merge.
    passthrough_ = runs.size() == 1 && options_.runs_have_unique_keys && !options_.full_changelog &&
                   !options_.lookup;
    for (auto& r : runs) {
      cursors_.push_back(Cursor{std::move(r)});
    }
    if (passthrough_) return Status::OK();
    for (size_t i = 0; i < cursors_.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(bool live, Load(cursors_[i]));
      if (live) heap_.push_back(i);
    }
    std::make_heap(heap_.begin(), heap_.end(), HeapLess{this});
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() {
    if (passthrough_) return NextPassthrough();
    changelog_batch_.reset();
    while (!heap_.empty() &&
           static_cast<int64_t>(refs_.size() + changelog_.size()) < options_.batch_rows) {
      FJORD_RETURN_NOT_OK(NextGroup());
    }
    if (refs_.empty() && changelog_.empty()) return std::shared_ptr<arrow::RecordBatch>();
    return Materialize();
  }

  std::shared_ptr<arrow::RecordBatch> TakeChangelog() { return std::move(changelog_batch_); }

  // KvMergeReader::SplitOff. Between calls to Next no key is half merged: refs_ is empty.
  Result<std::unique_ptr<Impl>> SplitOff(std::unique_ptr<MergeFunction> merge, int64_t min_rows) {
    if (passthrough_ || options_.lookup || options_.full_changelog || options_.keep_all_records ||
        heap_.empty()) {
      return std::unique_ptr<Impl>();
    }
    for (size_t i : heap_) {
      if (!cursors_[i].reader->RestInMemory()) return std::unique_ptr<Impl>();
    }
    // The batches each live run has after its current one, read out of its reader (no decoding:
    // they are in memory), then handed back to it until the cut below says otherwise.
    std::vector<std::vector<std::shared_ptr<arrow::RecordBatch>>> rests(cursors_.size());
    size_t widest = heap_.front();
    int64_t widest_rows = 0, total = 0;
    for (size_t i : heap_) {
      Cursor& c = cursors_[i];
      int64_t rows = c.end - c.row;
      while (true) {
        FJORD_ASSIGN_OR_RAISE(auto batch, c.reader->Next());
        if (!batch) break;
        if (batch->num_rows() == 0) continue;
        rows += batch->num_rows();
        rests[i].push_back(std::move(batch));
      }
      c.reader = MakeBatchRunReader(rests[i]);
      total += rows;
      if (rows > widest_rows) widest = i, widest_rows = rows;
    }
    if (total < min_rows || widest_rows < 2) return std::unique_ptr<Impl>();
    // The split key: the middle record left in the widest run. Records up to it stay here.
    std::string split;
    {
      const Cursor& c = cursors_[widest];
      int64_t at = widest_rows / 2 - 1;
      if (at < c.end - c.row) {
        split.assign(c.keys[c.row + at]);
      } else {
        at -= c.end - c.row;
        for (const auto& batch : rests[widest]) {
          if (at < batch->num_rows()) {
            FJORD_ASSIGN_OR_RAISE(split, KeyAt(*batch, at));
            break;
          }
          at -= batch->num_rows();
        }
      }
    }
    // Each run cut before its first key above the split key.
    std::vector<std::vector<std::shared_ptr<arrow::RecordBatch>>> right(cursors_.size());
    int64_t right_rows = 0;
    std::vector<size_t> live;
    for (size_t i : heap_) {
      Cursor& c = cursors_[i];
      std::vector<std::shared_ptr<arrow::RecordBatch>>& rest = rests[i];
      int64_t lo = c.row, hi = c.end;  // first row of the current batch above the split key
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (CompareEncoded(c.keys[mid], split) > 0) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      if (lo < c.end) {
        right[i].push_back(c.batch->Slice(lo, c.end - lo));
        right[i].insert(right[i].end(), rest.begin(), rest.end());
        rest.clear();
        c.end = lo;
      } else {
        size_t b = 0;
        int64_t row = 0;
        for (; b < rest.size(); ++b) {
          FJORD_ASSIGN_OR_RAISE(row, FirstAbove(*rest[b], split));
          if (row < rest[b]->num_rows()) break;
        }
        if (b < rest.size()) {
          right[i].push_back(rest[b]->Slice(row));
          right[i].insert(right[i].end(), rest.begin() + static_cast<std::ptrdiff_t>(b) + 1,
                          rest.end());
          rest.resize(b + (row > 0 ? 1 : 0));
          if (row > 0) rest[b] = rest[b]->Slice(0, row);
        }
      }
      for (const auto& batch : right[i]) right_rows += batch->num_rows();
      c.reader = MakeBatchRunReader(std::move(rest));
      if (c.row < c.end) {
        live.push_back(i);
      } else {
        FJORD_ASSIGN_OR_RAISE(bool more, Load(c));
        if (more) live.push_back(i);
      }
    }
    heap_ = std::move(live);
    std::make_heap(heap_.begin(), heap_.end(), HeapLess{this});
    if (right_rows == 0) return std::unique_ptr<Impl>();
    auto piece = std::make_unique<Impl>(layout_, std::move(merge), options_);
    std::vector<std::unique_ptr<KvRunReader>> runs;
    for (auto& batches : right) runs.push_back(MakeBatchRunReader(std::move(batches)));
    FJORD_RETURN_NOT_OK(piece->Init(std::move(runs)));
    return piece;
  }

  int64_t records_in = 0;
  int64_t records_out = 0;

 private:
  struct Cursor {
    std::unique_ptr<KvRunReader> reader;
    std::shared_ptr<arrow::RecordBatch> batch;
    int source = -1;  // index into sources_ of the current batch
    EncodedRows keys;
    EncodedRows order;
    const int8_t* kinds = nullptr;
    int64_t row = 0;
    int64_t end = 0;  // the rows of `batch` this reader merges (fewer after SplitOff)
    // The current row's encodings' first 8 bytes and sizes (EncodedPrefix): most comparisons of
    // two cursors end on them.
    uint64_t key_prefix = 0;
    uint64_t order_prefix = 0;
    size_t key_size = 0;
    size_t order_size = 0;
  };
  using Ref = RowRef;  // a row of sources_ (source -1: of merged_ until Materialize)
  struct ChangelogRef {
    Ref ref;
    RowKind kind;
  };
  struct HeapLess {
    Impl* self;
    // std heaps keep the largest on top; invert for a min-heap on (key, order).
    bool operator()(size_t a, size_t b) const { return self->Less(b, a); }
  };

  bool Less(size_t a, size_t b) const {
    const Cursor& x = cursors_[a];
    const Cursor& y = cursors_[b];
    if (x.key_prefix != y.key_prefix) return x.key_prefix < y.key_prefix;
    int c = PrefixTie(x.keys, x, x.key_size, y.keys, y, y.key_size);
    if (c != 0) return c < 0;
    if (x.order_prefix != y.order_prefix) return x.order_prefix < y.order_prefix;
    c = PrefixTie(x.order, x, x.order_size, y.order, y, y.order_size);
    if (c != 0) return c < 0;
    return a < b;  // equal order: the earlier run first
  }

  static int PrefixTie(const EncodedRows& xe, const Cursor& x, size_t x_size, const EncodedRows& ye,
                       const Cursor& y, size_t y_size) {
    return CompareAfterEqualPrefix(
        x_size, y_size, [&] { return xe[x.row]; }, [&] { return ye[y.row]; });
  }

  static void CachePrefixes(Cursor& c) {
    std::string_view k = c.keys[c.row], o = c.order[c.row];
    c.key_prefix = EncodedPrefix(k);
    c.key_size = k.size();
    c.order_prefix = EncodedPrefix(o);
    c.order_size = o.size();
  }

  // Restores the heap's order below `pos` after heap_[pos]'s cursor moved on (a min-heap on
  // Less: one pass down instead of a pop and a push).
  void SiftDown(size_t pos) {
    const size_t n = heap_.size();
    const size_t moving = heap_[pos];
    while (true) {
      size_t child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && Less(heap_[child + 1], heap_[child])) ++child;
      if (!Less(heap_[child], moving)) break;
      heap_[pos] = heap_[child];
      pos = child;
    }
    heap_[pos] = moving;
  }

  // The key encoding of row `row` of `batch`.
  Result<std::string> KeyAt(const arrow::RecordBatch& batch, int64_t row) const {
    FJORD_ASSIGN_OR_RAISE(EncodedRows one, key_encoder_.Encode(*batch.Slice(row, 1)));
    return std::string(one[0]);
  }

  // The first row of `batch` (ascending keys) whose key is above `key`; num_rows() when none is.
  Result<int64_t> FirstAbove(const arrow::RecordBatch& batch, const std::string& key) const {
    int64_t lo = 0, hi = batch.num_rows();
    FJORD_ASSIGN_OR_RAISE(std::string last, KeyAt(batch, hi - 1));
    if (CompareEncoded(last, key) <= 0) return hi;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      FJORD_ASSIGN_OR_RAISE(std::string at, KeyAt(batch, mid));
      if (CompareEncoded(at, key) > 0) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  // Moves `c` to its next non-empty batch; false at the end of its run.
  Result<bool> Load(Cursor& c) {
    while (true) {
      FJORD_ASSIGN_OR_RAISE(c.batch, c.reader->Next());
      if (!c.batch) return false;
      if (c.batch->num_rows() == 0) continue;
      FJORD_ASSIGN_OR_RAISE(c.keys, key_encoder_.Encode(*c.batch));
      FJORD_ASSIGN_OR_RAISE(c.order, order_encoder_.Encode(*c.batch));
      c.kinds = c.batch->column(layout_.value_kind_column())->data()->GetValues<int8_t>(1);
      c.row = 0;
      c.end = c.batch->num_rows();
      CachePrefixes(c);
      c.source = static_cast<int>(sources_.size());
      sources_.push_back(c.batch);
      return true;
    }
  }

  Result<std::shared_ptr<arrow::RecordBatch>> NextPassthrough() {
    Cursor& c = cursors_[0];
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, c.reader->Next());
      if (!batch) return batch;
      if (batch->num_rows() == 0) continue;
      records_in += batch->num_rows();
      if (options_.drop_retracts) {
        FJORD_ASSIGN_OR_RAISE(batch, DropRetracts(batch));
      }
      if (batch->num_rows() == 0) continue;
      records_out += batch->num_rows();
      return batch;
    }
  }

  Result<std::shared_ptr<arrow::RecordBatch>> DropRetracts(
      const std::shared_ptr<arrow::RecordBatch>& batch) {
    const int8_t* kinds = batch->column(layout_.value_kind_column())->data()->GetValues<int8_t>(1);
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (!IsRetractByte(kinds[r])) keep.push_back(r);
    }
    if (static_cast<int64_t>(keep.size()) == batch->num_rows()) return batch;
    return TakeRows(batch, keep);
  }

  // Pops the records of the smallest key and emits its result.
  Status NextGroup() {
    group_.clear();
    group_runs_.clear();
    const Cursor& first = cursors_[heap_.front()];
    key_.assign(first.keys[first.row]);
    const uint64_t key_prefix = first.key_prefix;
    FJORD_RETURN_NOT_OK(TakeTop());
    while (!heap_.empty()) {
      const Cursor& top = cursors_[heap_.front()];
      if (top.key_prefix != key_prefix) break;
      if ((top.key_size > 8 || key_.size() > 8 || top.key_size != key_.size()) &&
          CompareEncoded(top.keys[top.row], key_) != 0) {
        break;
      }
      FJORD_RETURN_NOT_OK(TakeTop());
    }
    records_in += static_cast<int64_t>(group_.size());
    if (options_.lookup) return LookupGroup();
    // Whether the key passes through unmerged is decided on all its records, before the lookup
    // rule drops some: Java's wrapper counts what it is given, so a key whose records above level
    // 0 are reduced to one still goes through the merge function.
    // The full-compaction changelog still sees every record (its "before" is the max-level one).
    bool lone = group_.size() == 1;
    const std::vector<Ref>& input =
        !options_.run_levels.empty() && !lone ? KeepLowestUpperLevel() : group_;
    if (options_.keep_all_records) {
      refs_.insert(refs_.end(), input.begin(), input.end());
      return Status::OK();
    }
    // The key's result: a record of a run (a lone record, or the last under "the last record
    // wins") or a merged one (source -1, index into merged_).
    std::optional<Ref> after;
    std::optional<RowKind> after_kind;
    FJORD_RETURN_NOT_OK(ResultOf(input, lone, &after, &after_kind));
    if (options_.full_changelog) FJORD_RETURN_NOT_OK(GroupChangelog(after, after_kind));
    if (after && !(options_.drop_retracts && IsRetract(*after_kind))) refs_.push_back(*after);
    return Status::OK();
  }

  // The result of a key's `input` records: the last one when `pass_through` or under "the last
  // record wins", else the merge function's (source -1, index into merged_); none when the
  // merge gives none.
  Status ResultOf(const std::vector<Ref>& input, bool pass_through, std::optional<Ref>* after,
                  std::optional<RowKind>* after_kind) {
    if (pass_through || !merge_) {
      *after = input.back();
      *after_kind = static_cast<RowKind>(KindOf(**after));
      return Status::OK();
    }
    merge_->Reset();
    for (const Ref& r : input) {
      FJORD_ASSIGN_OR_RAISE(MergeRecord record, RecordOf(r));
      FJORD_RETURN_NOT_OK(merge_->Add(record));
    }
    FJORD_ASSIGN_OR_RAISE(std::optional<MergeRecord> result, merge_->GetResult());
    if (result) {
      *after_kind = result->kind;
      merged_.push_back(std::move(*result));
      *after = Ref{-1, static_cast<int64_t>(merged_.size()) - 1};
    }
    return Status::OK();
  }

  // Java's LookupChangelogMergeFunctionWrapper for the current key (KvLookupMergeOptions).
  Status LookupGroup() {
    const KvLookupMergeOptions& lookup = *options_.lookup;
    const std::vector<int32_t>& levels = options_.run_levels;
    std::optional<size_t> high;  // the record of the lowest level above 0
    bool level0 = false;
    for (size_t k = 0; k < group_.size(); ++k) {
      int32_t level = levels[group_runs_[k]];
      if (level == 0) {
        level0 = true;
      } else if (!high || level < levels[group_runs_[*high]]) {
        high = k;
      }
    }
    lookup_input_.clear();
    std::optional<Ref> before;
    std::optional<size_t> insert_at;  // where a looked-up record joins the candidates
    Ref hit_ref{};
    if (high) {
      before = group_[*high];
    } else {
      FJORD_ASSIGN_OR_RAISE(std::optional<KvLookupHit> hit, lookup.lookup(key_));
      if (hit) {
        if (lookup.on_deletion) FJORD_RETURN_NOT_OK(lookup.on_deletion(*hit));
        if (hit->record) {
          if (hit->record->num_rows() != 1) {
            return Status::Invalid("a lookup of ", hit->file_name, " gave ",
                                   hit->record->num_rows(), " rows");
          }
          FJORD_ASSIGN_OR_RAISE(EncodedRows order, order_encoder_.Encode(*hit->record));
          // Java's insertInto: before the first candidate that orders after it.
          insert_at = group_.size();
          for (size_t k = 0; k < group_.size(); ++k) {
            if (CompareEncoded(order[0], group_order_[k]) < 0) {
              insert_at = k;
              break;
            }
          }
          hit_ref = Ref{static_cast<int>(sources_.size()), 0};
          // In the layout's own schema object, so that it concatenates with the runs' batches.
          sources_.push_back(arrow::RecordBatch::Make(layout_.schema, 1, hit->record->columns()));
          before = hit_ref;
        }
      }
    }
    for (size_t k = 0; k <= group_.size(); ++k) {
      if (insert_at && *insert_at == k) lookup_input_.push_back(hit_ref);
      if (k == group_.size()) break;
      if (levels[group_runs_[k]] == 0 || (high && *high == k)) lookup_input_.push_back(group_[k]);
    }
    std::optional<Ref> after;
    std::optional<RowKind> after_kind;
    FJORD_RETURN_NOT_OK(ResultOf(lookup_input_, /*pass_through=*/false, &after, &after_kind));
    if (lookup.produce_changelog && level0) {
      FJORD_RETURN_NOT_OK(LookupChangelog(before, after, after_kind));
    }
    if (after && !(options_.drop_retracts && IsRetract(*after_kind))) refs_.push_back(*after);
    return Status::OK();
  }

  Status LookupChangelog(const std::optional<Ref>& before, const std::optional<Ref>& after,
                         std::optional<RowKind> after_kind) {
    bool after_add = after && !IsRetract(*after_kind);
    bool before_add = before && !IsRetractByte(KindOf(*before));
    if (!before_add) {
      if (after_add) changelog_.push_back(ChangelogRef{*after, RowKind::kInsert});
      return Status::OK();
    }
    if (!after_add) {
      changelog_.push_back(ChangelogRef{*before, RowKind::kDelete});
      return Status::OK();
    }
    return PushUpdate(*before, *after, options_.lookup->row_deduplicate,
                      options_.lookup->compared_fields);
  }

  // -U(before) +U(after), unless `deduplicate` finds the two equal on `fields`.
  Status PushUpdate(const Ref& before, const Ref& after, bool deduplicate,
                    const std::vector<int>& fields) {
    if (deduplicate) {
      FJORD_ASSIGN_OR_RAISE(MergeRecord old_record, RecordOf(before));
      std::vector<Value> new_values;
      if (after.source < 0) {
        new_values = merged_[static_cast<size_t>(after.row)].row;
      } else {
        FJORD_ASSIGN_OR_RAISE(MergeRecord new_record, RecordOf(after));
        new_values = std::move(new_record.row);
      }
      if (RowsEqualOn(old_record.row, new_values, fields)) return Status::OK();
    }
    changelog_.push_back(ChangelogRef{before, RowKind::kUpdateBefore});
    changelog_.push_back(ChangelogRef{after, RowKind::kUpdateAfter});
    return Status::OK();
  }

  // The current key's records that Java's LookupMergeFunction merges: those of level 0 and, of
  // those above, the ones of the lowest level (the lookup rule, kv_merge.h run_levels).
  const std::vector<Ref>& KeepLowestUpperLevel() {
    const std::vector<int32_t>& levels = options_.run_levels;
    int32_t lowest = 0;
    for (size_t run : group_runs_) {
      int32_t level = levels[run];
      if (level > 0 && (lowest == 0 || level < lowest)) lowest = level;
    }
    lookup_input_.clear();
    for (size_t k = 0; k < group_.size(); ++k) {
      int32_t level = levels[group_runs_[k]];
      if (level == 0 || level == lowest) lookup_input_.push_back(group_[k]);
    }
    return lookup_input_;
  }

  // Java's FullChangelogMergeFunctionWrapper for the current key (full_changelog.h).
  Status GroupChangelog(const std::optional<Ref>& after, std::optional<RowKind> after_kind) {
    const std::vector<bool>& top_runs = options_.full_changelog->max_level_runs;
    std::optional<Ref> before;
    for (size_t k = 0; k < group_.size(); ++k) {
      if (!top_runs[group_runs_[k]]) continue;
      if (before) {
        return Status::Invalid("full-compaction changelog: a key is twice in the max level");
      }
      before = group_[k];
    }
    switch (DecideFullChangelog(before.has_value(), group_.size(), after_kind)) {
      case FullChangelogEmit::kNothing:
        return Status::OK();
      case FullChangelogEmit::kInsertAfter:
        changelog_.push_back(ChangelogRef{*after, RowKind::kInsert});
        return Status::OK();
      case FullChangelogEmit::kDeleteBefore:
        changelog_.push_back(ChangelogRef{*before, RowKind::kDelete});
        return Status::OK();
      case FullChangelogEmit::kUpdate:
        break;
    }
    return PushUpdate(*before, *after, options_.full_changelog->row_deduplicate,
                      options_.full_changelog->compared_fields);
  }

  // Records the current row of the heap's top cursor in the group, advances it and restores the
  // heap (the cursor leaves it at the end of its run).
  Status TakeTop() {
    const size_t i = heap_.front();
    Cursor& c = cursors_[i];
    group_.push_back(Ref{c.source, c.row});
    group_runs_.push_back(i);
    if (options_.lookup) {
      if (group_.size() == 1) group_order_.clear();
      group_order_.emplace_back(c.order[c.row]);
    }
    if (++c.row >= c.end) {
      FJORD_ASSIGN_OR_RAISE(bool live, Load(c));
      if (!live) {
        heap_.front() = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) SiftDown(0);
        return Status::OK();
      }
    } else {
      CachePrefixes(c);
    }
    SiftDown(0);
    return Status::OK();
  }

  int8_t KindOf(const Ref& r) const {
    return sources_[static_cast<size_t>(r.source)]
        ->column(layout_.value_kind_column())
        ->data()
        ->GetValues<int8_t>(1)[r.row];
  }

  Result<MergeRecord> RecordOf(const Ref& r) const {
    const arrow::RecordBatch& b = *sources_[static_cast<size_t>(r.source)];
    MergeRecord record;
    record.kind = static_cast<RowKind>(
        b.column(layout_.value_kind_column())->data()->GetValues<int8_t>(1)[r.row]);
    record.sequence_number =
        b.column(layout_.sequence_number_column())->data()->GetValues<int64_t>(1)[r.row];
    record.row.reserve(layout_.fields.size());
    for (size_t f = 0; f < layout_.fields.size(); ++f) {
      FJORD_ASSIGN_OR_RAISE(
          Value v, ValueFromArrow(*b.column(static_cast<int>(f)), r.row, *layout_.fields[f].type));
      record.row.push_back(std::move(v));
    }
    return record;
  }

  Result<std::shared_ptr<arrow::RecordBatch>> MergedBatch() {
    arrow::ArrayVector columns;
    int64_t n = static_cast<int64_t>(merged_.size());
    for (size_t f = 0; f < layout_.fields.size(); ++f) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      FJORD_ARROW_RETURN_NOT_OK(
          arrow::MakeBuilder(arrow::default_memory_pool(),
                             layout_.schema->field(static_cast<int>(f))->type(), &builder));
      for (const MergeRecord& m : merged_) {
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(builder.get(), m.row[f], *layout_.fields[f].type));
      }
      FJORD_ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
      columns.push_back(array);
    }
    arrow::Int64Builder seq;
    arrow::Int8Builder kind;
    for (const MergeRecord& m : merged_) {
      FJORD_ARROW_RETURN_NOT_OK(seq.Append(m.sequence_number));
      FJORD_ARROW_RETURN_NOT_OK(kind.Append(static_cast<int8_t>(m.kind)));
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(auto seq_array, seq.Finish());
    FJORD_ARROW_ASSIGN_OR_RAISE(auto kind_array, kind.Finish());
    columns.push_back(seq_array);
    columns.push_back(kind_array);
    return arrow::RecordBatch::Make(layout_.schema, n, columns);
  }

  // Builds the output batch of refs_ and the changelog batch of changelog_, then keeps only the
  // source batches cursors still point into.
  Result<std::shared_ptr<arrow::RecordBatch>> Materialize() {
    std::vector<std::shared_ptr<arrow::RecordBatch>> all_sources = sources_;
    if (!merged_.empty()) {
      FJORD_ASSIGN_OR_RAISE(auto m, MergedBatch());
      all_sources.push_back(m);
      int merged_source = static_cast<int>(all_sources.size()) - 1;
      for (Ref& r : refs_) {
        if (r.source < 0) r.source = merged_source;
      }
      for (ChangelogRef& c : changelog_) {
        if (c.ref.source < 0) c.ref.source = merged_source;
      }
    }
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> out, Gather(refs_, all_sources));
    if (!changelog_.empty()) {
      std::vector<Ref> refs;
      arrow::Int8Builder kinds;
      FJORD_ARROW_RETURN_NOT_OK(kinds.Reserve(static_cast<int64_t>(changelog_.size())));
      for (const ChangelogRef& c : changelog_) {
        refs.push_back(c.ref);
        kinds.UnsafeAppend(static_cast<int8_t>(c.kind));
      }
      FJORD_ASSIGN_OR_RAISE(auto rows, Gather(refs, all_sources));
      FJORD_ARROW_ASSIGN_OR_RAISE(auto kind_array, kinds.Finish());
      FJORD_ARROW_ASSIGN_OR_RAISE(
          changelog_batch_,
          rows->SetColumn(layout_.value_kind_column(),
                          layout_.schema->field(layout_.value_kind_column()), kind_array));
      changelog_.clear();
    }
    records_out += out->num_rows();
    refs_.clear();
    merged_.clear();
    // Keep only the batches cursors still point into; renumber their sources.
    std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
    for (Cursor& c : cursors_) {
      if (!c.batch) continue;
      c.source = static_cast<int>(kept.size());
      kept.push_back(c.batch);
    }
    sources_ = std::move(kept);
    return out;
  }

  // The rows `refs` point at, in order, as one batch: one slice when they are a contiguous range
  // of one batch, else each value copied from its source (GatherRows).
  Result<std::shared_ptr<arrow::RecordBatch>> Gather(
      const std::vector<Ref>& refs,
      const std::vector<std::shared_ptr<arrow::RecordBatch>>& all_sources) const {
    if (refs.empty()) {
      FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::RecordBatch::MakeEmpty(layout_.schema));
      return empty;
    }
    std::shared_ptr<arrow::RecordBatch> out;
    bool contiguous = true;
    for (size_t i = 1; i < refs.size() && contiguous; ++i) {
      contiguous = refs[i].source == refs[0].source && refs[i].row == refs[i - 1].row + 1;
    }
    if (contiguous) {
      out = all_sources[static_cast<size_t>(refs[0].source)]->Slice(
          refs[0].row, static_cast<int64_t>(refs.size()));
    } else {
      FJORD_ASSIGN_OR_RAISE(out, GatherRows(layout_.schema, all_sources, refs, options_.pool));
    }
    return out;
  }

  const KvLayout layout_;
  std::unique_ptr<MergeFunction> merge_;
  std::string key_;
  KvMergeOptions options_;
  SortKeyEncoder key_encoder_;
  SortKeyEncoder order_encoder_;
  bool passthrough_ = false;
  std::vector<Cursor> cursors_;
  std::vector<size_t> heap_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> sources_;
  std::vector<Ref> refs_;
  std::vector<Ref> group_;
  std::vector<size_t> group_runs_;        // the cursor (run) of each record of group_
  std::vector<Ref> lookup_input_;         // the records of group_ the lookup rule merges
  std::vector<std::string> group_order_;  // lookup merges: the order encoding of each of group_
  std::vector<MergeRecord> merged_;
  std::vector<ChangelogRef> changelog_;  // full_changelog: the records of the keys of refs_
  std::shared_ptr<arrow::RecordBatch> changelog_batch_;
};

KvMergeReader::KvMergeReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KvMergeReader::~KvMergeReader() = default;

Result<std::unique_ptr<KvMergeReader>> KvMergeReader::Make(
    const KvLayout& layout, std::unique_ptr<MergeFunction> merge,
    std::vector<std::unique_ptr<KvRunReader>> runs, KvMergeOptions options) {
  auto impl = std::make_unique<Impl>(layout, std::move(merge), options);
  FJORD_RETURN_NOT_OK(impl->Init(std::move(runs)));
  return std::unique_ptr<KvMergeReader>(new KvMergeReader(std::move(impl)));
}

Result<std::shared_ptr<arrow::RecordBatch>> KvMergeReader::Next() { return impl_->Next(); }
Result<std::unique_ptr<KvMergeReader>> KvMergeReader::SplitOff(std::unique_ptr<MergeFunction> merge,
                                                               int64_t min_rows) {
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<Impl> piece, impl_->SplitOff(std::move(merge), min_rows));
  if (!piece) return std::unique_ptr<KvMergeReader>();
  return std::unique_ptr<KvMergeReader>(new KvMergeReader(std::move(piece)));
}
std::shared_ptr<arrow::RecordBatch> KvMergeReader::TakeChangelog() {
  return impl_->TakeChangelog();
}
int64_t KvMergeReader::records_in() const { return impl_->records_in; }
int64_t KvMergeReader::records_out() const { return impl_->records_out; }

}  // namespace fjord
