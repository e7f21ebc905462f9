#include "fjord/format/json_columns.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>

#include "fjord/format/arrow_values.h"
#include "fjord/format/text_values.h"

namespace fjord {

namespace {

JsonReadAs ReadAsFor(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return JsonReadAs::kBool;
    case TypeRoot::kTinyInt:
      return JsonReadAs::kInt8;
    case TypeRoot::kSmallInt:
      return JsonReadAs::kInt16;
    case TypeRoot::kInt:
      return JsonReadAs::kInt32;
    case TypeRoot::kBigInt:
      return JsonReadAs::kInt64;
    case TypeRoot::kFloat:
      return JsonReadAs::kFloat;
    case TypeRoot::kDouble:
      return JsonReadAs::kDouble;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return type.root() == TypeRoot::kVarChar && type.length() == DataType::kMaxLength
                 ? JsonReadAs::kString
                 : JsonReadAs::kCheckedText;
    case TypeRoot::kDecimal:
      return JsonReadAs::kDecimal;
    case TypeRoot::kDate:
      return JsonReadAs::kDate;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return JsonReadAs::kTimestamp;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return JsonReadAs::kNested;
    default:
      return JsonReadAs::kFromText;
  }
}

// The text-read types have no blanks around their values (ValueFromText's rule).
bool NoBlanks(std::string_view text) {
  auto blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; };
  return text.empty() || (!blank(text.front()) && !blank(text.back()));
}

}  // namespace

JsonLineColumns::JsonLineColumns(const std::vector<DataField>& fields, const RowsBuilder& out)
    : fields_(fields) {
  plans_.resize(fields.size());
  for (size_t c = 0; c < fields.size(); ++c) {
    Plan& col = plans_[c];
    col.type = fields[c].type.get();
    col.read_as = ReadAsFor(*col.type);
    col.nullable = col.type->nullable();
    col.builder = out.storage(c) == RowsBuilder::Storage::kBuilder;
    if (col.read_as == JsonReadAs::kTimestamp) {
      col.per_second = UnitsPerSecond(*out.arrow_type(c));
      col.ltz = col.type->root() == TypeRoot::kTimestampLtz;
    }
    if (col.builder) deferred_.push_back(c);
    index_.emplace(fields[c].name, static_cast<int>(c));
    const std::string& name = fields[c].name;
    col.name.size = name.size();
    col.name.backslash = name.find('\\') != std::string::npos;
    col.name.plain = !col.name.backslash && name.find('"') == std::string::npos &&
                     std::none_of(name.begin(), name.end(),
                                  [](char ch) { return static_cast<unsigned char>(ch) < 0x20; });
    std::memcpy(&col.name.head, name.data(), std::min<size_t>(8, name.size()));
    const unsigned char ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    std::memcpy(&col.name.mask, ones, std::min<size_t>(8, name.size()));
  }
}

bool JsonLineColumns::BeginLine(const char* data, size_t size) {
  Restart();
  while (size > 0 && data[size - 1] == '\r') --size;
#if defined(__SSE2__)
  // Sixteen bytes at a time (the last load may pass the line's end, the bits of bytes past it
  // are dropped): min(byte, 0x1f) == byte exactly for the bytes below 0x20.
  const __m128i limit = _mm_set1_epi8(0x1f);
  const __m128i backslash = _mm_set1_epi8('\\');
  uint32_t escapes = 0;
  for (size_t i = 0; i < size; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    auto low = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, limit), x)));
    auto slash = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, backslash)));
    if (size - i < 16) {
      const uint32_t in_line = (uint32_t{1} << (size - i)) - 1;
      low &= in_line;
      slash &= in_line;
    }
    if (low != 0) return false;
    escapes |= slash;
  }
  escapes_ = escapes != 0;
  return true;
#else
  // Eight bytes at a time: (w - 0x20 in every byte) & ~w has a byte's top bit set for some
  // byte exactly when a byte of w is below 0x20 (a borrow starts only at such a byte).
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kTops = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    if (((w - kOnes * 0x20) & ~w & kTops) != 0) return false;
  }
  for (; i < size; ++i) {
    if (static_cast<unsigned char>(data[i]) < 0x20) return false;
  }
  escapes_ = std::memchr(data, '\\', size) != nullptr;
  return true;
#endif
}

int JsonLineColumns::Lookup(std::string_view key) const {
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  return key == "_row_kind" ? kRowKind : kUnknown;
}

