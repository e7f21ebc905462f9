#include "fjord/format/orc/orc_tail.h"

#include <algorithm>
#include <cstring>
#include <memory>

#ifndef FJORD_ORC_TAIL_NO_ARROW
#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>

#include "fjord/common/arrow_status.h"
#endif

#include "fjord/format/orc/compression.h"
#include "fjord/format/orc/protobuf.h"

namespace fjord {

namespace {

// The first read takes this much of the end of the file; it holds the whole tail of most files.
constexpr uint64_t kTailReadSize = 16 << 10;
// What ORC's C++ reader assumes when a compressed file does not record its block size.
constexpr uint64_t kDefaultBlockSize = 256 << 10;
using orc::kFixed32;
using orc::kFixed64;
using orc::kLengthDelimited;
using orc::kVarint;
using Field = orc::ProtoField;

// Where errors are reported, and the budget of entries shared by the whole footer.
struct Context {
  std::string_view source;
  uint64_t elements = 0;

  template <typename... Args>
  Status Corrupt(Args&&... args) const {
    return Status::Corruption(source, ": ORC ", std::forward<Args>(args)...);
  }

  Status Count(std::string_view where) {
    if (++elements > kOrcMaxElements) {
      return Corrupt(where, ": more than ", kOrcMaxElements,
                     " types, names, statistics and stripes");
    }
    return Status::OK();
  }
};

// Calls `on_field(const Field&)` (returning Status) for each field of the message `data`, in order.
// Unknown fields reach `on_field` too, which ignores them.
template <typename OnField>
Status ForEachField(std::string_view data, const Context& ctx, std::string_view where,
                    OnField&& on_field) {
  while (!data.empty()) {
    Field f;
    Status st = orc::ReadProtoField(&data, &f);
    if (!st.ok()) return ctx.Corrupt(where, ": ", st.message());
    FJORD_RETURN_NOT_OK(on_field(f));
  }
  return Status::OK();
}

// Protobuf's sint32/sint64 (zigzag) and int32 (two's complement, truncated) decodings.
int64_t ZigZag64(uint64_t n) { return orc::ZigZagDecode(n); }
int32_t ZigZag32(uint64_t n) { return static_cast<int32_t>(ZigZag64(static_cast<uint32_t>(n))); }
int32_t Int32(uint64_t n) { return static_cast<int32_t>(static_cast<uint32_t>(n)); }
double Double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// A repeated uint32 field, packed (wire type 2) or not (wire type 0), appended to `out`.
Status ReadRepeatedUint32(const Field& f, Context* ctx, std::string_view where,
                          std::vector<uint32_t>* out) {
  if (f.wire == kVarint) {
    FJORD_RETURN_NOT_OK(ctx->Count(where));
    out->push_back(static_cast<uint32_t>(f.value));
    return Status::OK();
  }
  if (f.wire != kLengthDelimited) return Status::OK();  // a mismatched wire type: unknown field
  std::string_view packed = f.bytes;
  while (!packed.empty()) {
    uint64_t v = 0;
    if (!orc::ReadVarint(&packed, &v)) return ctx->Corrupt(where, ": truncated packed varint");
    FJORD_RETURN_NOT_OK(ctx->Count(where));
    out->push_back(static_cast<uint32_t>(v));
  }
  return Status::OK();
}

// --- PostScript ---------------------------------------------------------------------------------

struct PostScript {
  uint64_t footer_length = 0;
  uint64_t compression = 0;
  std::optional<uint64_t> block_size;
  std::vector<uint32_t> version;
  uint64_t metadata_length = 0;
  uint32_t writer_version = 0;
  std::optional<std::string_view> magic;
};

Status ParsePostScript(std::string_view data, Context* ctx, PostScript* ps) {
  constexpr std::string_view kWhere = "postscript";
  return ForEachField(data, *ctx, kWhere, [&](const Field& f) -> Status {
    if (f.number == 4) return ReadRepeatedUint32(f, ctx, kWhere, &ps->version);
    if (f.number == 8000) {
      if (f.wire == kLengthDelimited) ps->magic = f.bytes;
      return Status::OK();
    }
    if (f.wire != kVarint) return Status::OK();
    switch (f.number) {
      case 1:
        ps->footer_length = f.value;
        break;
      case 2:
        ps->compression = f.value;
        break;
      case 3:
        ps->block_size = f.value;
        break;
      case 5:
        ps->metadata_length = f.value;
        break;
      case 6:
        ps->writer_version = static_cast<uint32_t>(f.value);
        break;
      default:
        break;
    }
    return Status::OK();
  });
}

// --- Decompression ------------------------------------------------------------------------------

// Undoes ORC's chunked compression framing of the footer or the metadata (`where`).
Status Decompress(OrcCompression compression, uint64_t block_size, std::string_view in,
                  const Context& ctx, std::string_view where, std::string* out) {
  orc::Decompressor decompressor(compression, block_size);
  Status st = decompressor.Decompress(in, kOrcMaxFooterBytes, out);
  if (st.ok()) return st;
  if (st.IsCorruption()) return ctx.Corrupt(where, ": ", st.message());
  return st.WithContext(ctx.source, ": ORC ", where);
}

// --- Footer -------------------------------------------------------------------------------------

std::string TypeWhere(size_t index) { return "footer type " + std::to_string(index); }
std::string StatsWhere(size_t index) { return "footer statistics " + std::to_string(index); }

Status ParseType(std::string_view data, Context* ctx, size_t index, OrcType* type) {
  std::string where = TypeWhere(index);
  return ForEachField(data, *ctx, where, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1:
        if (f.wire == kVarint)
          type->kind = static_cast<OrcTypeKind>(static_cast<uint32_t>(f.value));
        break;
      case 2:
        return ReadRepeatedUint32(f, ctx, where, &type->subtypes);
      case 3:
        if (f.wire == kLengthDelimited) {
          FJORD_RETURN_NOT_OK(ctx->Count(where));
          type->field_names.emplace_back(f.bytes);
        }
        break;
      case 4:
      case 5:
      case 6:
        if (f.wire == kVarint) {
          auto v = static_cast<uint32_t>(f.value);
          (f.number == 4   ? type->maximum_length
           : f.number == 5 ? type->precision
                           : type->scale) = v;
        }
        break;
      case 7: {
        if (f.wire != kLengthDelimited) break;
        FJORD_RETURN_NOT_OK(ctx->Count(where));
        std::pair<std::string, std::string> pair;
        FJORD_RETURN_NOT_OK(
            ForEachField(f.bytes, *ctx, where + " attribute", [&](const Field& a) -> Status {
              if (a.wire == kLengthDelimited && a.number == 1) pair.first.assign(a.bytes);
              if (a.wire == kLengthDelimited && a.number == 2) pair.second.assign(a.bytes);
              return Status::OK();
            }));
        type->attributes.push_back(std::move(pair));
        break;
      }
      default:
        break;
    }
    return Status::OK();
  });
}

