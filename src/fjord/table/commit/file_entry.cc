#include "fjord/table/commit/file_entry.h"

#include <utility>

#include "fjord/expr/partition_text.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/partition_path.h"

namespace fjord {

namespace {

std::vector<DataField> NullablePartitionFields(const TableSchema& schema) {
  std::vector<DataField> fields = schema.FieldsByName(schema.partition_keys);
  for (DataField& f : fields) f.type = f.type->WithNullable(true);
  return fields;
}

std::vector<DataTypePtr> TypesOf(const std::vector<DataField>& fields) {
  std::vector<DataTypePtr> out;
  out.reserve(fields.size());
  for (const DataField& f : fields) out.push_back(f.type);
  return out;
}

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

Predicate Leaf(const DataField& f, const Value& v) {
  Predicate p;
  p.field = f.name;
  p.type = f.type;
  if (v.is_null()) {
    p.op = PredicateOp::kIsNull;
  } else {
    p.op = PredicateOp::kEq;
    p.literals = {v};
  }
  return p;
}

Predicate Combine(PredicateOp op, std::vector<Predicate> children) {
  if (children.size() == 1) return std::move(children[0]);
  Predicate p;
  p.op = op;
  p.children = std::move(children);
  return p;
}

}  // namespace

FileIdentifier IdentifierOf(const ManifestEntry& e) {
  return FileIdentifier{e.partition,         e.bucket,           e.file.level,
                        e.file.file_name,    e.file.extra_files, e.file.embedded_index,
                        e.file.external_path};
}

Status EntryMerger::Add(ManifestEntry entry, std::string_view where) {
  FileIdentifier id = IdentifierOf(entry);
  auto it = index_.find(id);
  if (entry.kind == FileKind::kAdd) {
    if (it != index_.end()) {
      return Status::Corruption(where, where.empty() ? "" : ": ", "file ", entry.file.file_name,
                                " (bucket ", entry.bucket, ", level ", entry.file.level,
                                ") is added twice");
    }
    index_.emplace(std::move(id), entries_.size());
    entries_.push_back(std::move(entry));
    return Status::OK();
  }
  if (it != index_.end()) {
    // ADD then DELETE: both go (whichever kind the held entry is, Java removes it).
    entries_[it->second].reset();
    index_.erase(it);
    return Status::OK();
  }
  index_.emplace(std::move(id), entries_.size());
  entries_.push_back(std::move(entry));
  return Status::OK();
}

Status EntryMerger::AddAll(std::vector<ManifestEntry> entries, std::string_view where) {
  for (ManifestEntry& e : entries) FJORD_RETURN_NOT_OK(Add(std::move(e), where));
  return Status::OK();
}

std::vector<ManifestEntry> EntryMerger::Take() {
  std::vector<ManifestEntry> out;
  out.reserve(index_.size());
  for (auto& e : entries_) {
    if (e) out.push_back(std::move(*e));
  }
  entries_.clear();
  index_.clear();
  return out;
}

Result<PartitionFilter> PartitionFilter::Of(std::set<std::string> partitions,
                                            const TableSchema& schema) {
  PartitionFilter f;
  f.fields_ = NullablePartitionFields(schema);
  if (!f.fields_.empty()) {
    std::vector<DataTypePtr> types = TypesOf(f.fields_);
    std::vector<Predicate> alternatives;
    for (const std::string& p : partitions) {
      FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(p, types));
      std::vector<Predicate> conjuncts;
      for (size_t i = 0; i < values.size(); ++i) conjuncts.push_back(Leaf(f.fields_[i], values[i]));
      alternatives.push_back(Combine(PredicateOp::kAnd, std::move(conjuncts)));
    }
    if (alternatives.empty()) {
      Predicate none;
      none.op = PredicateOp::kOr;  // an empty OR: nothing matches
      f.predicate_ = std::move(none);
    } else {
      f.predicate_ = Combine(PredicateOp::kOr, std::move(alternatives));
    }
  }
  f.set_ = std::move(partitions);
  return f;
}

