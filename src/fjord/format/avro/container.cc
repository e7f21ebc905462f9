#include "fjord/format/avro/container.h"

#include <limits>
#include <random>

namespace fjord::avro {

// ---------------------------------------------------------------------------------------------
// Reader

ContainerReader::ContainerReader(std::string_view data, std::string source,
                                 const ReaderOptions& options)
    : data_(data), source_(std::move(source)), options_(options) {}

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(std::string_view data,
                                                               std::string source,
                                                               const ReaderOptions& options) {
  std::unique_ptr<ContainerReader> reader(new ContainerReader(data, std::move(source), options));
  FJORD_RETURN_NOT_OK(reader->ReadHeader());
  return reader;
}

std::optional<std::string_view> ContainerReader::GetMetadata(std::string_view key) const {
  for (auto it = metadata_.rbegin(); it != metadata_.rend(); ++it) {
    if (it->first == key) return std::string_view(it->second);
  }
  return std::nullopt;
}

Status ContainerReader::ReadHeader() {
  if (data_.size() < kMagic.size() || data_.substr(0, kMagic.size()) != kMagic) {
    return Status::Corruption(source_, ": not an Avro container file (bad magic; ", data_.size(),
                              " bytes)");
  }
  BinaryDecoder decoder(data_.substr(kMagic.size()), kMagic.size());
  auto header_error = [&](const Status& st) {
    return st.WithContext(source_, ": invalid header metadata");
  };
  while (true) {
    int64_t count;
    Status st = decoder.ReadLong(&count);
    if (!st.ok()) return header_error(st);
    if (count == 0) break;
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) {
        return Status::Corruption(source_, ": invalid header metadata: bad block count");
      }
      count = -count;
      int64_t byte_size;
      st = decoder.ReadLong(&byte_size);
      if (!st.ok()) return header_error(st);
    }
    // A key and a value: at least two length bytes.
    st = decoder.CheckCount(count, 2, "metadata entries");
    if (!st.ok()) return header_error(st);
    for (int64_t i = 0; i < count; ++i) {
      std::string_view key, value;
      st = decoder.ReadBytes(&key);
      if (st.ok()) st = decoder.ReadBytes(&value);
      if (!st.ok()) return header_error(st);
      metadata_.emplace_back(std::string(key), std::string(value));
    }
  }
  std::string_view sync;
  Status st = decoder.ReadFixed(kSyncSize, &sync);
  if (!st.ok()) return st.WithContext(source_, ": truncated header (no sync marker)");
  sync_marker_.assign(sync);
  pos_ = kMagic.size() + static_cast<size_t>(decoder.position());

  std::optional<std::string_view> codec_name = GetMetadata("avro.codec");
  if (codec_name) {
    auto codec = CodecFromName(*codec_name);
    if (!codec.ok()) {
      // An unknown name means a damaged file; bzip2 and xz are merely unsupported.
      if (codec.status().IsInvalid()) {
        return Status::Corruption(source_, ": ", codec.status().message());
      }
      return codec.status().WithContext(source_);
    }
    codec_ = *codec;
  }
  std::optional<std::string_view> schema_text = GetMetadata("avro.schema");
  if (!schema_text) return Status::Corruption(source_, ": header has no avro.schema");
  // As Java's reader: no name or default validation for a schema that has already been written.
  SchemaParseOptions parse_options;
  parse_options.validate_names = false;
  parse_options.validate_defaults = false;
  auto schema = Schema::Parse(*schema_text, parse_options);
  if (!schema.ok()) {
    return Status::Corruption(source_, ": bad avro.schema: ", schema.status().message());
  }
  schema_ = std::move(schema).value();
  return Status::OK();
}