// Returns the alternative T of `typed`, default-constructing it unless it is already held (then
// a repeated submessage merges into it, as protobuf does).
template <typename T>
T* Emplace(OrcTypedStats* typed) {
  if (!std::holds_alternative<T>(*typed)) typed->emplace<T>();
  return &std::get<T>(*typed);
}

Status ParseTypedStats(const Field& outer, const Context& ctx, const std::string& where,
                       OrcTypedStats* typed) {
  if (outer.wire != kLengthDelimited) return Status::OK();
  auto each = [&](auto&& on_field) { return ForEachField(outer.bytes, ctx, where, on_field); };
  switch (outer.number) {
    case 2: {
      auto* s = Emplace<OrcIntegerStats>(typed);
      return each([&](const Field& f) -> Status {
        if (f.wire != kVarint) return Status::OK();
        int64_t v = ZigZag64(f.value);
        if (f.number == 1) s->minimum = v;
        if (f.number == 2) s->maximum = v;
        if (f.number == 3) s->sum = v;
        return Status::OK();
      });
    }
    case 3: {
      auto* s = Emplace<OrcDoubleStats>(typed);
      return each([&](const Field& f) -> Status {
        if (f.wire != kFixed64) return Status::OK();
        double v = Double(f.value);
        if (f.number == 1) s->minimum = v;
        if (f.number == 2) s->maximum = v;
        if (f.number == 3) s->sum = v;
        return Status::OK();
      });
    }
    case 4: {
      auto* s = Emplace<OrcStringStats>(typed);
      return each([&](const Field& f) -> Status {
        if (f.wire == kVarint && f.number == 3) s->sum = ZigZag64(f.value);
        if (f.wire != kLengthDelimited) return Status::OK();
        if (f.number == 1) s->minimum = std::string(f.bytes);
        if (f.number == 2) s->maximum = std::string(f.bytes);
        if (f.number == 4) s->lower_bound = std::string(f.bytes);
        if (f.number == 5) s->upper_bound = std::string(f.bytes);
        return Status::OK();
      });
    }
    case 6: {
      auto* s = Emplace<OrcDecimalStats>(typed);
      return each([&](const Field& f) -> Status {
        if (f.wire != kLengthDelimited) return Status::OK();
        if (f.number == 1) s->minimum = std::string(f.bytes);
        if (f.number == 2) s->maximum = std::string(f.bytes);
        if (f.number == 3) s->sum = std::string(f.bytes);
        return Status::OK();
      });
    }
    case 7: {
      auto* s = Emplace<OrcDateStats>(typed);
      return each([&](const Field& f) -> Status {
        if (f.wire != kVarint) return Status::OK();
        if (f.number == 1) s->minimum = ZigZag32(f.value);
        if (f.number == 2) s->maximum = ZigZag32(f.value);
        return Status::OK();
      });
    }
    case 9: {
      auto* s = Emplace<OrcTimestampStats>(typed);
      return each([&](const Field& f) -> Status {
        if (f.wire != kVarint) return Status::OK();
        switch (f.number) {
          case 1:
            s->minimum = ZigZag64(f.value);
            break;
          case 2:
            s->maximum = ZigZag64(f.value);
            break;
          case 3:
            s->minimum_utc = ZigZag64(f.value);
            break;
          case 4:
            s->maximum_utc = ZigZag64(f.value);
            break;
          case 5:
            s->minimum_nanos = Int32(f.value);
            break;
          case 6:
            s->maximum_nanos = Int32(f.value);
            break;
          default:
            break;
        }
        return Status::OK();
      });
    }
    default:
      return Status::OK();
  }
}

