#include "fjord/format/orc_stripe_stats.h"

#include <limits>
#include <string_view>

#include "fjord/format/orc/orc_tail.h"

namespace fjord {

namespace {

// ORC writer versions (PostScript.writerVersion) that matter here.
constexpr uint32_t kHive8732 = 1;  // string min/max right from here on
constexpr uint32_t kOrc135 = 6;    // ORC 1.5.0-1.5.5: broken decimal64 min/max (ORC-517)

// The integer bounds of `s` when both are recorded, ordered and inside [lo, hi].
std::optional<std::pair<int64_t, int64_t>> IntegerBounds(const OrcTypedStats& typed, int64_t lo,
                                                         int64_t hi) {
  const auto* s = std::get_if<OrcIntegerStats>(&typed);
  if (s == nullptr || !s->minimum || !s->maximum) return std::nullopt;
  if (*s->minimum > *s->maximum || *s->minimum < lo || *s->maximum > hi) return std::nullopt;
  return std::make_pair(*s->minimum, *s->maximum);
}

// ORC's decimal statistics text ("-12.5", trailing zeros dropped) as the unscaled value at
// `scale`; nullopt unless it is plain decimal text that holds exactly at that scale and fits
// `precision` digits.
std::optional<Int128> DecimalUnscaled(std::string_view text, int32_t precision, int32_t scale) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return std::nullopt;
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (scale < 0 || static_cast<int64_t>(fraction.size()) > scale) return std::nullopt;
  while (!whole.empty() && whole.front() == '0') whole.remove_prefix(1);
  if (static_cast<int64_t>(whole.size()) + scale > precision || precision > 38) {
    return std::nullopt;
  }
  Int128 out = 0;
  for (std::string_view part : {whole, fraction}) {
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      out = out * 10 + (c - '0');
    }
  }
  for (auto k = static_cast<int32_t>(fraction.size()); k < scale; ++k) out *= 10;
  return negative ? -out : out;
}

// The [min, max] of the column as Values of `type`; nullopt for what Fjord does not prune on.
std::optional<std::pair<Value, Value>> MinMax(const OrcColumnStats& stats, const OrcType& column,
                                              const DataType& type, uint32_t writer_version) {
  auto ints = [&](OrcTypeKind kind, int64_t lo,
                  int64_t hi) -> std::optional<std::pair<int64_t, int64_t>> {
    if (column.kind != kind) return std::nullopt;
    return IntegerBounds(stats.typed, lo, hi);
  };
  switch (type.root()) {
    case TypeRoot::kTinyInt:
      if (auto b = ints(OrcTypeKind::kByte, INT8_MIN, INT8_MAX)) {
        return std::make_pair(Value(static_cast<int8_t>(b->first)),
                              Value(static_cast<int8_t>(b->second)));
      }
      return std::nullopt;
    case TypeRoot::kSmallInt:
      if (auto b = ints(OrcTypeKind::kShort, INT16_MIN, INT16_MAX)) {
        return std::make_pair(Value(static_cast<int16_t>(b->first)),
                              Value(static_cast<int16_t>(b->second)));
      }
      return std::nullopt;
    case TypeRoot::kInt:
      if (auto b = ints(OrcTypeKind::kInt, INT32_MIN, INT32_MAX)) {
        return std::make_pair(Value(static_cast<int32_t>(b->first)),
                              Value(static_cast<int32_t>(b->second)));
      }
      return std::nullopt;
    case TypeRoot::kBigInt:
      if (auto b = ints(OrcTypeKind::kLong, INT64_MIN, INT64_MAX)) {
        return std::make_pair(Value(b->first), Value(b->second));
      }
      return std::nullopt;
    case TypeRoot::kDate: {
      const auto* s = std::get_if<OrcDateStats>(&stats.typed);
      if (column.kind != OrcTypeKind::kDate || s == nullptr || !s->minimum || !s->maximum ||
          *s->minimum > *s->maximum) {
        return std::nullopt;
      }
      return std::make_pair(Value(*s->minimum), Value(*s->maximum));
    }
    case TypeRoot::kVarChar: {
      // ORC writers order strings by their UTF-8 bytes, unsigned (Java's Text.compareTo, C++'s
      // std::string), as Fjord compares them (CompareValues). Writers before HIVE-8732 merged
      // them wrongly. Strings too long to keep (ORC-203) have only truncated bounds
      // (lowerBound/upperBound), not used. CHAR is left out: its values are stored padded to n
      // and read back unpadded, and unpadding does not keep the order of values holding bytes
      // below the blank.
      const auto* s = std::get_if<OrcStringStats>(&stats.typed);
      if ((column.kind != OrcTypeKind::kString && column.kind != OrcTypeKind::kVarchar) ||
          writer_version < kHive8732 || s == nullptr || !s->minimum || !s->maximum ||
          *s->minimum > *s->maximum) {
        return std::nullopt;
      }
      return std::make_pair(Value(*s->minimum), Value(*s->maximum));
    }
    case TypeRoot::kDecimal: {
      // Min and max as decimal text, exact; but ORC 1.5.0 to 1.5.5 (writer version ORC-135)
      // recorded broken ones for precisions up to 18 (ORC-517), which Java's reader ignores too.
      const auto* s = std::get_if<OrcDecimalStats>(&stats.typed);
      if (column.kind != OrcTypeKind::kDecimal || s == nullptr || !s->minimum || !s->maximum) {
        return std::nullopt;
      }
      if (writer_version == kOrc135 && type.precision() <= 18) return std::nullopt;
      auto lo = DecimalUnscaled(*s->minimum, type.precision(), type.scale());
      auto hi = DecimalUnscaled(*s->maximum, type.precision(), type.scale());
      if (!lo || !hi || *lo > *hi) return std::nullopt;
      return std::make_pair(Value(Decimal{*lo, type.precision(), type.scale()}),
                            Value(Decimal{*hi, type.precision(), type.scale()}));
    }
    default:
      // Not pruned on, as for Parquet: FLOAT/DOUBLE (NaN is left out of ORC's bounds, and -0.0
      // and 0.0), TIMESTAMP/TIMESTAMP_LTZ (milliseconds in the writer's local time before
      // ORC-135, the nanoseconds apart, TIMESTAMP against TIMESTAMP_INSTANT semantics), BOOLEAN
      // (ORC keeps a count of TRUE values, not bounds), TIME, BINARY (lengths only).
      return std::nullopt;
  }
}

}  // namespace