bool JsonLineColumns::TakeRowKind(std::string_view text, int8_t* kind) {
  if (seen_row_kind_ == row_) return false;
  seen_row_kind_ = row_;
  static constexpr std::string_view kNames[] = {"+I", "-U", "+U", "-D"};
  for (int8_t k = 0; k < 4; ++k) {
    if (text == kNames[k]) {
      *kind = k;
      return true;
    }
  }
  return false;
}

Result<bool> JsonLineColumns::EndLine(RowsBuilder* out, int8_t kind) {
  if (given_ != plans_.size()) {
    // The columns the line leaves out are NULL.
    for (size_t c = 0; c < plans_.size(); ++c) {
      if (plans_[c].seen == row_) continue;
      if (!plans_[c].nullable) return false;
      if (!plans_[c].builder) out->SetNull(c);
    }
  }
  for (size_t c : deferred_) {
    const Slot& s = plans_[c].slot;
    if (plans_[c].seen != row_ || s.null) {
      out->SetNull(c);
    } else if (plans_[c].read_as == JsonReadAs::kBool) {
      FJORD_RETURN_NOT_OK(out->AppendValue(c, Value(s.boolean)));
    } else {
      FJORD_RETURN_NOT_OK(out->AppendValue(c, s.value));
    }
  }
  FJORD_RETURN_NOT_OK(out->EndRow(kind));
  return true;
}

bool JsonLineColumns::SetNull(size_t c, RowsBuilder* out) {
  Plan& p = plans_[c];
  if (!p.nullable) return false;
  if (p.builder) {
    p.slot.null = true;
  } else {
    out->SetNull(c);
  }
  return true;
}

bool JsonLineColumns::SetText(size_t c, std::string_view text, bool padded, RowsBuilder* out) {
  const Plan& p = plans_[c];
  if (p.read_as == JsonReadAs::kCheckedText && !CheckLength(text, *p.type).ok()) return false;
  if (p.read_as != JsonReadAs::kString && p.read_as != JsonReadAs::kCheckedText) return false;
  // A column's text past 2 GiB is left to the reference, whose append words the error.
  return (padded ? out->SetPaddedString(c, text) : out->SetString(c, text)).ok();
}

bool JsonLineColumns::SetFromString(size_t c, std::string_view text, RowsBuilder* out) {
  Plan& p = plans_[c];
  p.slot.null = false;
  switch (p.read_as) {
    case JsonReadAs::kDate: {
      if (!NoBlanks(text)) return false;
      Result<int32_t> days = ParseDateText(text);
      if (!days.ok()) return false;
      out->SetInteger(c, *days);
      return true;
    }
    case JsonReadAs::kTimestamp: {
      if (!NoBlanks(text)) return false;
      Result<Timestamp> ts =
          ParseTimestampText(text, p.type->precision(), p.type->root() == TypeRoot::kTimestampLtz);
      if (!ts.ok()) return false;
      out->SetInteger(c, TimestampToUnits(*ts, p.per_second));
      return true;
    }
    case JsonReadAs::kDecimal: {
      if (!NoBlanks(text)) return false;
      Result<Decimal> d = Decimal::FromString(text, p.type->precision(), p.type->scale());
      if (!d.ok()) return false;
      out->SetDecimal(c, d->unscaled);
      return true;
    }
    case JsonReadAs::kFloat:
    case JsonReadAs::kDouble: {
      if (text != "NaN" && text != "Infinity" && text != "-Infinity") return false;
      if (p.read_as == JsonReadAs::kFloat) {
        Result<float> f = ParseFloatText(text);
        if (!f.ok()) return false;
        out->SetFloat(c, *f);
      } else {
        Result<double> d = ParseDoubleText(text);
        if (!d.ok()) return false;
        out->SetDouble(c, *d);
      }
      return true;
    }
    default:
      return false;
  }
}

bool JsonLineColumns::SetFromNumberText(size_t c, std::string_view text, RowsBuilder* out) {
  Plan& p = plans_[c];
  p.slot.null = false;
  if (p.read_as == JsonReadAs::kDecimal) {
    Result<Decimal> d = Decimal::FromString(text, p.type->precision(), p.type->scale());
    if (!d.ok()) return false;
    out->SetDecimal(c, d->unscaled);
    return true;
  }
  if (p.read_as == JsonReadAs::kFloat) {
    Result<float> f = ParseFloatText(text);
    if (!f.ok()) return false;
    out->SetFloat(c, *f);
    return true;
  }
  if (p.read_as == JsonReadAs::kDouble) {
    Result<double> d = ParseDoubleText(text);
    if (!d.ok()) return false;
    out->SetDouble(c, *d);
    return true;
  }
  return false;
}

}  // namespace fjord