Status ParseColumnStats(std::string_view data, const Context& ctx, const std::string& where,
                        OrcColumnStats* stats) {
  return ForEachField(data, ctx, where, [&](const Field& f) -> Status {
    if (f.number == 1 && f.wire == kVarint) stats->number_of_values = f.value;
    if (f.number == 10 && f.wire == kVarint) stats->has_null = f.value != 0;
    return ParseTypedStats(f, ctx, where, &stats->typed);
  });
}

Status ParseFooter(std::string_view data, Context* ctx, OrcTail* tail) {
  constexpr std::string_view kWhere = "footer";
  return ForEachField(data, *ctx, kWhere, [&](const Field& f) -> Status {
    if (f.wire == kLengthDelimited) {
      switch (f.number) {
        case 3: {
          ++tail->stripe_count;
          FJORD_RETURN_NOT_OK(ctx->Count(kWhere));
          OrcStripeInfo& stripe = tail->stripes.emplace_back();
          return ForEachField(f.bytes, *ctx, "footer stripe", [&](const Field& g) -> Status {
            if (g.wire != kVarint) return Status::OK();
            switch (g.number) {
              case 1:
                stripe.offset = g.value;
                break;
              case 2:
                stripe.index_length = g.value;
                break;
              case 3:
                stripe.data_length = g.value;
                break;
              case 4:
                stripe.footer_length = g.value;
                break;
              case 5:
                stripe.rows = g.value;
                break;
              default:
                break;
            }
            return Status::OK();
          });
        }
        case 4: {
          size_t index = tail->types.size();
          FJORD_RETURN_NOT_OK(ctx->Count(TypeWhere(index)));
          tail->types.emplace_back();
          return ParseType(f.bytes, ctx, index, &tail->types.back());
        }
        case 7: {
          size_t index = tail->stats.size();
          FJORD_RETURN_NOT_OK(ctx->Count(StatsWhere(index)));
          tail->stats.emplace_back();
          return ParseColumnStats(f.bytes, *ctx, StatsWhere(index), &tail->stats.back());
        }
        case 12:
          tail->software_version = std::string(f.bytes);
          break;
        default:
          break;
      }
    } else if (f.wire == kVarint) {
      if (f.number == 6) tail->rows = f.value;
      if (f.number == 8) tail->row_index_stride = static_cast<uint32_t>(f.value);
      if (f.number == 9) tail->writer = static_cast<uint32_t>(f.value);
    }
    return Status::OK();
  });
}

bool IsPrimitive(OrcTypeKind kind) {
  auto k = static_cast<uint32_t>(kind);
  return k <= static_cast<uint32_t>(OrcTypeKind::kTimestamp) ||
         (k >= static_cast<uint32_t>(OrcTypeKind::kDecimal) &&
          k <= static_cast<uint32_t>(OrcTypeKind::kTimestampInstant));
}

