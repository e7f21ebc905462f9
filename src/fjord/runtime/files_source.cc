// The `files` source: every file of a directory whose name matches a pattern, in name order; a
// file is read record by record from its byte offset; new files are picked up as they appear and
// the last file is followed as it grows. Position: {"file", "offset", "line"}; files whose names
// sort before the position's file count as consumed (new files must sort after the ones read).

#include <fnmatch.h>

#include <arrow/api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "fjord/runtime/cdc_decode.h"
#include "fjord/runtime/cdc_source.h"
#include "fjord/runtime/source.h"

namespace fjord::runtime {

namespace {

namespace fs = std::filesystem;

constexpr size_t kChunkBytes = 1 << 20;

// What a reader made of a chunk of whole records: how much of it it took (a CDC source may
// keep the rest for the next call) and whether that gave anything to hand out.
struct Taken {
  size_t bytes = 0;
  int64_t lines = 0;
  bool produced = false;
};
using TakeChunk = std::function<Result<Taken>(const std::string& text, const std::string& path)>;

// Rows of the table (Source) or, with a CDC format, change records (CdcSource): each line one
// message.
class FilesSource : public Source, public CdcSource {
 public:
  FilesSource(SourceSpec spec, TableSchema schema)
      : spec_(std::move(spec)), files_(spec_.files), schema_(std::move(schema)) {}
  FilesSource(SourceSpec spec, std::unique_ptr<CdcDecoder> decoder)
      : spec_(std::move(spec)), files_(spec_.files), decoder_(std::move(decoder)) {}

  Status Seek(const std::string& position) override {
    file_.clear();
    offset_ = 0;
    line_ = 1;
    header_.clear();
    dead_letter_bytes_ = 0;
    if (!position.empty()) {
      try {
        auto j = nlohmann::json::parse(position);
        file_ = j.at("file").get<std::string>();
        offset_ = j.at("offset").get<int64_t>();
        line_ = j.at("line").get<int64_t>();
        if (j.contains("dead-letter-bytes")) {
          dead_letter_bytes_ = j.at("dead-letter-bytes").get<int64_t>();
        }
      } catch (const std::exception& e) {
        return Status::Invalid("files source: bad position '", position, "': ", e.what());
      }
    }
    FJORD_RETURN_NOT_OK(SeekDeadLetter());
    if (position.empty()) return Status::OK();
    if (file_.empty()) return Status::OK();
    std::string path = Path(file_);
    std::error_code ec;
    auto size = fs::file_size(path, ec);
    if (ec) return Status::NotFound("files source: the file to resume in is gone: ", path);
    if (static_cast<int64_t>(size) < offset_) {
      return Status::Invalid("files source: ", path, " is shorter (", size,
                             " bytes) than the position to resume at (", offset_, ")");
    }
    if (files_.format == "csv") {
      FJORD_ASSIGN_OR_RAISE(bool have, ReadHeader(path));
      if (!have && offset_ > 0) {
        return Status::Invalid("files source: ", path, " lost its CSV header");
      }
    }
    return Status::OK();
  }

  std::string Position() const override {
    nlohmann::json j;
    j["file"] = file_;
    j["offset"] = offset_;
    j["line"] = line_;
    if (!files_.dead_letter.empty()) j["dead-letter-bytes"] = dead_letter_bytes_;
    return j.dump();
  }

