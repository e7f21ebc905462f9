// Parser for Paimon's SQL type spellings (spec/format.md §2.3), including the read-side aliases.

#include <algorithm>
#include <cctype>
#include <charconv>

#include "fjord/common/strings.h"
#include "fjord/data_type.h"

namespace fjord {

namespace {

struct Token {
  enum Kind { kWord, kQuoted, kNumber, kSymbol, kString, kEnd } kind;
  std::string text;  // words upper-cased; quoted identifiers and strings unescaped
  size_t pos;
};

class TypeParser {
 public:
  explicit TypeParser(std::string_view text) : text_(text) {}

  Status Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t start = i;
        while (i < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) {
          ++i;
        }
        tokens_.push_back({Token::kWord, std::string(text_.substr(start, i - start)), start});
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t start = i;
        while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
        tokens_.push_back({Token::kNumber, std::string(text_.substr(start, i - start)), start});
      } else if (c == '`' || c == '\'') {
        size_t start = i++;
        std::string value;
        bool closed = false;
        while (i < text_.size()) {
          if (text_[i] == c) {
            if (i + 1 < text_.size() && text_[i + 1] == c) {
              value += c;
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          value += text_[i++];
        }
        if (!closed) return Error(start, "unterminated quote");
        tokens_.push_back({c == '`' ? Token::kQuoted : Token::kString, value, start});
      } else if (c == '(' || c == ')' || c == '<' || c == '>' || c == ',' || c == ':') {
        tokens_.push_back({Token::kSymbol, std::string(1, c), i});
        ++i;
      } else {
        return Error(i, std::string("unexpected character '") + c + "'");
      }
    }
    tokens_.push_back({Token::kEnd, "", text_.size()});
    return Status::OK();
  }

  Result<DataTypePtr> ParseWhole() {
    FJORD_ASSIGN_OR_RAISE(DataTypePtr type, ParseType());
    if (Peek().kind != Token::kEnd) return Error(Peek().pos, "unexpected '" + Peek().text + "'");
    return type;
  }

  Result<std::vector<DataField>> ParseColumns() {
    std::vector<DataField> fields;
    if (Peek().kind == Token::kEnd) return Error(0, "no columns");
    while (true) {
      FJORD_ASSIGN_OR_RAISE(DataField field, ParseField());
      fields.push_back(std::move(field));
      if (Peek().kind == Token::kEnd) break;
      FJORD_RETURN_NOT_OK(ExpectSymbol(","));
    }
    return fields;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() { return tokens_[std::min(pos_++, tokens_.size() - 1)]; }

  bool PeekWord(std::string_view word, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == Token::kWord && Upper(t.text) == word;
  }

  bool AcceptWord(std::string_view word) {
    if (!PeekWord(word)) return false;
    ++pos_;
    return true;
  }

  bool AcceptSymbol(std::string_view symbol) {
    if (Peek().kind != Token::kSymbol || Peek().text != symbol) return false;
    ++pos_;
    return true;
  }

  Status ExpectSymbol(std::string_view symbol) {
    if (AcceptSymbol(symbol)) return Status::OK();
    return Error(Peek().pos, "expected '" + std::string(symbol) + "' but found '" +
                                 (Peek().kind == Token::kEnd ? "end of text" : Peek().text) + "'");
  }

  Status ExpectWord(std::string_view word) {
    if (AcceptWord(word)) return Status::OK();
    return Error(Peek().pos, "expected " + std::string(word));
  }

  Status Error(size_t pos, const std::string& what) const {
    return Status::Invalid("cannot parse data type '", text_, "' at position ", pos, ": ", what);
  }

  Result<int32_t> ParseInt() {
    const Token& t = Next();
    if (t.kind != Token::kNumber) return Error(t.pos, "expected a number");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || v > DataType::kMaxLength) return Error(t.pos, "number out of range");
    return static_cast<int32_t>(v);
  }

  // "(n)" if present, else `fallback`.
  Result<int32_t> OptionalParam(int32_t fallback) {
    if (!AcceptSymbol("(")) return fallback;
    FJORD_ASSIGN_OR_RAISE(int32_t v, ParseInt());
    FJORD_RETURN_NOT_OK(ExpectSymbol(")"));
    return v;
  }

  bool ParseNullability() {
    if (PeekWord("NOT") && PeekWord("NULL", 1)) {
      pos_ += 2;
      return false;
    }
    AcceptWord("NULL");
    return true;
  }

  Result<DataField> ParseField() {
    const Token& name = Next();
    if (name.kind != Token::kWord && name.kind != Token::kQuoted) {
      return Error(name.pos, "expected a field name");
    }
    AcceptSymbol(":");
    DataField field;
    field.id = -1;
    field.name = name.text;
    FJORD_ASSIGN_OR_RAISE(field.type, ParseType());
    if (AcceptWord("COMMENT") || Peek().kind == Token::kString) {
      const Token& desc = Next();
      if (desc.kind != Token::kString) return Error(desc.pos, "expected a quoted comment");
      field.description = desc.text;
    }
    return field;
  }

