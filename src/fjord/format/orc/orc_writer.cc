#include "fjord/format/orc/orc_writer.h"

#include <arrow/api.h>
#include <arrow/io/interfaces.h>

#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/common/strings.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/orc/column_writer.h"
#include "fjord/format/orc/out_stream.h"
#include "fjord/format/orc/proto_writer.h"
#include "fjord/version.h"

namespace fjord::orc {

namespace {

constexpr std::string_view kMagic = "ORC";
// orc_proto.proto: file version 0.12, writer version 9 (ORC-14), writer 0 (ORC Java), calendar
// JULIAN_GREGORIAN.
constexpr uint32_t kWriterVersion = 9;
constexpr uint32_t kWriterJava = 0;
constexpr uint32_t kCalendarJulianGregorian = 1;

// The number of ORC type nodes of `type`.
size_t CountTypes(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector:
      return 1 + CountTypes(*type.element());
    case TypeRoot::kMap:
      return 1 + CountTypes(*type.key()) + CountTypes(*type.value());
    case TypeRoot::kMultiset:
      return 2 + CountTypes(*type.element());
    case TypeRoot::kRow: {
      size_t n = 1;
      for (const DataField& f : type.fields()) n += CountTypes(*f.type);
      return n;
    }
    default:
      return 1;
  }
}

// Java's WriterImpl.getEstimatedBufferSize: the block size for `columns` type nodes.
uint64_t BlockSizeFor(uint64_t stripe_size, size_t columns, uint64_t configured) {
  uint64_t estimate = stripe_size / (20 * std::max<uint64_t>(columns, 1));
  uint64_t pow2 = 1;
  while (pow2 < estimate) pow2 <<= 1;
  pow2 = std::clamp<uint64_t>(pow2, 4 << 10, 256 << 10);
  return std::min(pow2, configured);
}

std::string TypeMessage(const OrcTypeNode& node) {
  ProtoWriter t;
  t.Uint(1, static_cast<uint32_t>(node.kind));
  t.Packed(2, node.subtypes);
  for (const std::string& name : node.field_names) t.Bytes(3, name);
  if (node.maximum_length) t.Uint(4, *node.maximum_length);
  if (node.precision) t.Uint(5, *node.precision);
  if (node.scale) t.Uint(6, *node.scale);
  if (node.paimon_id) {
    ProtoWriter attribute;
    attribute.Bytes(1, "paimon.id").Bytes(2, std::to_string(*node.paimon_id));
    t.Bytes(7, attribute.str());
  }
  return t.Take();
}

}  // namespace

Result<OrcCompression> OrcCompressionFor(std::string_view name) {
  std::string n = Lower(name);
  if (n == "zstd" || n == "zstandard") return OrcCompression::kZstd;
  if (n == "lz4") return OrcCompression::kLz4;
  if (n == "snappy") return OrcCompression::kSnappy;
  if (n == "zlib" || n == "gzip" || n == "deflate") return OrcCompression::kZlib;
  if (n == "none" || n == "uncompressed" || n.empty()) return OrcCompression::kNone;
  return Status::NotImplemented("file.compression '", name, "' is not supported for ORC");
}

OrcWriter::OrcWriter() = default;
OrcWriter::~OrcWriter() = default;