Status ContainerReader::LoadBlock(bool* loaded) {
  while (true) {
    *loaded = false;
    if (pos_ == data_.size()) return Status::OK();
    block_offset_ = static_cast<int64_t>(pos_);
    const int64_t block_number = block_index_;
    auto where = [&]() {
      return source_ + ": block " + std::to_string(block_number) + " (file offset " +
             std::to_string(block_offset_) + ")";
    };
    BinaryDecoder header(data_.substr(pos_), block_offset_);
    int64_t count, size;
    Status st = header.ReadLong(&count);
    if (st.ok()) st = header.ReadLong(&size);
    if (!st.ok()) return Fail(st.WithContext(where(), ": truncated or invalid block header"));
    if (count < 0) {
      return Fail(Status::Corruption(where(), ": negative record count ", count));
    }
    if (size < 0) return Fail(Status::Corruption(where(), ": negative block size ", size));
    const size_t data_start = pos_ + static_cast<size_t>(header.position());
    const size_t left = data_.size() - data_start;
    if (left < kSyncSize || static_cast<uint64_t>(size) > left - kSyncSize) {
      return Fail(Status::Corruption(where(), ": block of ", size, " bytes and its sync marker ",
                                     "do not fit in the ", left, " bytes left (truncated file?)"));
    }
    std::string_view compressed = data_.substr(data_start, static_cast<size_t>(size));
    std::string_view sync = data_.substr(data_start + static_cast<size_t>(size), kSyncSize);
    if (sync != sync_marker_) {
      return Fail(Status::Corruption(where(), ": sync marker after the block does not match the ",
                                     "header's (corrupt or truncated file)"));
    }
    pos_ = data_start + static_cast<size_t>(size) + kSyncSize;
    ++block_index_;
    if (count == 0) continue;  // Java never writes these, but they are harmless.

    std::string_view block_data;
    if (codec_ == Codec::kNull) {
      if (size > options_.max_block_bytes) {
        return Fail(Status::Corruption(where(), ": block of ", size, " bytes exceeds the limit of ",
                                       options_.max_block_bytes));
      }
      block_data = compressed;
    } else {
      st = block_codec_.Decompress(codec_, compressed, options_.max_block_bytes, &block_buffer_);
      if (!st.ok()) return Fail(st.WithContext(where(), ": ", CodecName(codec_), " codec"));
      block_data = block_buffer_;
    }
    block_decoder_.emplace(block_data, 0);
    block_decoder_->set_zero_size_budget(options_.zero_size_budget);
    st = block_decoder_->CheckCount(count, schema_->root().min_encoded_size(), "records");
    if (!st.ok()) {
      return Fail(st.WithContext(where()));
    }
    block_records_ = count;
    block_remaining_ = count;
    *loaded = true;
    return Status::OK();
  }
}

Status ContainerReader::DecodeRecord(Datum* out) {
  return DecodeRecordWith([&](BinaryDecoder* in) { return in->ReadDatum(schema_->root(), out); });
}

Status ContainerReader::DecodeRecordWith(const std::function<Status(BinaryDecoder*)>& decode) {
  const int64_t record = block_records_ - block_remaining_;
  Status st = decode(&*block_decoder_);
  if (!st.ok()) {
    return Fail(st.WithContext(source_, ": block ", block_index_ - 1, " (file offset ",
                               block_offset_, "): record ", record, " (offsets are within the ",
                               "decompressed block)"));
  }
  if (--block_remaining_ == 0 && !block_decoder_->at_end()) {
    return Fail(Status::Corruption(source_, ": block ", block_index_ - 1, " (file offset ",
                                   block_offset_, "): ", block_decoder_->remaining(),
                                   " bytes left over after its ", block_records_, " records"));
  }
  return Status::OK();
}

Result<bool> ContainerReader::Next(Datum* out) {
  return NextWith([&](BinaryDecoder* in) { return in->ReadDatum(schema_->root(), out); });
}

Result<bool> ContainerReader::NextWith(const std::function<Status(BinaryDecoder*)>& decode) {
  FJORD_RETURN_NOT_OK(status_);
  if (block_remaining_ == 0) {
    bool loaded;
    FJORD_RETURN_NOT_OK(LoadBlock(&loaded));
    if (!loaded) return false;
  }
  FJORD_RETURN_NOT_OK(DecodeRecordWith(decode));
  return true;
}

Result<bool> ContainerReader::ReadBlock(std::vector<Datum>* out) {
  FJORD_RETURN_NOT_OK(status_);
  if (block_remaining_ != 0) {
    return Status::Invalid(source_, ": ReadBlock called in the middle of a block");
  }
  bool loaded;
  FJORD_RETURN_NOT_OK(LoadBlock(&loaded));
  if (!loaded) {
    out->clear();
    return false;
  }
  out->resize(static_cast<size_t>(block_records_));
  for (Datum& d : *out) FJORD_RETURN_NOT_OK(DecodeRecord(&d));
  return true;
}

Result<std::vector<Datum>> ContainerReader::ReadAll() {
  FJORD_RETURN_NOT_OK(status_);
  std::vector<Datum> records;
  while (true) {
    if (block_remaining_ == 0) {
      bool loaded;
      FJORD_RETURN_NOT_OK(LoadBlock(&loaded));
      if (!loaded) break;
    }
    size_t start = records.size();
    records.resize(start + static_cast<size_t>(block_remaining_));
    for (size_t i = start; i < records.size(); ++i) FJORD_RETURN_NOT_OK(DecodeRecord(&records[i]));
  }
  return records;
}

