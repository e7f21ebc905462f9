// libFuzzer target: arbitrary bytes through the stream decoders of Fjord's ORC reader
// (src/fjord/format/orc): byte RLE, boolean RLE, integer RLE v1 and v2 (signed and unsigned),
// the chunked decompression of every codec, and a stripe (footer and stream directory).
//
// Input: byte 0 picks the decoder, bytes 1-2 the number of values (or the codec and block size,
// or the stripe footer's length), the rest is the stream. Every input must end in a Status,
// never a crash, a hang, or unbounded memory.
//
// Seed corpus: run_fuzzers.sh writes the examples of the ORC specification.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/orc/byte_rle.h"
#include "fjord/format/orc/compression.h"
#include "fjord/format/orc/int_rle.h"
#include "fjord/format/orc/stripe.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckError(const fjord::Status& st) {
  Check(st.ok() || st.IsCorruption() || st.code() == fjord::StatusCode::kNotImplemented);
}

// Decodes `n` values in calls of varying sizes, as column decoders and nested columns do.
template <typename T, typename Decoder>
void Drain(Decoder& d, size_t n) {
  std::vector<T> out(n);
  size_t done = 0;
  size_t step = 1;
  while (done < n) {
    size_t m = std::min(step, n - done);
    fjord::Status st = d.Next(out.data() + done, static_cast<int64_t>(m));
    CheckError(st);
    if (!st.ok()) return;
    done += m;
    step = step * 3 + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint8_t mode = data[0] % 8;
  const size_t n = data[1] | (size_t{data[2]} << 8);
  std::string_view stream(reinterpret_cast<const char*>(data + 3), size - 3);
  switch (mode) {
    case 0: {
      fjord::orc::ByteRleDecoder d(stream);
      Drain<uint8_t>(d, n);
      break;
    }
    case 1: {
      fjord::orc::BoolRleDecoder d(stream);
      Drain<uint8_t>(d, n * 4);
      break;
    }
    case 2:
    case 3:
    case 4:
    case 5: {
      auto version = mode < 4 ? fjord::orc::RleVersion::kV1 : fjord::orc::RleVersion::kV2;
      auto d = fjord::orc::MakeIntRleDecoder(stream, version, mode % 2 == 0);
      Drain<int64_t>(*d, n);
      break;
    }
    case 6: {
      auto codec = static_cast<fjord::OrcCompression>(data[1] % 6);
      uint64_t block = uint64_t{1} << (4 + data[2] % 17);
      fjord::orc::Decompressor d(codec, block);
      std::string out;
      fjord::Status st = d.Decompress(stream, 1 << 20, &out);
      CheckError(st);
      if (st.ok()) Check(out.size() <= (1 << 20));
      break;
    }
    default: {
      // One stripe spanning the input: streams, then a footer of the last `n % size` bytes.
      fjord::OrcTail tail;
      tail.compression = data[1] % 2 ? fjord::OrcCompression::kZstd : fjord::OrcCompression::kNone;
      tail.compression_block_size = 1 << 16;
      fjord::OrcStripeInfo info;
      info.footer_length = n % (stream.size() + 1);
      info.data_length = stream.size() - info.footer_length;
      info.rows = n;
      tail.stripes.push_back(info);
      fjord::OrcReadAt read_at = [stream](uint64_t offset,
                                          uint64_t length) -> fjord::Result<std::string> {
        Check(offset <= stream.size() && length <= stream.size() - offset);
        return std::string(stream.substr(offset, length));
      };
      fjord::orc::Decompressor d(tail.compression, tail.compression_block_size);
      std::vector<bool> columns(8, true);
      auto stripe =
          fjord::orc::ReadStripe(tail, stream.size(), read_at, 0, columns, &d, "fuzz.orc");
      if (!stripe.ok()) {
        CheckError(stripe.status());
        Check(stripe.status().message().rfind("fuzz.orc: ", 0) == 0);
      }
      break;
    }
  }
  return 0;
}
