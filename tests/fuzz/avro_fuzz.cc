// libFuzzer target: arbitrary bytes opened as an Avro container file and read to the end.
//
// Every input must end in a Status, never a crash, a hang, or unbounded memory. Whatever reads
// successfully must also survive the round trip: print the schema and parse it again, write the
// records with our writer and read them back, identical. Skipping each record (SkipDatum) takes
// the same records, and a file the manifest-entry decoder takes decodes without a crash.
//
// Seed corpus: the Java-written files under tests/fixtures/paimon-java (any file whose first
// bytes are "Obj\x01").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fjord/format/avro/container.h"
#include "fjord/meta/manifest_entry_decoder.h"

namespace {

using fjord::avro::ContainerReader;
using fjord::avro::Datum;

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fjord::avro::ReaderOptions options;
  // Small limits keep each run quick and within the fuzzer's memory budget.
  options.max_block_bytes = 8 << 20;
  options.zero_size_budget = 1 << 16;

  auto opened = ContainerReader::Open(bytes, "fuzz.avro", options);
  if (!opened.ok()) return 0;
  std::unique_ptr<ContainerReader> reader = std::move(opened).value();

  // Record by record, reusing one Datum, as the hot path does.
  std::vector<Datum> records;
  Datum datum;
  while (true) {
    auto more = reader->Next(&datum);
    if (!more.ok()) {
      Check(!more.status().message().empty());
      return 0;
    }
    if (!*more) break;
    records.push_back(datum);
  }

  // Skipping reads the same records: whatever decodes, skips.
  {
    auto again = ContainerReader::Open(bytes, "fuzz.avro", options);
    Check(again.ok());
    const fjord::avro::Node& root = (*again)->schema()->root();
    size_t skipped = 0;
    while (true) {
      auto more =
          (*again)->NextWith([&](fjord::avro::BinaryDecoder* in) { return in->SkipDatum(root); });
      Check(more.ok());
      if (!*more) break;
      ++skipped;
    }
    Check(skipped == records.size());
  }

  // Manifests: the direct decoder ends in a Status, with and without a partition test.
  if (auto decoder = fjord::ManifestEntryDecoder::ForSchema(reader->schema()->root())) {
    for (bool test : {false, true}) {
      auto again = ContainerReader::Open(bytes, "fuzz.avro", options);
      Check(again.ok());
      std::function<bool(const std::string&)> keep = [](const std::string& p) {
        return p.size() % 2 == 0;
      };
      while (true) {
        fjord::ManifestEntry entry;
        bool kept;
        auto more = (*again)->NextWith([&](fjord::avro::BinaryDecoder* in) {
          return decoder->Decode(in, test ? &keep : nullptr, &entry, &kept);
        });
        if (!more.ok()) {
          Check(!more.status().message().empty());
          break;
        }
        if (!*more) break;
      }
    }
  }

  // The schema prints to text that parses back to a schema that prints the same.
  std::string printed = reader->schema()->ToJson();
  fjord::avro::SchemaParseOptions lenient;
  lenient.validate_names = false;
  lenient.validate_defaults = false;
  auto reparsed = fjord::avro::Schema::Parse(printed, lenient);
  Check(reparsed.ok());
  Check((*reparsed)->ToJson() == printed);

  // Whatever was read writes back and reads back identically.
  fjord::avro::WriterOptions write_options;
  write_options.codec = fjord::avro::Codec::kNull;
  auto written = fjord::avro::WriteContainerFile(reader->schema(), records, write_options);
  Check(written.ok());
  fjord::avro::ReaderOptions reread_options = options;
  reread_options.max_block_bytes = int64_t{1} << 40;
  reread_options.zero_size_budget = int64_t{1} << 40;
  auto reread = fjord::avro::ReadContainerFile(*written, "fuzz-rewritten.avro", reread_options);
  Check(reread.ok());
  Check(reread->records == records);
  return 0;
}
