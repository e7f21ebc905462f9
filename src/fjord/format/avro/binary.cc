#include "fjord/format/avro/binary.h"

#include <bit>
#include <cstring>
#include <limits>

namespace fjord::avro {

namespace {

static_assert(std::endian::native == std::endian::little,
              "Avro floats are little-endian; add byte swapping for big-endian hosts");

int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }
uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

}  // namespace

Status BinaryDecoder::ReadVarint(int max_bytes, uint64_t* out) {
  const uint8_t* start = pos_;
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (pos_ == end_) return Corrupt(start, "truncated varint");
    uint8_t b = *pos_++;
    if (i == 9 && b > 1) return Corrupt(start, "varint overflows 64 bits");
    result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *out = result;
      return Status::OK();
    }
  }
  return Corrupt(start, "varint longer than ", max_bytes, " bytes");
}

Status BinaryDecoder::ReadLong(int64_t* out) {
  // Fast path: a one-byte varint.
  if (pos_ != end_ && (*pos_ & 0x80) == 0) {
    *out = ZigZagDecode(*pos_++);
    return Status::OK();
  }
  uint64_t raw;
  FJORD_RETURN_NOT_OK(ReadVarint(10, &raw));
  *out = ZigZagDecode(raw);
  return Status::OK();
}

Status BinaryDecoder::ReadInt(int32_t* out) {
  if (pos_ != end_ && (*pos_ & 0x80) == 0) {
    *out = static_cast<int32_t>(ZigZagDecode(*pos_++));
    return Status::OK();
  }
  const uint8_t* start = pos_;
  uint64_t raw;
  FJORD_RETURN_NOT_OK(ReadVarint(5, &raw));
  if (raw > std::numeric_limits<uint32_t>::max()) return Corrupt(start, "int out of range");
  *out = static_cast<int32_t>(ZigZagDecode(raw));
  return Status::OK();
}

Status BinaryDecoder::ReadBoolean(bool* out) {
  if (pos_ == end_) return Corrupt(pos_, "truncated boolean");
  uint8_t b = *pos_;
  if (b > 1) return Corrupt(pos_, "invalid boolean byte ", static_cast<int>(b));
  ++pos_;
  *out = b != 0;
  return Status::OK();
}

Status BinaryDecoder::ReadFloat(float* out) {
  if (end_ - pos_ < 4) return Corrupt(pos_, "truncated float");
  std::memcpy(out, pos_, 4);
  pos_ += 4;
  return Status::OK();
}

