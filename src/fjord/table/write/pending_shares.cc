#include "fjord/table/write/pending_shares.h"

#include <arrow/record_batch.h>
#include <arrow/util/byte_size.h>

namespace fjord {

int PendingShares::Add(std::shared_ptr<arrow::RecordBatch> batch,
                       const std::vector<Group>& groups) {
  const auto source = static_cast<int>(sources_.size());
  rows_ += batch->num_rows();
  bytes_ += arrow::util::TotalBufferSize(*batch);  // what holding it holds
  sources_.push_back(std::move(batch));
  for (const auto& [bucket, indices] : groups) {
    auto [it, added] = share_of_.emplace(bucket, shares_.size());
    if (added) shares_.push_back({bucket, {}, -1});
    std::vector<RowRef>& refs = shares_[it->second].refs;
    refs.reserve(refs.size() + indices->size());
    for (int64_t row : *indices) refs.push_back({source, row});
  }
  return source;
}

Result<PendingShares::Dealt> PendingShares::Take(arrow::MemoryPool* pool) {
  Dealt out;
  out.sources =
      std::make_shared<const std::vector<std::shared_ptr<arrow::RecordBatch>>>(std::move(sources_));
  out.shares = std::move(shares_);
  *this = PendingShares(max_rows_, max_bytes_);
  const auto& sources = *out.sources;
  int32_t dealt = 0;
  for (Share& share : out.shares) {
    share.dealt = WholeSources(sources, share.refs) ? -1 : dealt++;
  }
  if (dealt == 0) return out;
  // The other shares in one pass over each column of the batches.
  std::vector<std::vector<int32_t>> dest(sources.size());
  for (size_t s = 0; s < sources.size(); ++s) {
    dest[s].assign(static_cast<size_t>(sources[s]->num_rows()), -1);
  }
  for (const Share& share : out.shares) {
    if (share.dealt < 0) continue;
    for (const RowRef& r : share.refs) {
      dest[static_cast<size_t>(r.source)][static_cast<size_t>(r.row)] = share.dealt;
    }
  }
  FJORD_ASSIGN_OR_RAISE(out.scatter, RowScatter::Make(sources.front()->schema(), sources,
                                                      std::move(dest), dealt, pool));
  return out;
}

bool WholeSources(const std::vector<std::shared_ptr<arrow::RecordBatch>>& sources,
                  const std::vector<RowRef>& refs) {
  for (size_t i = 0; i < refs.size();) {
    const auto& source = sources[static_cast<size_t>(refs[i].source)];
    const auto n = static_cast<size_t>(source->num_rows());
    if (n == 0 || refs[i].row != 0 || i + n > refs.size() ||
        refs[i + n - 1].source != refs[i].source || refs[i + n - 1].row + 1 != source->num_rows()) {
      return false;
    }
    i += n;  // rows of one source are ascending: first 0 and last n - 1 means all of them
  }
  return true;
}

}  // namespace fjord
