#include "fjord/format/csv_reader.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>

#include "fjord/format/text_values.h"

namespace fjord {

namespace {

constexpr int kRowKind = -1;

// The bytes that end an unquoted field's text or make it an error: ',', LF, CR (a break only
// before LF) and '"'.
constexpr auto kSpecial = [] {
  std::array<bool, 256> special{};
  special[','] = special['\n'] = special['\r'] = special['"'] = true;
  return special;
}();

// The first byte at or after `from` that is kSpecial, or `size`.
size_t FindSpecial(const char* data, size_t from, size_t size) {
#if defined(__SSE2__)
  // Sixteen bytes at a time while they are in the text.
  const __m128i comma = _mm_set1_epi8(','), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                quote = _mm_set1_epi8('"');
  for (; from + 16 <= size; from += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + from));
    const __m128i hits =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, comma), _mm_cmpeq_epi8(x, lf)),
                     _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, quote)));
    if (const int bits = _mm_movemask_epi8(hits); bits != 0) {
      return from + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(bits)));
    }
  }
#endif
  while (from < size && !kSpecial[static_cast<unsigned char>(data[from])]) ++from;
  return from;
}

// Length of the line break at `pos` (LF or CRLF), 0 when there is none.
size_t LineBreak(std::string_view text, size_t pos) {
  if (pos >= text.size()) return 0;
  if (text[pos] == '\n') return 1;
  return text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n' ? 2 : 0;
}

}  // namespace

CsvRecordReader::CsvRecordReader(std::string_view text, std::string source)
    : text_(text), source_(std::move(source)) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

Result<bool> CsvRecordReader::Next(std::vector<CsvField>* fields) {
  // The fields are reused from record to record (no allocation per cell).
  size_t count = 0;
  auto next_field = [&]() -> CsvField& {
    if (count == fields->size()) fields->emplace_back();
    CsvField& f = (*fields)[count++];
    f.text = {};
    f.quoted = false;
    return f;
  };
  // Blank lines (nothing between two line breaks) are skipped.
  while (size_t n = LineBreak(text_, pos_)) {
    pos_ += n;
    ++next_line_;
  }
  if (pos_ >= text_.size()) {
    fields->clear();
    return false;
  }
  record_line_ = next_line_;
  copied_.clear();
  const char* const data = text_.data();
  const size_t size = text_.size();
  while (true) {
    CsvField& field = next_field();
    if (pos_ < size && data[pos_] == '"') {
      field.quoted = true;
      const int64_t start_line = next_line_;
      ++pos_;
      // Up to each quote: the text as it stands, unless a doubled quote makes it a copy.
      std::string* copy = nullptr;
      size_t begin = pos_;
      while (true) {
        const auto* quote = static_cast<const char*>(std::memchr(data + pos_, '"', size - pos_));
        const size_t at = quote == nullptr ? size : static_cast<size_t>(quote - data);
        next_line_ += std::count(data + pos_, data + at, '\n');
        if (quote == nullptr) {
          return Status::Invalid(source_, " line ", start_line,
                                 ": a quoted field is not closed before the end of the file");
        }
        if (at + 1 < size && data[at + 1] == '"') {
          if (copy == nullptr) {
            if (unescaped_.size() < count) unescaped_.resize(count);
            copy = &unescaped_[count - 1];
            copied_.push_back(count - 1);
            copy->assign(data + begin, at + 1 - begin);  // the first quote kept
          } else {
            copy->append(data + pos_, at + 1 - pos_);
          }
          pos_ = at + 2;
          continue;
        }
        if (copy == nullptr) {
          field.text = text_.substr(begin, at - begin);
        } else {
          copy->append(data + pos_, at - pos_);
          field.text = *copy;  // pointed at again below: the fields may still move
        }
        pos_ = at + 1;
        break;
      }
      if (pos_ < size && data[pos_] != ',' && LineBreak(text_, pos_) == 0) {
        return Status::Invalid(source_, " line ", next_line_, ", field ", count,
                               ": text after the closing quote of a quoted field");
      }
    } else {
      size_t end = pos_;
      while (true) {
        end = FindSpecial(data, end, size);
        if (end >= size || data[end] == ',' || LineBreak(text_, end) != 0) break;
        if (data[end] == '"') {
          return Status::Invalid(source_, " line ", next_line_, ", field ", count,
                                 ": a quote inside an unquoted field (quote the whole field and "
                                 "double the quote, RFC 4180)");
        }
        ++end;  // a CR not before an LF is text
      }
      field.text = text_.substr(pos_, end - pos_);
      pos_ = end;
    }
    bool more = pos_ < size && data[pos_] == ',';
    if (more) {
      ++pos_;
      continue;
    }
    if (pos_ < size) {
      pos_ += LineBreak(text_, pos_);
      ++next_line_;
    }
    fields->resize(count);
    // Copies made for doubled quotes: the fields' views of them, now that none moves.
    for (size_t f : copied_) (*fields)[f].text = unescaped_[f];
    return true;
  }
}