  Result<DataTypePtr> ParseType() {
    size_t start = Peek().pos;
    FJORD_ASSIGN_OR_RAISE(DataTypePtr type, ParseRoot());
    bool nullable = ParseNullability();
    if (!nullable) type = type->WithNullable(false);
    (void)start;
    return type;
  }

  Status CheckRange(size_t pos, const char* what, int32_t v, int32_t lo, int32_t hi) const {
    if (v < lo || v > hi) {
      return Error(pos, std::string(what) + " must be between " + std::to_string(lo) + " and " +
                            std::to_string(hi) + ", got " + std::to_string(v));
    }
    return Status::OK();
  }

  Result<DataTypePtr> ParseRoot() {
    const Token& t = Next();
    if (t.kind != Token::kWord) return Error(t.pos, "expected a type name");
    std::string w = Upper(t.text);
    if (w == "BOOLEAN") return DataType::Boolean();
    if (w == "TINYINT") return DataType::TinyInt();
    if (w == "SMALLINT") return DataType::SmallInt();
    if (w == "INT" || w == "INTEGER") return DataType::Int();
    if (w == "BIGINT") return DataType::BigInt();
    if (w == "FLOAT") return DataType::Float();
    if (w == "DOUBLE") {
      AcceptWord("PRECISION");
      return DataType::Double();
    }
    if (w == "DECIMAL" || w == "NUMERIC" || w == "DEC") {
      int32_t p = 10, s = 0;
      if (AcceptSymbol("(")) {
        FJORD_ASSIGN_OR_RAISE(p, ParseInt());
        if (AcceptSymbol(",")) {
          FJORD_ASSIGN_OR_RAISE(s, ParseInt());
        }
        FJORD_RETURN_NOT_OK(ExpectSymbol(")"));
      }
      FJORD_RETURN_NOT_OK(CheckRange(t.pos, "decimal precision", p, 1, 38));
      FJORD_RETURN_NOT_OK(CheckRange(t.pos, "decimal scale", s, 0, p));
      return DataType::Decimal(p, s);
    }
    if (w == "CHAR" || w == "VARCHAR" || w == "BINARY" || w == "VARBINARY") {
      FJORD_ASSIGN_OR_RAISE(int32_t n, OptionalParam(1));
      FJORD_RETURN_NOT_OK(CheckRange(t.pos, "length", n, 1, DataType::kMaxLength));
      if (w == "CHAR") return DataType::Char(n);
      if (w == "VARCHAR") return DataType::VarChar(n);
      if (w == "BINARY") return DataType::Binary(n);
      return DataType::VarBinary(n);
    }
    if (w == "STRING") return DataType::String();
    if (w == "BYTES") return DataType::Bytes();
    if (w == "DATE") return DataType::Date();
    if (w == "TIME") {
      FJORD_ASSIGN_OR_RAISE(int32_t p, OptionalParam(0));
      FJORD_RETURN_NOT_OK(CheckRange(t.pos, "time precision", p, 0, 9));
      if (AcceptWord("WITHOUT")) {
        FJORD_RETURN_NOT_OK(ExpectWord("TIME"));
        FJORD_RETURN_NOT_OK(ExpectWord("ZONE"));
      }
      return DataType::Time(p);
    }
    if (w == "TIMESTAMP" || w == "TIMESTAMP_LTZ") {
      FJORD_ASSIGN_OR_RAISE(int32_t p, OptionalParam(6));
      FJORD_RETURN_NOT_OK(CheckRange(t.pos, "timestamp precision", p, 0, 9));
      if (w == "TIMESTAMP_LTZ") return DataType::TimestampLtz(p);
      if (AcceptWord("WITHOUT")) {
        FJORD_RETURN_NOT_OK(ExpectWord("TIME"));
        FJORD_RETURN_NOT_OK(ExpectWord("ZONE"));
      } else if (AcceptWord("WITH")) {
        FJORD_RETURN_NOT_OK(ExpectWord("LOCAL"));
        FJORD_RETURN_NOT_OK(ExpectWord("TIME"));
        FJORD_RETURN_NOT_OK(ExpectWord("ZONE"));
        return DataType::TimestampLtz(p);
      }
      return DataType::Timestamp(p);
    }
    if (w == "ARRAY" || w == "MULTISET") {
      FJORD_RETURN_NOT_OK(ExpectSymbol("<"));
      FJORD_ASSIGN_OR_RAISE(DataTypePtr element, ParseType());
      FJORD_RETURN_NOT_OK(ExpectSymbol(">"));
      return w == "ARRAY" ? DataType::Array(element) : DataType::Multiset(element);
    }
    if (w == "MAP") {
      FJORD_RETURN_NOT_OK(ExpectSymbol("<"));
      FJORD_ASSIGN_OR_RAISE(DataTypePtr key, ParseType());
      FJORD_RETURN_NOT_OK(ExpectSymbol(","));
      FJORD_ASSIGN_OR_RAISE(DataTypePtr value, ParseType());
      FJORD_RETURN_NOT_OK(ExpectSymbol(">"));
      return DataType::Map(key, value);
    }
    if (w == "ROW") {
      std::string close = ">";
      if (AcceptSymbol("(")) {
        close = ")";
      } else {
        FJORD_RETURN_NOT_OK(ExpectSymbol("<"));
      }
      std::vector<DataField> fields;
      if (!AcceptSymbol(close)) {
        while (true) {
          FJORD_ASSIGN_OR_RAISE(DataField f, ParseField());
          fields.push_back(std::move(f));
          if (AcceptSymbol(close)) break;
          FJORD_RETURN_NOT_OK(ExpectSymbol(","));
        }
      }
      return DataType::Row(std::move(fields));
    }
    if (w == "VARIANT") return DataType::Variant();
    if (w == "BLOB") return DataType::Blob();
    if (w == "VECTOR") {
      FJORD_RETURN_NOT_OK(ExpectSymbol("<"));
      FJORD_ASSIGN_OR_RAISE(DataTypePtr element, ParseType());
      FJORD_RETURN_NOT_OK(ExpectSymbol(","));
      FJORD_ASSIGN_OR_RAISE(int32_t n, ParseInt());
      FJORD_RETURN_NOT_OK(ExpectSymbol(">"));
      return DataType::Vector(element, n);
    }
    return Error(t.pos, "unknown type '" + t.text + "'");
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

// Java's ReassignFieldId: the fields of a ROW inside a type are numbered after what their own
// types hold (RowType.Builder takes the next id once the field's type has been rebuilt).
DataTypePtr AssignIds(const DataTypePtr& type, int32_t* next_id);

std::vector<DataField> AssignNestedFieldIds(const std::vector<DataField>& fields,
                                            int32_t* next_id) {
  std::vector<DataField> out;
  for (const DataField& f : fields) {
    DataField copy = f;
    copy.type = AssignIds(f.type, next_id);
    copy.id = (*next_id)++;
    out.push_back(std::move(copy));
  }
  return out;
}

// Java's Schema.Builder.column: a column takes the next id, then its type's fields are numbered.
std::vector<DataField> AssignFieldIds(const std::vector<DataField>& fields, int32_t* next_id) {
  std::vector<DataField> out;
  for (const DataField& f : fields) {
    DataField copy = f;
    copy.id = (*next_id)++;
    copy.type = AssignIds(f.type, next_id);
    out.push_back(std::move(copy));
  }
  return out;
}

DataTypePtr AssignIds(const DataTypePtr& type, int32_t* next_id) {
  switch (type->root()) {
    case TypeRoot::kRow:
      return DataType::Row(AssignNestedFieldIds(type->fields(), next_id), type->nullable());
    case TypeRoot::kArray:
      return DataType::Array(AssignIds(type->element(), next_id), type->nullable());
    case TypeRoot::kMultiset:
      return DataType::Multiset(AssignIds(type->element(), next_id), type->nullable());
    case TypeRoot::kVector:
      return DataType::Vector(AssignIds(type->element(), next_id), type->length(),
                              type->nullable());
    case TypeRoot::kMap:
      return DataType::Map(AssignIds(type->key(), next_id), AssignIds(type->value(), next_id),
                           type->nullable());
    default:
      return type;
  }
}

}  // namespace

DataTypePtr ReassignFieldIds(const DataTypePtr& type, int32_t* highest_field_id) {
  int32_t next = *highest_field_id + 1;
  DataTypePtr out = AssignIds(type, &next);
  *highest_field_id = next - 1;
  return out;
}

Result<DataTypePtr> ParseDataType(std::string_view text) {
  TypeParser parser(text);
  FJORD_RETURN_NOT_OK(parser.Tokenize());
  return parser.ParseWhole();
}

std::vector<DataField> AssignFieldIdsDepthFirst(const std::vector<DataField>& fields,
                                                int32_t first_id) {
  int32_t next_id = first_id;
  return AssignFieldIds(fields, &next_id);
}

Result<std::vector<DataField>> ParseColumnList(std::string_view text) {
  TypeParser parser(text);
  FJORD_RETURN_NOT_OK(parser.Tokenize());
  FJORD_ASSIGN_OR_RAISE(std::vector<DataField> fields, parser.ParseColumns());
  int32_t next_id = 0;
  return AssignFieldIds(fields, &next_id);
}

}  // namespace fjord