  int64_t idle_wait_ms() const override { return files_.poll_interval_ms; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next(bool bounded, bool* end) override {
    std::shared_ptr<arrow::RecordBatch> batch;
    FJORD_RETURN_NOT_OK(
        Read(bounded, end, [&](const std::string& text, const std::string& path) -> Result<Taken> {
          int64_t lines = 0;
          Cut(text, static_cast<size_t>(spec_.batch_rows), &lines);
          if (text.back() != '\n') ++lines;  // the last, without its break
          auto parsed = ParseChunk(text, files_.format == "csv", header_, files_.csv_null, schema_,
                                   path, line_);
          if (parsed.ok()) {
            batch = std::move(*parsed);
          } else if (!files_.dead_letter.empty() &&
                     parsed.status().code() == StatusCode::kInvalid) {
            FJORD_ASSIGN_OR_RAISE(batch, Salvage(text, path));
          } else {
            return parsed.status();
          }
          return Taken{text.size(), lines, batch->num_rows() > 0};
        }).status());
    return batch;
  }

  Status Next(bool bounded, size_t max_records, const CdcCut& cut, std::vector<cdc::CdcRecord>* out,
              bool* end) override {
    return Read(bounded, end,
                [&](const std::string& text, const std::string& path) {
                  return TakeLines(text, path, max_records, cut, out);
                })
        .status();
  }

 private:
  // CDC: the lines of `text` as messages, decoded together, taken in order until the cut or
  // `max_records` stops (the rest is read again by the next call).
  Result<Taken> TakeLines(const std::string& text, const std::string& path, size_t max_records,
                          const CdcCut& cut, std::vector<cdc::CdcRecord>* out) {
    struct Line {
      size_t end;      // past its line break
      int64_t number;  // 0: blank
    };
    std::vector<Line> lines;
    std::vector<cdc::CdcMessage> messages;
    for (size_t pos = 0; pos < text.size() && messages.size() < max_records;) {
      const char* nl =
          static_cast<const char*>(std::memchr(text.data() + pos, '\n', text.size() - pos));
      size_t next = nl ? static_cast<size_t>(nl - text.data()) + 1 : text.size();
      size_t stop = next;
      while (stop > pos && (text[stop - 1] == '\n' || text[stop - 1] == '\r')) --stop;
      std::string_view line(text.data() + pos, stop - pos);
      int64_t number = line_ + static_cast<int64_t>(lines.size());
      bool blank = line.find_first_not_of(" \t") == std::string_view::npos;
      lines.push_back({next, blank ? 0 : number});
      if (!blank) {
        cdc::CdcMessage& m = messages.emplace_back();
        m.value.emplace(line);
        m.origin = "file " + path + " line " + std::to_string(number);
      }
      pos = next;
    }
    decoder_->DecodeAll(messages, &decoded_);
    Taken taken;
    std::string letters;
    size_t message = 0;
    for (const Line& l : lines) {
      if (l.number != 0) {
        const cdc::CdcMessage& m = messages[message];
        FJORD_ASSIGN_OR_RAISE(
            bool took, TakeDecoded(std::move(decoded_[message]), m, cut,
                                   !files_.dead_letter.empty(), out, [&](const std::string& error) {
                                     nlohmann::json j;
                                     j["file"] = path;
                                     j["line"] = l.number;
                                     j["error"] = error;
                                     j["record"] = *m.value;
                                     letters += j.dump() + "\n";
                                   }));
        if (!took) break;
        ++message;
      }
      taken.bytes = l.end;
      ++taken.lines;
    }
    if (!letters.empty()) {
      FJORD_RETURN_NOT_OK(AppendDeadLetters(files_.dead_letter, letters, &dead_letter_bytes_));
    }
    taken.produced = !out->empty();
    return taken;
  }

  // Reads whole records from the position and hands them to `take`; the position moves past
  // what it took. True once `take` produced something; false when nothing more is there now
  // (`*end` with `bounded` when nothing more is there at all).
  Result<bool> Read(bool bounded, bool* end, const TakeChunk& take) {
    *end = false;
    // The directory is listed again only when the files known give nothing more.
    bool fresh = false;
    auto relist = [&]() -> Result<bool> {
      if (fresh) return false;
      FJORD_ASSIGN_OR_RAISE(names_, List());
      fresh = listed_ = true;
      return true;
    };
    if (!listed_) FJORD_RETURN_NOT_OK(relist().status());
    while (true) {
      const std::vector<std::string>& names = names_;
      auto later = std::upper_bound(names.begin(), names.end(), file_);
      bool has_later = later != names.end();
      if (file_.empty() || !std::binary_search(names.begin(), names.end(), file_)) {
        // Before the first file, or the current one is gone (deleted after it was read).
        if (!has_later) {
          FJORD_ASSIGN_OR_RAISE(bool again, relist());
          if (again) continue;
          *end = bounded;
          return false;
        }
        FJORD_RETURN_NOT_OK(Open(*later));
        continue;
      }
      if (files_.format == "csv" && header_.empty()) {
        FJORD_ASSIGN_OR_RAISE(bool have, ReadHeader(Path(file_)));
        if (!have) {
          if (!has_later) {
            FJORD_ASSIGN_OR_RAISE(bool again, relist());
            if (again) continue;
          }
          if (!has_later && !bounded) return false;  // the header is still being written
          FJORD_ASSIGN_OR_RAISE(std::string rest, ReadAt(Path(file_), 0, kChunkBytes));
          if (rest.find_first_not_of(" \t\r\n") != std::string::npos) {
            return Status::Invalid(Path(file_), " line 1: CSV header without a line break");
          }
          if (!has_later) {
            *end = bounded;
            return false;
          }
          FJORD_RETURN_NOT_OK(Open(*later));
          continue;
        }
      }
      // Whole records from offset_ on; the file is complete when a later one exists or bounded.
      bool complete = has_later || bounded;
      std::string path = Path(file_);
      std::string text;
      size_t want = kChunkBytes;
      size_t cut = 0;
      int64_t lines = 0;
      Status unreadable;
      while (true) {
        auto read = ReadAt(path, offset_, want);
        if (!read.ok()) {
          unreadable = read.status();
          break;
        }
        text = std::move(*read);
        cut = Cut(text, static_cast<size_t>(spec_.batch_rows), &lines);
        if (cut > 0 || text.size() < want) break;
        want *= 2;  // one record longer than the chunk
      }
      if (!unreadable.ok()) {
        // Deleted since the listing: move on; still there: an error, never a silent skip.
        FJORD_ASSIGN_OR_RAISE(bool again, relist());
        if (!again || std::binary_search(names_.begin(), names_.end(), file_)) return unreadable;
        continue;
      }
      if (cut == 0 && complete && !text.empty()) {
        cut = text.size();  // the last record without its line break
        lines = 1;
      }
      if (cut == 0) {
        if (has_later) {
          FJORD_RETURN_NOT_OK(Open(*later));
          continue;
        }
        FJORD_ASSIGN_OR_RAISE(bool again, relist());
        if (again) continue;
        *end = bounded;
        return false;
      }
      text.resize(cut);
      FJORD_ASSIGN_OR_RAISE(Taken taken, take(text, path));
      offset_ += static_cast<int64_t>(taken.bytes);
      line_ += taken.lines;
      if (!taken.produced) continue;  // blank lines or dead letters only
      return true;
    }
  }

  std::string Path(const std::string& name) const {
    return (fs::path(files_.path) / name).string();
  }

  Result<std::vector<std::string>> List() const {
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(files_.path, ec);
    if (ec) return Status::IOError("files source: cannot list ", files_.path, ": ", ec.message());
    for (const auto& e : it) {
      if (!e.is_regular_file(ec)) continue;
      std::string name = e.path().filename().string();
      if (name.empty() || name[0] == '.') continue;  // hidden and in-progress files
      if (fnmatch(files_.pattern.c_str(), name.c_str(), 0) != 0) continue;
      names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  Status Open(const std::string& name) {
    file_ = name;
    offset_ = 0;
    line_ = 1;
    header_.clear();  // CSV: read by Next
    return Status::OK();
  }

  // CSV: the header record (through its line break) of `path`; positions then start after it.
  Result<bool> ReadHeader(const std::string& path) {
    FJORD_ASSIGN_OR_RAISE(std::string text, ReadAt(path, 0, kChunkBytes));
    int64_t lines = 0;
    size_t cut = Cut(text, 1, &lines);
    if (cut == 0) return false;
    header_ = text.substr(0, cut);
    if (offset_ == 0) {
      offset_ = static_cast<int64_t>(cut);
      line_ = 1 + lines;
    }
    return true;
  }

  Status SeekDeadLetter() {
    if (files_.dead_letter.empty()) return Status::OK();
    return runtime::SeekDeadLetter(files_.dead_letter, &dead_letter_bytes_);
  }

  // The records of `text` one by one: those that fit as a batch, the others to the dead-letter
  // file (synced before the batch is handed out, so a checkpoint never counts an unsynced row).
  Result<std::shared_ptr<arrow::RecordBatch>> Salvage(const std::string& text,
                                                      const std::string& path) {
    bool csv = files_.format == "csv";
    std::string good;
    std::string letters;
    int64_t line = line_;
    size_t pos = 0;
    while (pos < text.size()) {
      int64_t lines = 0;
      std::string rest = text.substr(pos);
      size_t cut = Cut(rest, 1, &lines);
      if (cut == 0) {
        cut = rest.size();
        lines = 1;
      }
      std::string record = rest.substr(0, cut);
      auto one = ParseChunk(record, csv, header_, files_.csv_null, schema_, path, line);
      if (one.ok()) {
        good += record;
      } else {
        nlohmann::json j;
        j["file"] = path;
        j["line"] = line;
        j["error"] = one.status().ToString();
        while (!record.empty() && (record.back() == '\n' || record.back() == '\r')) {
          record.pop_back();
        }
        j["record"] = record;
        letters += j.dump() + "\n";
      }
      pos += cut;
      line += lines;
    }
    if (!letters.empty()) {
      FJORD_RETURN_NOT_OK(AppendDeadLetters(files_.dead_letter, letters, &dead_letter_bytes_));
    }
    return ParseChunk(good, csv, header_, files_.csv_null, schema_, path, line_);
  }

  static Result<std::string> ReadAt(const std::string& path, int64_t offset, size_t max) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IOError("files source: cannot open ", path);
    in.seekg(offset);
    std::string text(max, '\0');
    in.read(text.data(), static_cast<std::streamsize>(max));
    text.resize(static_cast<size_t>(in.gcount()));
    return text;
  }

  // The end of the first `max_records` whole records of `text` (after their line break), 0 when
  // there is none; `*lines` the line breaks up to there. CSV: line breaks inside quotes do not
  // end a record.
  size_t Cut(const std::string& text, size_t max_records, int64_t* lines) const {
    bool csv = files_.format == "csv";
    bool quoted = false;
    size_t records = 0;
    size_t cut = 0;
    int64_t breaks = 0;
    *lines = 0;
    if (!csv) {
      // JSON lines: every line break ends a record (memchr, the lines may be long).
      const char* base = text.data();
      const char* at = base;
      const char* end = base + text.size();
      while (at < end) {
        const char* nl = static_cast<const char*>(std::memchr(at, '\n', end - at));
        if (!nl) break;
        cut = static_cast<size_t>(nl - base) + 1;
        *lines = ++breaks;
        at = nl + 1;
        if (++records >= max_records) break;
      }
      return cut;
    }
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (csv && c == '"') quoted = !quoted;
      if (c != '\n') continue;
      ++breaks;
      if (quoted) continue;
      cut = i + 1;
      *lines = breaks;
      if (++records >= max_records) break;
    }
    return cut;
  }

  SourceSpec spec_;
  FilesSourceSpec files_;
  TableSchema schema_;
  std::unique_ptr<CdcDecoder> decoder_;  // CDC jobs
  std::vector<DecodedMessage> decoded_;
  std::string file_;  // current file name; empty before the first
  int64_t offset_ = 0;
  int64_t line_ = 1;
  std::string header_;
  std::vector<std::string> names_;  // the files matching, as last listed
  bool listed_ = false;
  int64_t dead_letter_bytes_ = 0;  // of the dead-letter file, counted by the position
};

}  // namespace

std::unique_ptr<Source> MakeFilesSource(const SourceSpec& spec, const TableSchema& schema) {
  return std::make_unique<FilesSource>(spec, schema);
}

std::unique_ptr<CdcSource> MakeFilesCdcSource(const SourceSpec& spec,
                                              std::unique_ptr<CdcDecoder> decoder) {
  return std::make_unique<FilesSource>(spec, std::move(decoder));
}

}  // namespace fjord::runtime
