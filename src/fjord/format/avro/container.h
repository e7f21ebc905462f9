// Avro object container files (specification, "Object Container Files"), the format of Paimon's
// manifests, manifest lists, index manifests and Avro data files.
//
//   file   := magic "Obj\x01", metadata, sync marker (16 bytes), block*
//   metadata := an Avro map<bytes>: "avro.schema" (the writer's schema as JSON), "avro.codec"
//               (absent means "null"), and whatever else the writer put there
//   block  := record count (long), byte size (long), the records' binary encoding compressed with
//             the codec, the file's sync marker again
//
// Reading works on the whole file in memory (Paimon's metadata files are small and read whole).
// The reader validates as it goes: a bad magic, a truncated header or block, a sync marker that
// does not match, a block that fails to decompress or to decode, or bytes left over in a block all
// give a Corruption error that starts with the source name (the file name the caller passes) and
// says which block and where. Schema resolution (reading with a different reader schema) is not
// done: records are decoded with the writer's schema.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/format/avro/binary.h"
#include "fjord/format/avro/codec.h"
#include "fjord/format/avro/datum.h"
#include "fjord/format/avro/schema.h"
#include "fjord/result.h"

namespace fjord::avro {

inline constexpr std::string_view kMagic{"Obj\x01", 4};
inline constexpr size_t kSyncSize = 16;
// Java's DataFileConstants.DEFAULT_SYNC_INTERVAL: a block is cut once it holds this many bytes.
inline constexpr int64_t kDefaultSyncInterval = 64000;

// The header's key/value pairs in file order, "avro.schema" and "avro.codec" included.
using Metadata = std::vector<std::pair<std::string, std::string>>;

struct ReaderOptions {
  // Largest decompressed block accepted; guards against decompression bombs.
  int64_t max_block_bytes = int64_t{256} << 20;
  // Per block: how many records/elements that may encode to zero bytes are accepted.
  int64_t zero_size_budget = kDefaultZeroSizeBudget;
};

// Reads one container file. Not thread-safe. After an error every further read returns it again.
class ContainerReader {
 public:
  // Parses the header of the file held in `data`, which must stay alive and unchanged while the
  // reader is used. `source` names the file in errors.
  static Result<std::unique_ptr<ContainerReader>> Open(std::string_view data, std::string source,
                                                       const ReaderOptions& options = {});

  const std::shared_ptr<const Schema>& schema() const { return schema_; }
  Codec codec() const { return codec_; }
  const Metadata& metadata() const { return metadata_; }
  // The value of a metadata key (the last one if repeated, as Java keeps it), or nullopt.
  std::optional<std::string_view> GetMetadata(std::string_view key) const;
  // The 16 bytes that end the header and every block.
  const std::string& sync_marker() const { return sync_marker_; }
  const std::string& source() const { return source_; }

  // Decodes the next record into `out` (reusing its storage: pass the same Datum each time to
  // avoid allocating). Returns false, leaving `out` alone, once every block has been read.
  Result<bool> Next(Datum* out);
  // Decodes the next record with `decode`, which must read exactly one record of the writer's
  // schema from the decoder it is given (a decoder that builds the caller's own structures);
  // errors get the context Next() gives them. Returns false once every block has been read.
  Result<bool> NextWith(const std::function<Status(BinaryDecoder*)>& decode);
  // Reads the next block whole: `out` is resized to its record count and the records decoded in
  // place (again reusing storage). Returns false at the end of the file. Must not be mixed with
  // Next() in the middle of a block (Invalid).
  Result<bool> ReadBlock(std::vector<Datum>* out);
  // Every record not read yet.
  Result<std::vector<Datum>> ReadAll();

  // Blocks loaded so far (empty blocks included).
  int64_t blocks_read() const { return block_index_; }