Result<ContainerFile> ReadContainerFile(std::string_view data, std::string source,
                                        const ReaderOptions& options) {
  FJORD_ASSIGN_OR_RAISE(auto reader, ContainerReader::Open(data, std::move(source), options));
  ContainerFile file;
  FJORD_ASSIGN_OR_RAISE(file.records, reader->ReadAll());
  file.schema = reader->schema();
  file.codec = reader->codec();
  file.metadata = reader->metadata();
  return file;
}

// ---------------------------------------------------------------------------------------------
// Writer

ContainerWriter::ContainerWriter(std::shared_ptr<const Schema> schema, WriterOptions options)
    : schema_(std::move(schema)), options_(std::move(options)) {}

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Create(
    std::shared_ptr<const Schema> schema, WriterOptions options) {
  if (schema == nullptr) return Status::Invalid(options.source, ": no schema");
  if (options.sync_interval <= 0) {
    return Status::Invalid(options.source, ": sync interval must be positive");
  }
  for (size_t i = 0; i < options.metadata.size(); ++i) {
    const std::string& key = options.metadata[i].first;
    if (key.starts_with("avro.")) {
      return Status::Invalid(options.source, ": metadata key '", key, "' is reserved");
    }
    for (size_t j = 0; j < i; ++j) {
      if (options.metadata[j].first == key) {
        return Status::Invalid(options.source, ": metadata key '", key, "' given twice");
      }
    }
  }
  std::string sync;
  if (options.sync_marker) {
    if (options.sync_marker->size() != kSyncSize) {
      return Status::Invalid(options.source, ": sync marker must be ", kSyncSize, " bytes");
    }
    sync = *options.sync_marker;
  } else {
    std::random_device rd;
    for (size_t i = 0; i < kSyncSize; i += 4) {
      uint32_t r = rd();
      for (size_t k = 0; k < 4; ++k) sync.push_back(static_cast<char>(r >> (8 * k)));
    }
    options.sync_marker = sync;
  }

  std::unique_ptr<ContainerWriter> w(new ContainerWriter(std::move(schema), std::move(options)));
  w->level_ = w->options_.compression_level.value_or(DefaultCompressionLevel(w->options_.codec));
  w->block_codec_.set_zstd_checksum(w->options_.zstd_checksum);
  // Check the level now rather than at the first block.
  Status st = w->block_codec_.Compress(w->options_.codec, w->level_, "", &w->compressed_);
  if (!st.ok()) return st.WithContext(w->options_.source);

  std::string& out = w->out_;
  out.append(kMagic);
  const Metadata& extra = w->options_.metadata;
  AppendLong(static_cast<int64_t>(2 + extra.size()), &out);
  AppendBytes("avro.schema", &out);
  AppendBytes(w->schema_->ToJson(), &out);
  AppendBytes("avro.codec", &out);
  AppendBytes(CodecName(w->options_.codec), &out);
  for (const auto& [key, value] : extra) {
    AppendBytes(key, &out);
    AppendBytes(value, &out);
  }
  AppendLong(0, &out);
  out.append(sync);
  return w;
}

Status ContainerWriter::Append(const Datum& datum) {
  if (finished_) return Status::Invalid(options_.source, ": Append after Finish");
  size_t before = block_.size();
  Status st = EncodeDatum(schema_->root(), datum, &block_);
  if (!st.ok()) {
    block_.resize(before);
    return st.WithContext(options_.source, ": record ", record_count_);
  }
  ++block_records_;
  ++record_count_;
  if (static_cast<int64_t>(block_.size()) >= options_.sync_interval) return FlushBlock();
  return Status::OK();
}

Status ContainerWriter::FlushBlock() {
  if (finished_) return Status::Invalid(options_.source, ": FlushBlock after Finish");
  if (block_records_ == 0) return Status::OK();
  Status st = block_codec_.Compress(options_.codec, level_, block_, &compressed_);
  if (!st.ok()) return st.WithContext(options_.source);
  AppendLong(block_records_, &out_);
  AppendLong(static_cast<int64_t>(compressed_.size()), &out_);
  out_.append(compressed_);
  out_.append(*options_.sync_marker);
  block_.clear();
  block_records_ = 0;
  return Status::OK();
}

Result<std::string> ContainerWriter::Finish() {
  FJORD_RETURN_NOT_OK(FlushBlock());
  finished_ = true;
  return std::move(out_);
}

Result<std::string> WriteContainerFile(std::shared_ptr<const Schema> schema,
                                       const std::vector<Datum>& records, WriterOptions options) {
  FJORD_ASSIGN_OR_RAISE(auto writer,
                        ContainerWriter::Create(std::move(schema), std::move(options)));
  for (const Datum& d : records) FJORD_RETURN_NOT_OK(writer->Append(d));
  return writer->Finish();
}

}  // namespace fjord::avro