Result<PartitionFilter> PartitionFilter::OfSpecs(
    const std::vector<std::map<std::string, std::string>>& specs, const TableSchema& schema,
    const CoreOptions& options) {
  PartitionFilter f;
  f.fields_ = NullablePartitionFields(schema);
  std::vector<Predicate> alternatives;
  for (const auto& spec : specs) {
    if (spec.empty()) return All();
    Result<Predicate> p = PartitionSpecPredicate(spec, f.fields_, options.partition_default_name());
    if (!p.ok()) return p.status().WithContext("partition spec");
    alternatives.push_back(std::move(*p));
  }
  if (alternatives.empty()) {
    Predicate none;
    none.op = PredicateOp::kOr;  // an empty OR: nothing matches
    f.predicate_ = std::move(none);
  } else {
    f.predicate_ = Combine(PredicateOp::kOr, std::move(alternatives));
  }
  return f;
}

Result<bool> PartitionFilter::MayContain(const ManifestFileMeta& m) const {
  if (!predicate_ || fields_.empty()) return true;
  std::vector<DataTypePtr> types = TypesOf(fields_);
  Result<std::vector<Value>> mins = DecodeStoredBinaryRow(m.partition_stats.min_values, types);
  Result<std::vector<Value>> maxs = DecodeStoredBinaryRow(m.partition_stats.max_values, types);
  if (!mins.ok() || !maxs.ok()) return true;  // statistics we cannot read never prune
  std::map<std::string, ColumnStats> stats;
  for (size_t i = 0; i < fields_.size(); ++i) {
    ColumnStats cs;
    if (!(*mins)[i].is_null()) cs.min = (*mins)[i];
    if (!(*maxs)[i].is_null()) cs.max = (*maxs)[i];
    const auto& nulls = m.partition_stats.null_counts;
    if (nulls && i < nulls->size()) cs.null_count = (*nulls)[i];
    stats[fields_[i].name] = std::move(cs);
  }
  auto lookup = [&](const std::string& name) -> const ColumnStats* {
    auto it = stats.find(name);
    return it == stats.end() ? nullptr : &it->second;
  };
  return predicate_->MayMatch(lookup, m.num_added_files + m.num_deleted_files);
}

Result<bool> PartitionFilter::Contains(const std::string& partition) const {
  if (set_) return set_->count(partition) > 0;
  if (!predicate_) return true;
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> values,
                        DecodeStoredBinaryRow(partition, TypesOf(fields_)));
  auto lookup = [&](const std::string& name) -> const Value* {
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].name == name) return &values[i];
    }
    return nullptr;
  };
  return predicate_->Test(lookup);
}

std::string PartitionDisplay(const std::string& partition, const TableSchema& schema,
                             const CoreOptions& options) {
  std::vector<DataField> fields = NullablePartitionFields(schema);
  if (fields.empty()) return "";
  Result<std::vector<Value>> values = DecodeStoredBinaryRow(partition, TypesOf(fields));
  if (!values.ok()) return "0x" + Hex(partition);
  return PartitionText(fields, *values, options.partition_default_name());
}

Result<std::vector<ManifestFileMeta>> ReadDataManifests(FileIO* io, const TablePaths& paths,
                                                        const std::string& format,
                                                        const std::string& base_list,
                                                        const std::string& delta_list) {
  std::vector<ManifestFileMeta> out;
  for (const std::string* list : {&base_list, &delta_list}) {
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> metas,
                          ReadManifestList(io, paths.ManifestFile(*list), format));
    out.insert(out.end(), std::make_move_iterator(metas.begin()),
               std::make_move_iterator(metas.end()));
  }
  return out;
}

Result<std::vector<ManifestEntry>> ReadMergedEntries(FileIO* io, const TablePaths& paths,
                                                     const std::string& format,
                                                     const std::vector<ManifestFileMeta>& manifests,
                                                     const PartitionFilter& filter) {
  EntryMerger merger;
  for (const ManifestFileMeta& m : manifests) {
    FJORD_ASSIGN_OR_RAISE(bool may, filter.MayContain(m));
    if (!may) continue;
    std::string path = paths.ManifestFile(m.file_name);
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, ReadManifestFile(io, path, format));
    for (ManifestEntry& e : entries) {
      if (!filter.is_all()) {
        FJORD_ASSIGN_OR_RAISE(bool keep, filter.Contains(e.partition));
        if (!keep) continue;
      }
      FJORD_RETURN_NOT_OK(merger.Add(std::move(e), path));
    }
  }
  return merger.Take();
}

}  // namespace fjord
