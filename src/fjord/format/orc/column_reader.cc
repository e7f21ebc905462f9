#include "fjord/format/orc/column_reader.h"

#include <arrow/api.h>
#include <arrow/util/bit_util.h>

#include <cstring>
#include <limits>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/orc/byte_rle.h"
#include "fjord/format/orc/column_common.h"

namespace fjord::orc {

// --- Column, Validity, buffers ------------------------------------------------------------------

std::string Column::Where() const {
  std::string out(ctx_.source);
  out += ": ORC column '" + name_ + "' (id " + std::to_string(id_) + ", " +
         OrcTypeKindName(orc().kind) + ")";
  return out;
}

Status Column::StreamError(StreamKind kind, const Status& st) const {
  return Status(st.code(), Where() + ": " + StreamKindName(kind) + " stream: " + st.message());
}

Result<std::string_view> Column::Stream(StreamKind kind) const {
  const std::string* s = OptionalStream(kind);
  if (s == nullptr) return Corrupt("the stripe has no ", StreamKindName(kind), " stream");
  return std::string_view(*s);
}

Status Column::CheckCount(StreamKind kind, int64_t n, uint64_t bytes, uint64_t per_byte) const {
  if (n < 0 || static_cast<uint64_t>(n) / per_byte > bytes) {
    return Corrupt(StreamKindName(kind), " stream of ", bytes, " bytes cannot hold ", n, " values");
  }
  return Status::OK();
}

Result<std::vector<int64_t>> Column::ReadInts(StreamKind kind, bool is_signed, int64_t n) const {
  std::vector<int64_t> out;
  if (n == 0) return out;
  FJORD_ASSIGN_OR_RAISE(std::string_view data, Stream(kind));
  FJORD_RETURN_NOT_OK(CheckCount(kind, n, data.size(), kMaxIntsPerByte));
  out.resize(static_cast<size_t>(n));
  Status st = MakeIntRleDecoder(data, rle(), is_signed)->Next(out.data(), n);
  if (!st.ok()) return StreamError(kind, st);
  return out;
}

Result<std::shared_ptr<arrow::Buffer>> Validity::Bitmap() const {
  if (valid.empty() || non_null == length) return std::shared_ptr<arrow::Buffer>();
  FJORD_ASSIGN_OR_RAISE(auto buffer, ZeroedBuffer(arrow::bit_util::BytesForBits(length)));
  uint8_t* bits = buffer->mutable_data();
  for (int64_t i = 0; i < length; ++i) {
    if (valid[static_cast<size_t>(i)]) arrow::bit_util::SetBit(bits, i);
  }
  return buffer;
}

Result<std::shared_ptr<arrow::Buffer>> UninitializedBuffer(int64_t bytes) {
  FJORD_ARROW_ASSIGN_OR_RAISE(std::unique_ptr<arrow::Buffer> buffer, arrow::AllocateBuffer(bytes));
  return std::shared_ptr<arrow::Buffer>(std::move(buffer));
}

Result<std::shared_ptr<arrow::Buffer>> ZeroedBuffer(int64_t bytes) {
  FJORD_ASSIGN_OR_RAISE(auto buffer, UninitializedBuffer(bytes));
  if (bytes > 0) std::memset(buffer->mutable_data(), 0, static_cast<size_t>(bytes));
  return buffer;
}

Result<Validity> ReadValidity(const Column& column, int64_t length, const uint8_t* parent_valid) {
  Validity v;
  v.length = length;
  int64_t candidates = length;
  if (parent_valid != nullptr) {
    candidates = 0;
    for (int64_t i = 0; i < length; ++i) candidates += parent_valid[i] != 0;
  }
  const std::string* present = column.OptionalStream(StreamKind::kPresent);
  if (present == nullptr) {
    v.non_null = candidates;
    if (parent_valid != nullptr && candidates != length)
      v.valid.assign(parent_valid, parent_valid + length);
    return v;
  }
  FJORD_RETURN_NOT_OK(
      column.CheckCount(StreamKind::kPresent, candidates, present->size(), kMaxBitsPerByte));
  std::vector<uint8_t> bits(static_cast<size_t>(candidates));
  Status st = BoolRleDecoder(*present).Next(bits.data(), candidates);
  if (!st.ok()) return column.StreamError(StreamKind::kPresent, st);
  v.valid.assign(static_cast<size_t>(length), 0);
  int64_t j = 0;
  for (int64_t i = 0; i < length; ++i) {
    if (parent_valid != nullptr && parent_valid[i] == 0) continue;
    uint8_t b = bits[static_cast<size_t>(j++)];
    v.valid[static_cast<size_t>(i)] = b;
    v.non_null += b;
  }
  return v;
}

namespace {

bool IsIntegerKind(OrcTypeKind k) {
  return k == OrcTypeKind::kByte || k == OrcTypeKind::kShort || k == OrcTypeKind::kInt ||
         k == OrcTypeKind::kLong;
}

// Whether ORC kind `k` can be read as Paimon type `t`.
bool Compatible(OrcTypeKind k, const DataType& t) {
  switch (t.root()) {
    case TypeRoot::kBoolean:
      return k == OrcTypeKind::kBoolean;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kTime:
      return IsIntegerKind(k);
    case TypeRoot::kFloat:
      return k == OrcTypeKind::kFloat;
    case TypeRoot::kDouble:
      return k == OrcTypeKind::kDouble || k == OrcTypeKind::kFloat;
    case TypeRoot::kDecimal:
      return k == OrcTypeKind::kDecimal;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return k == OrcTypeKind::kString || k == OrcTypeKind::kChar || k == OrcTypeKind::kVarchar;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      return k == OrcTypeKind::kBinary;
    case TypeRoot::kDate:
      return k == OrcTypeKind::kDate;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return k == OrcTypeKind::kTimestamp || k == OrcTypeKind::kTimestampInstant;
    case TypeRoot::kArray:
    case TypeRoot::kVector:
      return k == OrcTypeKind::kList;
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
      return k == OrcTypeKind::kMap;
    case TypeRoot::kRow:
      return k == OrcTypeKind::kStruct;
  }
  return false;
}

// Offsets of lists or maps from the LENGTH stream: `v.non_null` lengths spread over the valid
// positions. `*total` is the number of child values.
Result<std::shared_ptr<arrow::Buffer>> ReadOffsets(const Column& c, const Validity& v,
                                                   int64_t* total) {
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> lengths,
                        c.ReadInts(StreamKind::kLength, false, v.non_null));
  FJORD_ASSIGN_OR_RAISE(auto buffer, ZeroedBuffer((v.length + 1) * 4));
  auto* offsets = reinterpret_cast<int32_t*>(buffer->mutable_data());
  int64_t sum = 0;
  size_t j = 0;
  for (int64_t i = 0; i < v.length; ++i) {
    offsets[i] = static_cast<int32_t>(sum);
    if (!v.IsValid(i)) continue;
    int64_t n = lengths[j++];
    if (n < 0 || n > std::numeric_limits<int32_t>::max() - sum) {
      return c.Corrupt("LENGTH stream: child values exceed 2^31 - 1 (length ", n, ")");
    }
    sum += n;
  }
  offsets[v.length] = static_cast<int32_t>(sum);
  *total = sum;
  return buffer;
}

Result<std::shared_ptr<arrow::ArrayData>> ReadList(const Column& c, const Validity& v) {
  const OrcType& orc = c.orc();
  int64_t total = 0;
  FJORD_ASSIGN_OR_RAISE(auto offsets, ReadOffsets(c, v, &total));
  const DataType& element = *c.type().element();
  FJORD_ASSIGN_OR_RAISE(auto child, ReadColumn(c.ctx(), orc.subtypes[0], element,
                                               c.name() + ".element", total, nullptr));
  auto type = arrow::list(arrow::field("element", child->type, element.nullable()));
  FJORD_ASSIGN_OR_RAISE(auto bitmap, v.Bitmap());
  return arrow::ArrayData::Make(type, v.length, {bitmap, offsets}, {child}, v.null_count());
}

Result<std::shared_ptr<arrow::ArrayData>> ReadMap(const Column& c, const Validity& v) {
  const OrcType& orc = c.orc();
  bool is_map = c.type().root() == TypeRoot::kMap;
  DataTypePtr count = DataType::Int(false);
  const DataType& key_type = is_map ? *c.type().key() : *c.type().element();
  const DataType& value_type = is_map ? *c.type().value() : *count;
  // MULTISET counts are map<element, int32> with Arrow's default (nullable) value field.
  bool value_nullable = is_map ? value_type.nullable() : true;
  int64_t total = 0;
  FJORD_ASSIGN_OR_RAISE(auto offsets, ReadOffsets(c, v, &total));
  FJORD_ASSIGN_OR_RAISE(
      auto keys, ReadColumn(c.ctx(), orc.subtypes[0], key_type, c.name() + ".key", total, nullptr));
  FJORD_ASSIGN_OR_RAISE(auto values, ReadColumn(c.ctx(), orc.subtypes[1], value_type,
                                                c.name() + ".value", total, nullptr));
  bool as_list = c.id() < c.ctx().maps_as_lists.size() && c.ctx().maps_as_lists[c.id()];
  std::shared_ptr<arrow::DataType> type;
  std::shared_ptr<arrow::DataType> entries_type;
  if (as_list) {
    entries_type = arrow::struct_({arrow::field("key", keys->type, true),
                                   arrow::field("value", values->type, value_nullable)});
    type = arrow::list(arrow::field("entries", entries_type, false));
  } else {
    if (keys->GetNullCount() > 0) {
      return c.Corrupt("MAP keys hold NULLs although the file's statistics say they hold none");
    }
    auto map_type =
        std::make_shared<arrow::MapType>(arrow::field("key", keys->type, false),
                                         arrow::field("value", values->type, value_nullable));
    entries_type = map_type->value_type();
    type = map_type;
  }
  auto entries = arrow::ArrayData::Make(entries_type, total, {nullptr}, {keys, values}, 0);
  FJORD_ASSIGN_OR_RAISE(auto bitmap, v.Bitmap());
  return arrow::ArrayData::Make(type, v.length, {bitmap, offsets}, {entries}, v.null_count());
}

Result<std::shared_ptr<arrow::ArrayData>> ReadStruct(const Column& c, const Validity& v) {
  const OrcType& orc = c.orc();
  arrow::FieldVector fields;
  std::vector<std::shared_ptr<arrow::ArrayData>> children;
  for (const DataField& f : c.type().fields()) {
    size_t i = 0;
    while (i < orc.field_names.size() && orc.field_names[i] != f.name) ++i;
    if (i == orc.field_names.size() || i >= orc.subtypes.size()) {
      return c.Corrupt("STRUCT has no field '", f.name, "'");
    }
    FJORD_ASSIGN_OR_RAISE(auto child, ReadColumn(c.ctx(), orc.subtypes[i], *f.type,
                                                 c.name() + "." + f.name, v.length, v.data()));
    fields.push_back(arrow::field(f.name, child->type, f.type->nullable()));
    children.push_back(std::move(child));
  }
  FJORD_ASSIGN_OR_RAISE(auto bitmap, v.Bitmap());
  return arrow::ArrayData::Make(arrow::struct_(fields), v.length, {bitmap}, children,
                                v.null_count());
}

}  // namespace