// The types must form one tree rooted at 0 with children numbered after their parents, and each
// kind must have the children it needs; then every walk over it ends.
Status ValidateTypes(const std::vector<OrcType>& types, const Context& ctx) {
  if (types.empty()) return ctx.Corrupt("footer: no types");
  std::vector<uint8_t> has_parent(types.size(), 0);
  for (size_t i = 0; i < types.size(); ++i) {
    const OrcType& t = types[i];
    for (uint32_t sub : t.subtypes) {
      if (sub <= i || sub >= types.size()) {
        return ctx.Corrupt(TypeWhere(i), ": subtype ", sub, " out of range (", i + 1, "..",
                           types.size() - 1, ")");
      }
      if (has_parent[sub]) return ctx.Corrupt(TypeWhere(i), ": type ", sub, " has two parents");
      has_parent[sub] = 1;
    }
    size_t n = t.subtypes.size();
    bool ok = true;
    switch (t.kind) {
      case OrcTypeKind::kList:
        ok = n == 1;
        break;
      case OrcTypeKind::kMap:
        ok = n == 2;
        break;
      case OrcTypeKind::kStruct:
        if (t.field_names.size() != n) {
          return ctx.Corrupt(TypeWhere(i), ": STRUCT has ", n, " subtypes but ",
                             t.field_names.size(), " field names");
        }
        break;
      default:
        ok = !IsPrimitive(t.kind) || n == 0;
        break;
    }
    if (!ok) {
      return ctx.Corrupt(TypeWhere(i), ": ", OrcTypeKindName(t.kind), " with ", n, " subtypes");
    }
  }
  for (size_t i = 1; i < types.size(); ++i) {
    if (!has_parent[i]) return ctx.Corrupt(TypeWhere(i), ": not reachable from the root");
  }
  return Status::OK();
}

}  // namespace

Result<OrcTail> ReadOrcTail(uint64_t file_size, const OrcReadAt& read_at, std::string_view source) {
  Context ctx{source};
  // "ORC" at the start, then at least a one-byte PostScript and its length byte.
  if (file_size < 5) return ctx.Corrupt("file of ", file_size, " bytes is too small");
  auto read = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    FJORD_ASSIGN_OR_RAISE(std::string bytes, read_at(offset, length));
    if (bytes.size() != length) {
      return ctx.Corrupt("short read: ", bytes.size(), " of ", length, " bytes at offset ", offset);
    }
    return bytes;
  };

  uint64_t tail_offset = file_size - std::min(file_size, kTailReadSize);
  FJORD_ASSIGN_OR_RAISE(std::string tail_bytes, read(tail_offset, file_size - tail_offset));
  auto ps_length = static_cast<uint8_t>(tail_bytes.back());
  if (ps_length == 0) return ctx.Corrupt("postscript length is 0");
  // Room before it for the "ORC" header; tail_bytes holds at least 256 bytes or the whole file.
  if (uint64_t{ps_length} + 1 + 3 > file_size) {
    return ctx.Corrupt("postscript length ", int{ps_length}, " exceeds the file of ", file_size,
                       " bytes");
  }
  std::string_view ps_bytes =
      std::string_view(tail_bytes).substr(tail_bytes.size() - 1 - ps_length, ps_length);
  PostScript ps;
  FJORD_RETURN_NOT_OK(ParsePostScript(ps_bytes, &ctx, &ps));
  if (ps.magic.has_value()) {
    if (*ps.magic != "ORC") return ctx.Corrupt("postscript magic is not \"ORC\"");
  } else {
    // Files of Hive 0.11 carry the magic only at the start.
    FJORD_ASSIGN_OR_RAISE(std::string head, read(0, 3));
    if (head != "ORC") return ctx.Corrupt("no \"ORC\" magic in the postscript or the header");
  }

  OrcTail tail;
  if (ps.compression > static_cast<uint64_t>(OrcCompression::kZstd)) {
    return ctx.Corrupt("unknown compression kind ", ps.compression);
  }
  tail.compression = static_cast<OrcCompression>(ps.compression);
  if (tail.compression == OrcCompression::kLzo) {
    return Status::NotImplemented(source, ": ORC files compressed with LZO are not supported");
  }
  if (tail.compression != OrcCompression::kNone) {
    tail.compression_block_size = ps.block_size.value_or(kDefaultBlockSize);
    if (tail.compression_block_size > kOrcMaxBlockSize) {
      return ctx.Corrupt("compression block size ", tail.compression_block_size,
                         " exceeds the limit of ", kOrcMaxBlockSize);
    }
  }
  tail.version = std::move(ps.version);
  tail.writer_version = ps.writer_version;
  tail.footer_length = ps.footer_length;
  tail.metadata_length = ps.metadata_length;

  // File layout: "ORC" | ... | metadata | footer | postscript | ps_length.
  uint64_t available = file_size - 3 - 1 - ps_length;
  if (ps.footer_length > available || ps.metadata_length > available - ps.footer_length) {
    return ctx.Corrupt("footer (", ps.footer_length, " bytes) and metadata (", ps.metadata_length,
                       " bytes) exceed the file of ", file_size, " bytes");
  }
  if (ps.footer_length > kOrcMaxFooterBytes) {
    return ctx.Corrupt("footer of ", ps.footer_length, " bytes exceeds the limit of ",
                       kOrcMaxFooterBytes);
  }
  uint64_t footer_offset = file_size - 1 - ps_length - ps.footer_length;
  tail.metadata_offset = footer_offset - ps.metadata_length;
  if (tail.metadata_offset >= tail_offset) {
    tail.metadata = tail_bytes.substr(tail.metadata_offset - tail_offset,
                                      static_cast<size_t>(ps.metadata_length));
  }
  std::string footer_read;
  std::string_view footer_bytes;
  if (footer_offset >= tail_offset) {
    footer_bytes = std::string_view(tail_bytes)
                       .substr(footer_offset - tail_offset, static_cast<size_t>(ps.footer_length));
  } else {
    FJORD_ASSIGN_OR_RAISE(footer_read, read(footer_offset, ps.footer_length));
    footer_bytes = footer_read;
  }

  std::string footer;
  FJORD_RETURN_NOT_OK(Decompress(tail.compression, tail.compression_block_size, footer_bytes, ctx,
                                 "footer", &footer));
  FJORD_RETURN_NOT_OK(ParseFooter(footer, &ctx, &tail));
  FJORD_RETURN_NOT_OK(ValidateTypes(tail.types, ctx));
  return tail;
}

