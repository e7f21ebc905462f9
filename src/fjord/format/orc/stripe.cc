#include "fjord/format/orc/stripe.h"

#include <algorithm>

#include "fjord/format/orc/protobuf.h"

namespace fjord::orc {

namespace {

struct StreamEntry {
  uint32_t column = 0;
  uint32_t kind = 0;
  uint64_t length = 0;
};

struct StripeFooter {
  std::vector<StreamEntry> streams;
  std::vector<ColumnEncoding> encodings;
  std::string writer_timezone;
  bool encrypted = false;
};

Status ParseStripeFooter(std::string_view data, StripeFooter* footer) {
  return ForEachProtoField(data, [&](const ProtoField& f) -> Status {
    if (f.wire != kLengthDelimited) return Status::OK();
    if (f.number == 1) {
      StreamEntry& s = footer->streams.emplace_back();
      return ForEachProtoField(f.bytes, [&](const ProtoField& g) -> Status {
        if (g.wire != kVarint) return Status::OK();
        if (g.number == 1) s.kind = static_cast<uint32_t>(g.value);
        if (g.number == 2) s.column = static_cast<uint32_t>(g.value);
        if (g.number == 3) s.length = g.value;
        return Status::OK();
      });
    }
    if (f.number == 2) {
      ColumnEncoding& e = footer->encodings.emplace_back();
      return ForEachProtoField(f.bytes, [&](const ProtoField& g) -> Status {
        if (g.wire != kVarint) return Status::OK();
        if (g.number == 1) {
          if (g.value > static_cast<uint64_t>(EncodingKind::kDictionaryV2)) {
            return Status::Corruption("unknown column encoding ", g.value);
          }
          e.kind = static_cast<EncodingKind>(g.value);
        }
        if (g.number == 2) e.dictionary_size = static_cast<uint32_t>(g.value);
        return Status::OK();
      });
    }
    if (f.number == 3) footer->writer_timezone.assign(f.bytes);
    if (f.number == 4) footer->encrypted = true;
    return Status::OK();
  });
}

bool IsDataStream(uint32_t kind) {
  switch (static_cast<StreamKind>(kind)) {
    case StreamKind::kPresent:
    case StreamKind::kData:
    case StreamKind::kLength:
    case StreamKind::kDictionaryData:
    case StreamKind::kSecondary:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string StreamKindName(StreamKind kind) {
  static constexpr const char* kNames[] = {
      "PRESENT", "DATA", "LENGTH", "DICTIONARY_DATA", "DICTIONARY_COUNT", "SECONDARY", "ROW_INDEX"};
  auto k = static_cast<uint32_t>(kind);
  if (k < std::size(kNames)) return kNames[k];
  return "STREAM(" + std::to_string(k) + ")";
}

Result<StripeData> ReadStripe(const OrcTail& tail, uint64_t file_size, const OrcReadAt& read_at,
                              size_t index, const std::vector<bool>& columns,
                              Decompressor* decompressor, std::string_view source) {
  auto corrupt = [&](auto&&... args) {
    return Status::Corruption(source, ": ORC stripe ", index, ": ", args...);
  };
  const OrcStripeInfo& info = tail.stripes.at(index);
  // Every part must lie inside the file, before its tail.
  uint64_t end = info.offset;
  for (uint64_t part : {info.index_length, info.data_length, info.footer_length}) {
    if (part > file_size || end > file_size - part) {
      return corrupt("extent (offset ", info.offset, ", ", info.index_length, " + ",
                     info.data_length, " + ", info.footer_length, " bytes) exceeds the file of ",
                     file_size, " bytes");
    }
    end += part;
  }
  if (info.rows > kOrcMaxStripeRows) {
    return corrupt(info.rows, " rows exceed the limit of ", kOrcMaxStripeRows);
  }
  if (info.footer_length > kOrcMaxFooterBytes) {
    return corrupt("footer of ", info.footer_length, " bytes exceeds the limit");
  }
  uint64_t footer_offset = info.offset + info.index_length + info.data_length;
  FJORD_ASSIGN_OR_RAISE(std::string raw_footer, read_at(footer_offset, info.footer_length));
  if (raw_footer.size() != info.footer_length) return corrupt("short read of the footer");
  std::string footer_bytes;
  Status st = decompressor->Decompress(raw_footer, kOrcMaxFooterBytes, &footer_bytes);
  if (!st.ok()) return st.WithContext(source, ": ORC stripe ", index, " footer");
  StripeFooter footer;
  st = ParseStripeFooter(footer_bytes, &footer);
  if (!st.ok()) return st.WithContext(source, ": ORC stripe ", index, " footer");
  if (footer.encrypted) {
    return Status::NotImplemented(source, ": ORC stripe ", index, " has encrypted columns");
  }

  StripeData out;
  out.rows = info.rows;
  out.encodings = std::move(footer.encodings);
  out.writer_timezone = std::move(footer.writer_timezone);

  // Locate the wanted streams, then read the span that holds them all.
  struct Wanted {
    uint32_t column;
    StreamKind kind;
    uint64_t offset;
    uint64_t length;
  };
  std::vector<Wanted> wanted;
  uint64_t pos = info.offset;
  uint64_t limit = footer_offset;
  for (const StreamEntry& s : footer.streams) {
    if (s.length > limit - pos) {
      return corrupt("stream ", StreamKindName(static_cast<StreamKind>(s.kind)), " of column ",
                     s.column, " (", s.length, " bytes at ", pos, ") runs past the stripe's data");
    }
    if (s.column < columns.size() && columns[s.column] && IsDataStream(s.kind)) {
      wanted.push_back({s.column, static_cast<StreamKind>(s.kind), pos, s.length});
    }
    pos += s.length;
  }
  if (wanted.empty()) return out;
  uint64_t first = wanted.front().offset;
  uint64_t last = 0;
  for (const Wanted& w : wanted) {
    first = std::min(first, w.offset);
    last = std::max(last, w.offset + w.length);
  }
  FJORD_ASSIGN_OR_RAISE(std::string span, read_at(first, last - first));
  if (span.size() != last - first) return corrupt("short read of the streams");
  for (const Wanted& w : wanted) {
    auto [it, inserted] = out.streams.try_emplace({w.column, w.kind});
    if (!inserted) {
      return corrupt("two ", StreamKindName(w.kind), " streams for column ", w.column);
    }
    std::string_view raw = std::string_view(span).substr(w.offset - first, w.length);
    st = decompressor->Decompress(raw, kOrcMaxStreamBytes, &it->second);
    if (!st.ok()) {
      return st.WithContext(source, ": ORC stripe ", index, ": column ", w.column, " ",
                            StreamKindName(w.kind), " stream");
    }
  }
  return out;
}

}  // namespace fjord::orc