std::optional<ColumnStats> OrcStripeColumnStats(const OrcColumnStats& stats, const OrcType& column,
                                                const DataType& type, uint64_t rows,
                                                uint32_t writer_version) {
  if (type.IsNested()) return std::nullopt;  // nested: no pruning
  // Files of writers that do not record hasNull (Trino's, Hive 0.11/0.12) are not trusted, as
  // ORC's C++ reader does not trust them; nor counts that contradict hasNull or the row count.
  if (!stats.has_null || !stats.number_of_values) return std::nullopt;
  uint64_t values = *stats.number_of_values;
  if (values > rows || (*stats.has_null == (values == rows))) return std::nullopt;
  if (rows > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  ColumnStats out;
  out.null_count = static_cast<int64_t>(rows - values);
  if (values > 0) {
    if (auto mm = MinMax(stats, column, type, writer_version)) {
      out.min = std::move(mm->first);
      out.max = std::move(mm->second);
    }
  }
  return out;
}

Result<std::vector<bool>> OrcStripesToRead(const OrcTail& tail, uint64_t file_size,
                                           const OrcReadAt& read_at, const std::string& path,
                                           const std::vector<DataField>& fields,
                                           const ChunkFilter& filter) {
  const size_t stripes = tail.stripes.size();
  std::vector<bool> keep(stripes, true);
  if (!filter || stripes == 0 || tail.types.empty() || tail.types[0].kind != OrcTypeKind::kStruct) {
    return keep;
  }
  // The column id of each field (nullopt: the file lacks it), and the distinct ids to ask for.
  const OrcType& root = tail.types[0];
  std::vector<std::optional<size_t>> slot_of(fields.size());
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < fields.size(); ++i) {
    for (size_t c = 0; c < root.field_names.size() && c < root.subtypes.size(); ++c) {
      if (root.field_names[c] != fields[i].name) continue;
      uint32_t id = root.subtypes[c];
      size_t k = 0;
      while (k < ids.size() && ids[k] != id) ++k;
      if (k == ids.size()) ids.push_back(id);
      slot_of[i] = k;
      break;
    }
  }
  std::vector<bool> decided(stripes, true);
  size_t seen = 0;
  FJORD_RETURN_NOT_OK(ReadOrcStripeStats(
      tail, file_size, read_at, path, ids,
      [&](size_t index, const std::vector<OrcColumnStats>& stats) -> Status {
        ++seen;
        if (index >= stripes) return Status::OK();  // more sets than stripes: none is used
        uint64_t rows = tail.stripes[index].rows;
        if (rows > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Status::OK();
        std::vector<std::optional<ColumnStats>> asked;
        asked.reserve(fields.size());
        for (size_t i = 0; i < fields.size(); ++i) {
          if (!slot_of[i]) {
            asked.emplace_back();
            continue;
          }
          uint32_t id = ids[*slot_of[i]];
          asked.push_back(OrcStripeColumnStats(stats[*slot_of[i]], tail.types[id], *fields[i].type,
                                               rows, tail.writer_version));
        }
        decided[index] = filter(asked, static_cast<int64_t>(rows));
        return Status::OK();
      }));
  if (seen == stripes) keep = std::move(decided);
  return keep;
}

}  // namespace fjord