Result<OrcTail> ReadOrcTail(std::string_view file_bytes, std::string_view source) {
  OrcReadAt read_at = [file_bytes](uint64_t offset, uint64_t length) -> Result<std::string> {
    if (offset > file_bytes.size() || length > file_bytes.size() - offset) {
      return Status::Internal("read past the end of the in-memory file");
    }
    return std::string(file_bytes.substr(offset, length));
  };
  return ReadOrcTail(file_bytes.size(), read_at, source);
}

#ifndef FJORD_ORC_TAIL_NO_ARROW
Result<OrcTail> ReadOrcTail(arrow::io::RandomAccessFile* file, std::string_view source) {
  auto size = file->GetSize();
  if (!size.ok()) return FromArrow(size.status()).WithContext(source);
  if (*size < 0) return Status::IOError(source, ": negative file size");
  OrcReadAt read_at = [file, source](uint64_t offset, uint64_t length) -> Result<std::string> {
    auto buffer = file->ReadAt(static_cast<int64_t>(offset), static_cast<int64_t>(length));
    if (!buffer.ok()) return FromArrow(buffer.status()).WithContext(source);
    return std::string(reinterpret_cast<const char*>((*buffer)->data()),
                       static_cast<size_t>((*buffer)->size()));
  };
  return ReadOrcTail(static_cast<uint64_t>(*size), read_at, source);
}
#endif