Result<std::unique_ptr<OrcWriter>> OrcWriter::Open(std::shared_ptr<arrow::io::OutputStream> out,
                                                   const std::vector<DataField>& fields,
                                                   OrcWriterOptions options) {
  std::unique_ptr<OrcWriter> w(new OrcWriter());
  w->out_ = std::move(out);
  w->options_ = options;
  DataTypePtr row = DataType::Row(fields, false);
  for (const DataField& f : fields) {
    FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(*f.type));
    w->arrow_types_.push_back(type);
    w->names_.push_back(f.name);
  }
  ColumnWriterContext ctx;
  if (options.compression != OrcCompression::kNone) {
    if (options.compression == OrcCompression::kZlib && options.compression_level == -1) {
      FJORD_ASSIGN_OR_RAISE(w->compressor_, Compressor::Make(options.compression, 2));
      FJORD_ASSIGN_OR_RAISE(w->light_compressor_, Compressor::Make(options.compression, 1, true));
      ctx.light_compressor = w->light_compressor_.get();
    } else {
      FJORD_ASSIGN_OR_RAISE(w->compressor_,
                            Compressor::Make(options.compression, options.compression_level));
    }
    w->block_size_ =
        BlockSizeFor(options.stripe_size, CountTypes(*row), options.compression_block_size);
    ctx.compressor = w->compressor_.get();
    ctx.block_size = w->block_size_;
  } else {
    w->block_size_ = options.compression_block_size;
  }
  FJORD_ASSIGN_OR_RAISE(
      w->root_, ColumnWriter::Make(*row, std::nullopt, 0, 0, ctx, &w->types_, &w->writers_));
  FJORD_RETURN_NOT_OK(w->Emit(kMagic));
  return w;
}

