#include "fjord/format/csv_reader.h"

#include "fjord/format/text_values.h"

namespace fjord {

namespace {

constexpr int kRowKind = -1;

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
  // The fields' strings are reused from record to record (no allocation per cell).
  size_t count = 0;
  auto next_field = [&]() -> CsvField& {
    if (count == fields->size()) fields->emplace_back();
    CsvField& f = (*fields)[count++];
    f.text.clear();
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
  while (true) {
    CsvField& field = next_field();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      field.quoted = true;
      int64_t start_line = next_line_;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) {
          return Status::Invalid(source_, " line ", start_line,
                                 ": a quoted field is not closed before the end of the file");
        }
        char c = text_[pos_];
        if (c == '"') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
            field.text += '"';
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        if (c == '\n') ++next_line_;
        field.text += c;
        ++pos_;
      }
      if (pos_ < text_.size() && text_[pos_] != ',' && LineBreak(text_, pos_) == 0) {
        return Status::Invalid(source_, " line ", next_line_, ", field ", count,
                               ": text after the closing quote of a quoted field");
      }
    } else {
      size_t end = pos_;
      while (end < text_.size() && text_[end] != ',' && LineBreak(text_, end) == 0) {
        if (text_[end] == '"') {
          return Status::Invalid(source_, " line ", next_line_, ", field ", count,
                                 ": a quote inside an unquoted field (quote the whole field and "
                                 "double the quote, RFC 4180)");
        }
        ++end;
      }
      field.text.assign(text_.substr(pos_, end - pos_));
      pos_ = end;
    }
    bool more = pos_ < text_.size() && text_[pos_] == ',';
    if (more) {
      ++pos_;
      continue;
    }
    if (pos_ < text_.size()) {
      pos_ += LineBreak(text_, pos_);
      ++next_line_;
    }
    fields->resize(count);
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
  }
  return reader;
}

Result<bool> CsvRowReader::Next(std::vector<Value>* values, int8_t* kind) {
  FJORD_ASSIGN_OR_RAISE(bool any, records_.Next(&record_));
  if (!any) return false;
  int64_t line = records_.line();
  if (record_.size() != target_.size()) {
    return Status::Invalid(source_, " line ", line, ": ", record_.size(),
                           " fields, the header has ", target_.size());
  }
  const std::vector<DataField>& fields = *fields_;
  values->assign(fields.size(), Value());
  *kind = 0;
  for (size_t i = 0; i < record_.size(); ++i) {
    const CsvField& cell = record_[i];
    bool is_null = !cell.quoted && cell.text == options_.null_literal;
    if (target_[i] == kRowKind) {
      if (is_null) continue;
      const std::string& k = cell.text;
      if (k.empty() || k == "+I" || k == "0") {
        *kind = 0;
      } else if (k == "-U" || k == "1") {
        *kind = 1;
      } else if (k == "+U" || k == "2") {
        *kind = 2;
      } else if (k == "-D" || k == "3") {
        *kind = 3;
      } else {
        return Status::Invalid(source_, " line ", line,
                               ", column '_row_kind': must be +I, -U, +U, -D or 0..3, got '", k,
                               "'");
      }
      continue;
    }
    const DataField& f = fields[static_cast<size_t>(target_[i])];
    if (is_null) continue;
    Result<Value> v = ValueFromText(cell.text, *f.type);
    if (!v.ok()) return v.status().WithContext(source_, " line ", line, ", column '", f.name, "'");
    (*values)[static_cast<size_t>(target_[i])] = std::move(*v);
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    if ((*values)[f].is_null() && !fields[f].type->nullable()) {
      return Status::Invalid(source_, " line ", line, ", column '", fields[f].name,
                             "' is NOT NULL but the field is NULL");
    }
  }
  return true;
}

}  // namespace fjord