Status ReadOrcStripeStats(
    const OrcTail& tail, uint64_t file_size, const OrcReadAt& read_at, std::string_view source,
    const std::vector<uint32_t>& columns,
    const std::function<Status(size_t index, const std::vector<OrcColumnStats>& stats)>&
        on_stripe) {
  Context ctx{source};
  if (tail.metadata_length == 0) return Status::OK();
  // Checked again: a tail may be built by hand.
  if (tail.metadata_offset > file_size || tail.metadata_length > file_size - tail.metadata_offset) {
    return ctx.Corrupt("metadata (", tail.metadata_length, " bytes at offset ",
                       tail.metadata_offset, ") exceeds the file of ", file_size, " bytes");
  }
  if (tail.metadata_length > kOrcMaxFooterBytes) {
    return ctx.Corrupt("metadata of ", tail.metadata_length, " bytes exceeds the limit of ",
                       kOrcMaxFooterBytes);
  }
  std::string stored;
  if (tail.metadata.size() == tail.metadata_length) {
    stored = tail.metadata;
  } else {
    FJORD_ASSIGN_OR_RAISE(stored, read_at(tail.metadata_offset, tail.metadata_length));
    if (stored.size() != tail.metadata_length) {
      return ctx.Corrupt("short read: ", stored.size(), " of ", tail.metadata_length,
                         " bytes at offset ", tail.metadata_offset);
    }
  }
  std::string metadata;
  FJORD_RETURN_NOT_OK(Decompress(tail.compression, tail.compression_block_size, stored, ctx,
                                 "metadata", &metadata));
  stored.clear();
  // The slot in `columns` of each column id asked for (ids past the type tree never match).
  std::vector<int64_t> slot(tail.types.size(), -1);
  for (size_t k = 0; k < columns.size(); ++k) {
    if (columns[k] < slot.size()) slot[columns[k]] = static_cast<int64_t>(k);
  }
  std::vector<OrcColumnStats> stats(columns.size());
  size_t index = 0;
  // orc_proto.proto Metadata { repeated StripeStatistics stripeStats = 1; }
  //                 StripeStatistics { repeated ColumnStatistics colStats = 1; }
  return ForEachField(metadata, ctx, "metadata", [&](const Field& f) -> Status {
    if (f.number != 1 || f.wire != kLengthDelimited) return Status::OK();
    std::fill(stats.begin(), stats.end(), OrcColumnStats{});
    std::string where = "metadata stripe " + std::to_string(index);
    size_t column = 0;
    FJORD_RETURN_NOT_OK(ForEachField(f.bytes, ctx, where, [&](const Field& g) -> Status {
      if (g.number != 1 || g.wire != kLengthDelimited) return Status::OK();
      size_t id = column++;
      if (id >= slot.size() || slot[id] < 0) return Status::OK();
      return ParseColumnStats(g.bytes, ctx, where + " column " + std::to_string(id),
                              &stats[static_cast<size_t>(slot[id])]);
    }));
    return on_stripe(index++, stats);
  });
}

bool HasMapWithNullKeys(const OrcTail& tail, uint32_t column) {
  if (tail.rows == 0) return false;
  // A tail from ReadOrcTail is a tree, so each type is visited at most once; the bounds checks
  // and the visit budget only guard tails built by hand.
  std::vector<uint32_t> pending{column};
  size_t budget = tail.types.size();
  while (!pending.empty()) {
    uint32_t id = pending.back();
    pending.pop_back();
    if (id >= tail.types.size() || budget-- == 0) return true;
    const OrcType& t = tail.types[id];
    if (t.kind == OrcTypeKind::kMap) {
      if (t.subtypes.empty()) return true;
      uint32_t key = t.subtypes[0];
      // Without the key column's hasNull statistic we cannot know: assume the worst.
      if (key >= tail.stats.size() || tail.stats[key].has_null.value_or(true)) return true;
    }
    pending.insert(pending.end(), t.subtypes.begin(), t.subtypes.end());
  }
  return false;
}

std::vector<std::string> MapColumnsWithNullKeys(const OrcTail& tail) {
  std::vector<std::string> out;
  if (tail.types.empty() || tail.types[0].kind != OrcTypeKind::kStruct) return out;
  const OrcType& root = tail.types[0];
  for (size_t i = 0; i < root.subtypes.size() && i < root.field_names.size(); ++i) {
    if (HasMapWithNullKeys(tail, root.subtypes[i])) out.push_back(root.field_names[i]);
  }
  return out;
}

Status CheckArrowCanReadOrc(const OrcTail& tail, const std::vector<std::string>& columns,
                            std::string_view source) {
  if (tail.types.empty() || tail.types[0].kind != OrcTypeKind::kStruct) {
    return Status::NotImplemented(
        source, ": the ORC root type is ",
        tail.types.empty() ? std::string("missing") : OrcTypeKindName(tail.types[0].kind),
        ", not a STRUCT");
  }
  const OrcType& root = tail.types[0];
  for (size_t i = 0; i < root.subtypes.size() && i < root.field_names.size(); ++i) {
    const std::string& name = root.field_names[i];
    if (!columns.empty() && std::find(columns.begin(), columns.end(), name) == columns.end()) {
      continue;
    }
    uint32_t id = root.subtypes[i];
    if (!HasMapWithNullKeys(tail, id)) continue;
    return Status::NotImplemented(
        source, ": column '", name, "' ", tail.types[id].kind == OrcTypeKind::kMap ? "is" : "holds",
        " a MAP with NULL keys, which Arrow's ORC reader cannot represent");
  }
  return Status::OK();
}

}  // namespace fjord