CsvRowReader::CsvRowReader(std::string_view text, const std::vector<DataField>& fields,
                           CsvOptions options, std::string source)
    : records_(text, source),
      fields_(&fields),
      options_(std::move(options)),
      source_(std::move(source)) {}

Result<CsvRowReader> CsvRowReader::Open(std::string_view text, const std::vector<DataField>& fields,
                                        CsvOptions options, std::string source) {
  CsvRowReader reader(text, fields, std::move(options), std::move(source));
  std::vector<CsvField> header;
  FJORD_ASSIGN_OR_RAISE(bool any, reader.records_.Next(&header));
  if (!any) return Status::Invalid(reader.source_, ": no header line (the file is empty)");
  reader.records_.SkipLineNumbers(reader.options_.lines_skipped);
  std::vector<bool> seen(fields.size(), false);
  bool seen_kind = false;
  for (const CsvField& h : header) {
    if (h.text == "_row_kind") {
      if (seen_kind) return Status::Invalid(reader.source_, " line 1: _row_kind given twice");
      seen_kind = true;
      reader.target_.push_back(kRowKind);
      continue;
    }
    int index = -1;
    for (size_t f = 0; f < fields.size(); ++f) {
      if (fields[f].name == h.text) index = static_cast<int>(f);
    }
    if (index < 0) {
      return Status::Invalid(reader.source_, " line 1: unknown column '", h.text,
                             "' (not in the table)");
    }
    if (seen[static_cast<size_t>(index)]) {
      return Status::Invalid(reader.source_, " line 1: column '", h.text, "' given twice");
    }
    seen[static_cast<size_t>(index)] = true;
    reader.target_.push_back(index);
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    if (!seen[f] && !fields[f].type->nullable()) {
      return Status::Invalid(reader.source_, " line 1: column '", fields[f].name,
                             "' is NOT NULL but the header does not have it");
    }
    if (!seen[f]) reader.absent_.push_back(f);
  }
  return reader;
}

Result<bool> CsvRowReader::Next(CsvCells* out) {
  FJORD_ASSIGN_OR_RAISE(bool any, records_.Next(&record_));
  if (!any) return false;
  int64_t line = records_.line();
  if (record_.size() != target_.size()) {
    return Status::Invalid(source_, " line ", line, ": ", record_.size(),
                           " fields, the header has ", target_.size());
  }
  const std::vector<DataField>& fields = *fields_;
  int8_t kind = 0;
  // The first NOT NULL column (in the table's order) given NULL: reported once every cell was
  // read, so that a bad value in the row is named first.
  size_t null_not_null = fields.size();
  for (size_t i = 0; i < record_.size(); ++i) {
    const CsvField& cell = record_[i];
    bool is_null = !cell.quoted && cell.text == options_.null_literal;
    if (target_[i] == kRowKind) {
      if (is_null) continue;
      std::string_view k = cell.text;
      if (k.empty() || k == "+I" || k == "0") {
        kind = 0;
      } else if (k == "-U" || k == "1") {
        kind = 1;
      } else if (k == "+U" || k == "2") {
        kind = 2;
      } else if (k == "-D" || k == "3") {
        kind = 3;
      } else {
        return Status::Invalid(source_, " line ", line,
                               ", column '_row_kind': must be +I, -U, +U, -D or 0..3, got '", k,
                               "'");
      }
      continue;
    }
    const auto c = static_cast<size_t>(target_[i]);
    if (is_null) {
      if (!fields[c].type->nullable()) null_not_null = std::min(null_not_null, c);
      FJORD_RETURN_NOT_OK(out->AppendNull(c));
      continue;
    }
    Status appended = out->Append(c, cell.text);
    if (!appended.ok()) {
      return appended.WithContext(source_, " line ", line, ", column '", fields[c].name, "'");
    }
  }
  if (null_not_null < fields.size()) {
    return Status::Invalid(source_, " line ", line, ", column '", fields[null_not_null].name,
                           "' is NOT NULL but the field is NULL");
  }
  for (size_t c : absent_) FJORD_RETURN_NOT_OK(out->AppendNull(c));
  FJORD_RETURN_NOT_OK(out->EndRow(kind));
  return true;
}

}  // namespace fjord