 private:
  ContainerReader(std::string_view data, std::string source, const ReaderOptions& options);
  Status ReadHeader();
  // Loads the next block with at least one record; *loaded = false at the end of the file.
  Status LoadBlock(bool* loaded);
  // Decodes one record of the current block.
  Status DecodeRecord(Datum* out);
  Status DecodeRecordWith(const std::function<Status(BinaryDecoder*)>& decode);
  Status Fail(Status st) {
    status_ = st;
    return st;
  }

  std::string_view data_;
  std::string source_;
  ReaderOptions options_;
  Status status_;

  std::shared_ptr<const Schema> schema_;
  Codec codec_ = Codec::kNull;
  Metadata metadata_;
  std::string sync_marker_;

  BlockCodec block_codec_;
  size_t pos_ = 0;            // file offset of the next block
  int64_t block_index_ = 0;   // blocks loaded so far
  int64_t block_offset_ = 0;  // file offset of the current block
  std::string block_buffer_;  // decompressed data of the current block
  std::optional<BinaryDecoder> block_decoder_;
  int64_t block_records_ = 0;    // records in the current block
  int64_t block_remaining_ = 0;  // records of the current block not decoded yet
};

struct WriterOptions {
  // Zstandard, as Paimon writes its manifests ("manifest.compression" = zstd).
  Codec codec = Codec::kZstandard;
  // The codec's level; nullopt = DefaultCompressionLevel(codec) (zstandard 1, deflate 6).
  std::optional<int> compression_level;
  // Zstandard frames carry a content checksum (see BlockCodec::set_zstd_checksum).
  bool zstd_checksum = true;
  // A block is written once its uncompressed records reach this many bytes.
  int64_t sync_interval = kDefaultSyncInterval;
  // Extra header entries, written after avro.schema and avro.codec. Keys starting with "avro."
  // are reserved (Invalid).
  Metadata metadata;
  // The 16-byte sync marker; random when absent (set it for reproducible output).
  std::optional<std::string> sync_marker;
  // Names the file in errors.
  std::string source = "<avro writer>";
};

// Writes one container file into memory. Not thread-safe.
class ContainerWriter {
 public:
  static Result<std::unique_ptr<ContainerWriter>> Create(std::shared_ptr<const Schema> schema,
                                                         WriterOptions options = {});

  // Appends one record. A datum that does not match the schema is Invalid (naming the record and
  // the field) and leaves the file as it was.
  Status Append(const Datum& datum);
  // Ends the current block now (no-op when it is empty).
  Status FlushBlock();
  // Writes the last block and returns the file's bytes. The writer cannot be used afterwards.
  Result<std::string> Finish();

  int64_t record_count() const { return record_count_; }
  // Bytes written so far plus the records buffered for the current block (uncompressed): an upper
  // estimate of the file size, for rolling files at a target size.
  int64_t EstimatedSize() const { return static_cast<int64_t>(out_.size() + block_.size()); }
  const std::shared_ptr<const Schema>& schema() const { return schema_; }

 private:
  ContainerWriter(std::shared_ptr<const Schema> schema, WriterOptions options);

  std::shared_ptr<const Schema> schema_;
  WriterOptions options_;
  int level_ = 0;
  BlockCodec block_codec_;
  std::string out_;
  std::string block_;       // encoded records of the current block
  std::string compressed_;  // scratch
  int64_t block_records_ = 0;
  int64_t record_count_ = 0;
  bool finished_ = false;
};

// A whole file read at once.
struct ContainerFile {
  std::shared_ptr<const Schema> schema;
  Codec codec = Codec::kNull;
  Metadata metadata;
  std::vector<Datum> records;
};

Result<ContainerFile> ReadContainerFile(std::string_view data, std::string source,
                                        const ReaderOptions& options = {});

// Writes `records` as one file.
Result<std::string> WriteContainerFile(std::shared_ptr<const Schema> schema,
                                       const std::vector<Datum>& records,
                                       WriterOptions options = {});

}  // namespace fjord::avro