Status OrcWriter::Emit(std::string_view bytes) {
  if (bytes.empty()) return Status::OK();
  FJORD_ARROW_RETURN_NOT_OK(out_->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  written_ += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Status OrcWriter::Write(const arrow::RecordBatch& batch) {
  if (finished_) return Status::Invalid("ORC writer already finished");
  if (batch.num_columns() != static_cast<int>(arrow_types_.size())) {
    return Status::Invalid("batch has ", batch.num_columns(), " columns, the ORC file ",
                           arrow_types_.size());
  }
  for (size_t c = 0; c < arrow_types_.size(); ++c) {
    const auto& type = batch.column(static_cast<int>(c))->type();
    if (!type->Equals(*arrow_types_[c])) {
      return Status::Invalid("column '", names_[c], "' is ", type->ToString(), ", expected ",
                             arrow_types_[c]->ToString());
    }
  }
  if (batch.num_rows() == 0) return Status::OK();
  FJORD_ARROW_ASSIGN_OR_RAISE(auto root,
                              arrow::StructArray::Make(batch.columns(), names_, nullptr, 0));
  const int64_t n = batch.num_rows();
  for (int64_t start = 0; start < n;) {
    int64_t step =
        std::min(n - start, std::max<int64_t>(1, options_.rows_between_checks - rows_since_check_));
    FJORD_RETURN_NOT_OK(root_->Write(*root, {{start, start + step}}));
    start += step;
    stripe_rows_ += step;
    rows_ += step;
    rows_since_check_ += step;
    if (rows_since_check_ >= options_.rows_between_checks) {
      rows_since_check_ = 0;
      FJORD_RETURN_NOT_OK(root_->Spill());
      if (root_->BufferedBytes() >= options_.stripe_size) FJORD_RETURN_NOT_OK(FlushStripe());
    }
  }
  return Status::OK();
}

int64_t OrcWriter::EstimatedSize() const {
  return written_ + static_cast<int64_t>(root_->BufferedBytes());
}

Status OrcWriter::FlushStripe() {
  if (stripe_rows_ == 0) return Status::OK();
  std::vector<StripeStream> streams;
  std::vector<EncodingKind> encodings;
  FJORD_RETURN_NOT_OK(root_->FinishStripe(&streams, &encodings));
  OrcStripeInfo info;
  info.offset = static_cast<uint64_t>(written_);
  info.rows = static_cast<uint64_t>(stripe_rows_);
  // orc_proto.proto StripeFooter: streams, column encodings, writer time zone.
  ProtoWriter footer;
  for (const StripeStream& s : streams) {
    FJORD_RETURN_NOT_OK(Emit(*s.bytes));
    info.data_length += s.bytes->size();
    ProtoWriter stream;
    stream.Uint(1, static_cast<uint32_t>(s.kind)).Uint(2, s.column).Uint(3, s.bytes->size());
    footer.Bytes(1, stream.str());
  }
  for (EncodingKind kind : encodings) {
    ProtoWriter encoding;
    encoding.Uint(1, static_cast<uint32_t>(kind));
    footer.Bytes(2, encoding.str());
  }
  footer.Bytes(3, "UTC");
  OutStream compressed(compressor_.get(), block_size_);
  compressed.buffer()->assign(footer.str());
  FJORD_RETURN_NOT_OK(compressed.Finish());
  FJORD_RETURN_NOT_OK(Emit(compressed.output()));
  info.footer_length = compressed.output().size();
  stripes_.push_back(info);
  ProtoWriter stats;
  for (ColumnWriter* w : writers_) stats.Bytes(1, w->stripe_stats().Serialize());
  stripe_stats_.push_back(stats.Take());
  root_->ResetStripe();
  stripe_rows_ = 0;
  return Status::OK();
}

Result<int64_t> OrcWriter::Finish() {
  if (finished_) return Status::Invalid("ORC writer already finished");
  finished_ = true;
  FJORD_RETURN_NOT_OK(FlushStripe());
  const auto content_length = static_cast<uint64_t>(written_);
  auto compress = [&](const std::string& bytes) -> Result<std::string> {
    OutStream s(compressor_.get(), block_size_);
    s.buffer()->assign(bytes);
    FJORD_RETURN_NOT_OK(s.Finish());
    return s.output();
  };
  // Metadata: the statistics of every stripe.
  ProtoWriter metadata;
  for (const std::string& s : stripe_stats_) metadata.Bytes(1, s);
  FJORD_ASSIGN_OR_RAISE(std::string metadata_bytes, compress(metadata.str()));
  FJORD_RETURN_NOT_OK(Emit(metadata_bytes));
  // Footer.
  ProtoWriter footer;
  footer.Uint(1, kMagic.size()).Uint(2, content_length);
  for (const OrcStripeInfo& s : stripes_) {
    ProtoWriter stripe;
    stripe.Uint(1, s.offset)
        .Uint(2, s.index_length)
        .Uint(3, s.data_length)
        .Uint(4, s.footer_length)
        .Uint(5, s.rows);
    footer.Bytes(3, stripe.str());
  }
  for (const OrcTypeNode& node : types_) footer.Bytes(4, TypeMessage(node));
  footer.Uint(6, static_cast<uint64_t>(rows_));
  for (ColumnWriter* w : writers_) footer.Bytes(7, w->file_stats().Serialize());
  footer.Uint(8, 0);  // rowIndexStride: no row index
  footer.Uint(9, kWriterJava);
  footer.Uint(11, kCalendarJulianGregorian);
  footer.Bytes(12, std::string("Fjord ") + FjordVersion());
  FJORD_ASSIGN_OR_RAISE(std::string footer_bytes, compress(footer.str()));
  FJORD_RETURN_NOT_OK(Emit(footer_bytes));
  // PostScript (never compressed), then its length.
  ProtoWriter ps;
  ps.Uint(1, footer_bytes.size())
      .Uint(2,
            static_cast<uint32_t>(compressor_ ? compressor_->compression() : OrcCompression::kNone))
      .Uint(3, block_size_)
      .Packed(4, std::vector<uint32_t>{0, 12})
      .Uint(5, metadata_bytes.size())
      .Uint(6, kWriterVersion)
      .Bytes(8000, kMagic);
  if (ps.str().size() > 255) return Status::Internal("ORC PostScript longer than 255 bytes");
  FJORD_RETURN_NOT_OK(Emit(ps.str()));
  char ps_length = static_cast<char>(ps.str().size());
  FJORD_RETURN_NOT_OK(Emit(std::string_view(&ps_length, 1)));
  return written_;
}

}  // namespace fjord::orc