Result<std::shared_ptr<arrow::ArrayData>> ReadColumn(const ColumnContext& ctx, uint32_t column,
                                                     const DataType& type, const std::string& name,
                                                     int64_t length, const uint8_t* parent_valid) {
  if (column >= ctx.types->size()) {
    return Status::Corruption(ctx.source, ": ORC column '", name, "': no type ", column);
  }
  Column c(ctx, column, type, name);
  OrcTypeKind kind = c.orc().kind;
  if (!Compatible(kind, type)) {
    return Status::NotImplemented(c.Where(), ": cannot be read as ", type.ToString());
  }
  FJORD_ASSIGN_OR_RAISE(Validity v, ReadValidity(c, length, parent_valid));
  switch (kind) {
    case OrcTypeKind::kList:
      return ReadList(c, v);
    case OrcTypeKind::kMap:
      return ReadMap(c, v);
    case OrcTypeKind::kStruct:
      return ReadStruct(c, v);
    default:
      break;
  }
  FJORD_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(type));
  switch (kind) {
    case OrcTypeKind::kBoolean:
      return ReadBoolean(c, v, arrow_type);
    case OrcTypeKind::kByte:
    case OrcTypeKind::kShort:
    case OrcTypeKind::kInt:
    case OrcTypeKind::kLong:
    case OrcTypeKind::kDate:
      return ReadInteger(c, v, arrow_type);
    case OrcTypeKind::kFloat:
    case OrcTypeKind::kDouble:
      return ReadFloating(c, v, arrow_type);
    case OrcTypeKind::kString:
    case OrcTypeKind::kChar:
    case OrcTypeKind::kVarchar:
    case OrcTypeKind::kBinary:
      return ReadBinaryLike(c, v, arrow_type);
    case OrcTypeKind::kDecimal:
      return ReadDecimal(c, v, arrow_type);
    case OrcTypeKind::kTimestamp:
    case OrcTypeKind::kTimestampInstant:
      return ReadTimestamp(c, v, arrow_type);
    default:
      return Status::NotImplemented(c.Where(), ": not supported");
  }
}

}  // namespace fjord::orc