Status BinaryDecoder::ReadDouble(double* out) {
  if (end_ - pos_ < 8) return Corrupt(pos_, "truncated double");
  std::memcpy(out, pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status BinaryDecoder::ReadBytes(std::string_view* out) {
  const uint8_t* start = pos_;
  int64_t len;
  FJORD_RETURN_NOT_OK(ReadLong(&len));
  if (len < 0) return Corrupt(start, "negative length ", len);
  if (len > end_ - pos_) {
    return Corrupt(start, "length ", len, " exceeds the ", end_ - pos_, " bytes that remain");
  }
  *out = std::string_view(reinterpret_cast<const char*>(pos_), static_cast<size_t>(len));
  pos_ += len;
  return Status::OK();
}

Status BinaryDecoder::ReadFixed(int64_t size, std::string_view* out) {
  if (size < 0 || size > end_ - pos_) {
    return Corrupt(pos_, "fixed of ", size, " bytes exceeds the ", end_ - pos_,
                   " bytes that remain");
  }
  *out = std::string_view(reinterpret_cast<const char*>(pos_), static_cast<size_t>(size));
  pos_ += size;
  return Status::OK();
}

Status BinaryDecoder::CheckCount(int64_t count, int64_t min_item_size, std::string_view what) {
  if (count < 0) return Corrupt(pos_, "negative count of ", what);
  if (min_item_size > 0) {
    if (count > (end_ - pos_) / min_item_size) {
      return Corrupt(pos_, count, " ", what, " of at least ", min_item_size,
                     " bytes each cannot fit in the ", end_ - pos_, " bytes that remain");
    }
    return Status::OK();
  }
  if (count > zero_size_budget_) {
    return Corrupt(pos_, count, " ", what,
                   " that may take no bytes exceed the limit of such elements (", zero_size_budget_,
                   " left)");
  }
  zero_size_budget_ -= count;
  return Status::OK();
}

Status BinaryDecoder::ReadBlockHeader(int64_t* count, int64_t* byte_size) {
  const uint8_t* start = pos_;
  FJORD_RETURN_NOT_OK(ReadLong(count));
  *byte_size = -1;
  if (*count >= 0) return Status::OK();
  if (*count == std::numeric_limits<int64_t>::min()) return Corrupt(start, "invalid block count");
  *count = -*count;
  const uint8_t* size_at = pos_;
  FJORD_RETURN_NOT_OK(ReadLong(byte_size));
  if (*byte_size < 0 || *byte_size > end_ - pos_) {
    return Corrupt(size_at, "block byte size ", *byte_size, " is negative or exceeds the ",
                   end_ - pos_, " bytes that remain");
  }
  return Status::OK();
}

Status BinaryDecoder::ReadArray(const Node& node, Datum* out, int depth) {
  out->Reset(Type::kArray);
  std::vector<Datum>& items = out->items_;
  const Node& item_type = node.items();
  size_t n = 0;
  while (true) {
    int64_t count, byte_size;
    FJORD_RETURN_NOT_OK(ReadBlockHeader(&count, &byte_size));
    if (count == 0) break;
    const uint8_t* block_start = pos_;
    FJORD_RETURN_NOT_OK(CheckCount(count, item_type.min_encoded_size(), "array elements"));
    size_t needed = n + static_cast<size_t>(count);
    if (items.size() < needed) items.resize(needed);
    for (int64_t i = 0; i < count; ++i) {
      FJORD_RETURN_NOT_OK(ReadValue(item_type, &items[n++], depth + 1));
    }
    if (byte_size >= 0 && pos_ - block_start != byte_size) {
      return Corrupt(block_start, "array block declared ", byte_size, " bytes but used ",
                     pos_ - block_start);
    }
  }
  items.resize(n);
  return Status::OK();
}

Status BinaryDecoder::ReadMap(const Node& node, Datum* out, int depth) {
  out->Reset(Type::kMap);
  std::vector<Datum>& items = out->items_;
  const Node& value_type = node.values();
  // A key is a string: at least its length byte.
  const int64_t min_entry = 1 + value_type.min_encoded_size();
  size_t n = 0;
  while (true) {
    int64_t count, byte_size;
    FJORD_RETURN_NOT_OK(ReadBlockHeader(&count, &byte_size));
    if (count == 0) break;
    const uint8_t* block_start = pos_;
    FJORD_RETURN_NOT_OK(CheckCount(count, min_entry, "map entries"));
    size_t needed = n + 2 * static_cast<size_t>(count);
    if (items.size() < needed) items.resize(needed);
    for (int64_t i = 0; i < count; ++i) {
      std::string_view key;
      FJORD_RETURN_NOT_OK(ReadBytes(&key));
      items[n++].SetBytesType(Type::kString)->assign(key);
      FJORD_RETURN_NOT_OK(ReadValue(value_type, &items[n++], depth + 1));
    }
    if (byte_size >= 0 && pos_ - block_start != byte_size) {
      return Corrupt(block_start, "map block declared ", byte_size, " bytes but used ",
                     pos_ - block_start);
    }
  }
  items.resize(n);
  return Status::OK();
}

Status BinaryDecoder::ReadBranch(const Node& node, const Node** branch, int32_t* index_out) {
  const uint8_t* start = pos_;
  int32_t index;
  FJORD_RETURN_NOT_OK(ReadInt(&index));
  if (index < 0 || static_cast<size_t>(index) >= node.branches().size()) {
    return Corrupt(start, "union branch ", index, " out of range (the union has ",
                   node.branches().size(), " branches)");
  }
  *branch = node.branches()[static_cast<size_t>(index)];
  if (index_out != nullptr) *index_out = index;
  return Status::OK();
}

Status BinaryDecoder::ReadItemCount(const Node& item, int64_t* count) {
  int64_t byte_size;
  FJORD_RETURN_NOT_OK(ReadBlockHeader(count, &byte_size));
  if (*count == 0) return Status::OK();
  return CheckCount(*count, item.min_encoded_size(), "array elements");
}

// Arrays (map_value null) and maps: a block with a byte size is jumped over whole.
Status BinaryDecoder::SkipBlocks(const Node& item, const Node* map_value, int depth) {
  while (true) {
    int64_t count, byte_size;
    FJORD_RETURN_NOT_OK(ReadBlockHeader(&count, &byte_size));
    if (count == 0) return Status::OK();
    if (byte_size >= 0) {
      pos_ += byte_size;  // ReadBlockHeader checked it fits
      continue;
    }
    const int64_t min_size =
        map_value == nullptr ? item.min_encoded_size() : 1 + map_value->min_encoded_size();
    FJORD_RETURN_NOT_OK(CheckCount(count, min_size, "elements"));
    for (int64_t i = 0; i < count; ++i) {
      if (map_value != nullptr) {
        std::string_view key;
        FJORD_RETURN_NOT_OK(ReadBytes(&key));
        FJORD_RETURN_NOT_OK(SkipValue(*map_value, depth + 1));
      } else {
        FJORD_RETURN_NOT_OK(SkipValue(item, depth + 1));
      }
    }
  }
}

Status BinaryDecoder::SkipValue(const Node& node, int depth) {
  if (depth > kMaxNestingDepth) {
    return Corrupt(pos_, "values nested deeper than ", kMaxNestingDepth, " levels");
  }
  std::string_view bytes;
  switch (node.type()) {
    case Type::kNull:
      return Status::OK();
    case Type::kBoolean: {
      bool b;
      return ReadBoolean(&b);
    }
    case Type::kInt:
    case Type::kEnum: {
      int32_t v;
      return ReadInt(&v);
    }
    case Type::kLong: {
      int64_t v;
      return ReadLong(&v);
    }
    case Type::kFloat:
      return ReadFixed(4, &bytes);
    case Type::kDouble:
      return ReadFixed(8, &bytes);
    case Type::kBytes:
    case Type::kString:
      return ReadBytes(&bytes);
    case Type::kFixed:
      return ReadFixed(node.fixed_size(), &bytes);
    case Type::kUnion: {
      const Node* branch;
      FJORD_RETURN_NOT_OK(ReadBranch(node, &branch));
      return SkipValue(*branch, depth + 1);
    }
    case Type::kArray:
      return SkipBlocks(node.items(), nullptr, depth);
    case Type::kMap:
      return SkipBlocks(node.values(), &node.values(), depth);
    case Type::kRecord:
      for (const Field& f : node.fields()) FJORD_RETURN_NOT_OK(SkipValue(*f.type, depth + 1));
      return Status::OK();
  }
  return Status::Internal("unknown Avro type");
}

Status BinaryDecoder::ReadValue(const Node& node, Datum* out, int depth) {
  if (depth > kMaxNestingDepth) {
    return Corrupt(pos_, "values nested deeper than ", kMaxNestingDepth, " levels");
  }
  switch (node.type()) {
    case Type::kNull:
      out->Reset(Type::kNull);
      return Status::OK();
    case Type::kBoolean:
      out->Reset(Type::kBoolean);
      return ReadBoolean(&out->scalar_.b);
    case Type::kInt:
      out->Reset(Type::kInt);
      return ReadInt(&out->scalar_.i);
    case Type::kLong:
      out->Reset(Type::kLong);
      return ReadLong(&out->scalar_.l);
    case Type::kFloat:
      out->Reset(Type::kFloat);
      return ReadFloat(&out->scalar_.f);
    case Type::kDouble:
      out->Reset(Type::kDouble);
      return ReadDouble(&out->scalar_.d);
    case Type::kBytes:
    case Type::kString: {
      std::string_view v;
      FJORD_RETURN_NOT_OK(ReadBytes(&v));
      out->SetBytesType(node.type())->assign(v);
      return Status::OK();
    }
    case Type::kFixed: {
      std::string_view v;
      FJORD_RETURN_NOT_OK(ReadFixed(node.fixed_size(), &v));
      out->SetBytesType(Type::kFixed)->assign(v);
      return Status::OK();
    }
    case Type::kEnum: {
      const uint8_t* start = pos_;
      int32_t index;
      FJORD_RETURN_NOT_OK(ReadInt(&index));
      if (index < 0 || static_cast<size_t>(index) >= node.symbols().size()) {
        return Corrupt(start, "enum index ", index, " out of range for ", node.full_name(),
                       " with ", node.symbols().size(), " symbols");
      }
      out->SetEnum(index);
      return Status::OK();
    }
    case Type::kUnion: {
      const Node* branch;
      int32_t index;
      FJORD_RETURN_NOT_OK(ReadBranch(node, &branch, &index));
      FJORD_RETURN_NOT_OK(ReadValue(*branch, out, depth + 1));
      out->branch_ = index;
      return Status::OK();
    }
    case Type::kArray:
      return ReadArray(node, out, depth);
    case Type::kMap:
      return ReadMap(node, out, depth);
    case Type::kRecord: {
      out->Reset(Type::kRecord);
      const std::vector<Field>& fields = node.fields();
      std::vector<Datum>& items = out->items_;
      if (items.size() != fields.size()) items.resize(fields.size());
      for (size_t i = 0; i < fields.size(); ++i) {
        Status st = ReadValue(*fields[i].type, &items[i], depth + 1);
        if (!st.ok()) [[unlikely]] {
          return st.WithContext("field '", fields[i].name, "'");
        }
      }
      return Status::OK();
    }
  }
  return Status::Internal("unknown Avro type");
}

Result<Datum> DecodeDatum(const Node& node, std::string_view data) {
  BinaryDecoder decoder(data);
  Datum out;
  FJORD_RETURN_NOT_OK(decoder.ReadDatum(node, &out));
  if (!decoder.at_end()) {
    return Status::Corruption("at offset ", decoder.position(), ": ", decoder.remaining(),
                              " bytes left over after the value");
  }
  return out;
}

void AppendLong(int64_t v, std::string* out) {
  uint64_t z = ZigZagEncode(v);
  char buf[10];
  int n = 0;
  while (z >= 0x80) {
    buf[n++] = static_cast<char>((z & 0x7f) | 0x80);
    z >>= 7;
  }
  buf[n++] = static_cast<char>(z);
  out->append(buf, static_cast<size_t>(n));
}

void AppendBoolean(bool v, std::string* out) { out->push_back(v ? 1 : 0); }

void AppendFloat(float v, std::string* out) {
  char buf[4];
  std::memcpy(buf, &v, 4);
  out->append(buf, 4);
}

void AppendDouble(double v, std::string* out) {
  char buf[8];
  std::memcpy(buf, &v, 8);
  out->append(buf, 8);
}

void AppendBytes(std::string_view v, std::string* out) {
  AppendLong(static_cast<int64_t>(v.size()), out);
  out->append(v);
}

namespace {

Status Mismatch(const Node& node, const Datum& datum) {
  std::string expected(TypeName(node.type()));
  if (node.is_named()) expected += " " + node.full_name();
  return Status::Invalid("expected a value of type ", expected, ", got ", TypeName(datum.type()));
}

Status Encode(const Node& node, const Datum& datum, std::string* out, int depth) {
  if (depth > kMaxNestingDepth) {
    return Status::Invalid("value nested deeper than ", kMaxNestingDepth, " levels");
  }
  if (node.type() == Type::kUnion) {
    int32_t b = datum.branch();
    if (b < 0 || static_cast<size_t>(b) >= node.branches().size()) {
      return Status::Invalid("union branch ", b, " out of range (the union has ",
                             node.branches().size(), " branches)");
    }
    AppendLong(b, out);
    return Encode(*node.branches()[b], datum, out, depth + 1);
  }
  if (node.type() != datum.type()) return Mismatch(node, datum);
  switch (node.type()) {
    case Type::kNull:
      return Status::OK();
    case Type::kBoolean:
      AppendBoolean(datum.boolean_value(), out);
      return Status::OK();
    case Type::kInt:
      AppendInt(datum.int_value(), out);
      return Status::OK();
    case Type::kLong:
      AppendLong(datum.long_value(), out);
      return Status::OK();
    case Type::kFloat:
      AppendFloat(datum.float_value(), out);
      return Status::OK();
    case Type::kDouble:
      AppendDouble(datum.double_value(), out);
      return Status::OK();
    case Type::kBytes:
    case Type::kString:
      AppendBytes(datum.bytes(), out);
      return Status::OK();
    case Type::kFixed:
      if (datum.bytes().size() != static_cast<size_t>(node.fixed_size())) {
        return Status::Invalid("fixed ", node.full_name(), " needs ", node.fixed_size(),
                               " bytes, got ", datum.bytes().size());
      }
      out->append(datum.bytes());
      return Status::OK();
    case Type::kEnum:
      if (datum.enum_index() < 0 ||
          static_cast<size_t>(datum.enum_index()) >= node.symbols().size()) {
        return Status::Invalid("enum index ", datum.enum_index(), " out of range for ",
                               node.full_name());
      }
      AppendInt(datum.enum_index(), out);
      return Status::OK();
    case Type::kArray: {
      const auto& items = datum.items();
      if (!items.empty()) {
        AppendLong(static_cast<int64_t>(items.size()), out);
        for (size_t i = 0; i < items.size(); ++i) {
          Status st = Encode(node.items(), items[i], out, depth + 1);
          if (!st.ok()) return st.WithContext("element ", i);
        }
      }
      AppendLong(0, out);
      return Status::OK();
    }
    case Type::kMap: {
      const auto& items = datum.items();
      if (items.size() % 2 != 0) return Status::Invalid("map with an odd number of children");
      if (!items.empty()) {
        AppendLong(static_cast<int64_t>(items.size() / 2), out);
        for (size_t i = 0; i < items.size(); i += 2) {
          if (items[i].type() != Type::kString) {
            return Status::Invalid("map key ", i / 2, " is not a string");
          }
          AppendBytes(items[i].bytes(), out);
          Status st = Encode(node.values(), items[i + 1], out, depth + 1);
          if (!st.ok()) return st.WithContext("map value '", items[i].bytes(), "'");
        }
      }
      AppendLong(0, out);
      return Status::OK();
    }
    case Type::kRecord: {
      const auto& fields = node.fields();
      if (datum.size() != fields.size()) {
        return Status::Invalid("record ", node.full_name(), " has ", fields.size(),
                               " fields, the value has ", datum.size());
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        Status st = Encode(*fields[i].type, datum[i], out, depth + 1);
        if (!st.ok()) return st.WithContext("field '", fields[i].name, "'");
      }
      return Status::OK();
    }
    case Type::kUnion:
      break;
  }
  return Status::Internal("unknown Avro type");
}

}  // namespace

Status EncodeDatum(const Node& node, const Datum& datum, std::string* out) {
  return Encode(node, datum, out, 0);
}

}  // namespace fjord::avro
