// Parsing: the lexer and the recursive-descent parser of the filter language.
#include <utility>
#include <vector>

#include "fjord/common/strings.h"
#include "fjord/expr/predicate_internal.h"

namespace fjord {

namespace {

using namespace predicate_internal;

// ---------------------------------------------------------------------------------------------
// Lexer

struct Token {
  enum Kind : unsigned char { kEnd, kWord, kQuotedName, kNumber, kString, kHex, kSymbol };
  Kind kind = kEnd;
  std::string text;  // word/number as written; name/string/hex decoded; symbol: the operator
  size_t pos = 0;    // byte offsets into the filter text
  size_t end = 0;
};

Status FilterError(std::string_view text, size_t pos, std::string_view what) {
  return Status::Invalid("filter '", text, "': ", what, " at position ", pos + 1);
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  auto read_quoted = [&](char quote, Token* tok) -> Status {
    ++i;
    for (;;) {
      if (i >= text.size()) {
        return FilterError(text, tok->pos,
                           quote == '`' ? "unterminated `name`" : "unterminated string");
      }
      if (text[i] == quote) {
        if (i + 1 < text.size() && text[i + 1] == quote) {
          tok->text += quote;
          i += 2;
          continue;
        }
        ++i;
        return Status::OK();
      }
      tok->text += text[i++];
    }
  };
  while (true) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    Token tok;
    tok.pos = i;
    if (i >= text.size()) {
      tok.end = i;
      tokens.push_back(std::move(tok));
      return tokens;
    }
    char c = text[i];
    if ((c == 'x' || c == 'X') && i + 1 < text.size() && text[i + 1] == '\'') {
      tok.kind = Token::kHex;
      ++i;
      std::string hex;
      Token inner;
      inner.pos = tok.pos;
      FJORD_RETURN_NOT_OK(read_quoted('\'', &inner));
      if (inner.text.size() % 2 != 0) {
        return FilterError(text, tok.pos, "odd number of hex digits in X'...'");
      }
      for (size_t k = 0; k < inner.text.size(); k += 2) {
        int hi = HexDigit(inner.text[k]);
        int lo = HexDigit(inner.text[k + 1]);
        if (hi < 0 || lo < 0) return FilterError(text, tok.pos, "bad hex digit in X'...'");
        tok.text += static_cast<char>(hi * 16 + lo);
      }
    } else if (IsIdentStart(c)) {
      tok.kind = Token::kWord;
      while (i < text.size() && IsIdentChar(text[i])) tok.text += text[i++];
    } else if (IsDigit(c) || (c == '.' && i + 1 < text.size() && IsDigit(text[i + 1]))) {
      tok.kind = Token::kNumber;
      while (i < text.size() && IsDigit(text[i])) ++i;
      if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && IsDigit(text[i])) ++i;
      }
      if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
        if (j < text.size() && IsDigit(text[j])) {
          i = j;
          while (i < text.size() && IsDigit(text[i])) ++i;
        }
      }
      if (i < text.size() && (IsIdentChar(text[i]) || text[i] == '.')) {
        return FilterError(text, tok.pos, "malformed number");
      }
      tok.text = std::string(text.substr(tok.pos, i - tok.pos));
    } else if (c == '\'') {
      tok.kind = Token::kString;
      FJORD_RETURN_NOT_OK(read_quoted('\'', &tok));
    } else if (c == '`') {
      tok.kind = Token::kQuotedName;
      FJORD_RETURN_NOT_OK(read_quoted('`', &tok));
      if (tok.text.empty()) return FilterError(text, tok.pos, "empty column name ``");
    } else {
      tok.kind = Token::kSymbol;
      std::string_view rest = text.substr(i);
      for (std::string_view op :
           {"<>", "!=", "<=", ">=", "==", "=", "<", ">", "(", ")", ",", "-", "+"}) {
        if (rest.substr(0, op.size()) == op) {
          tok.text = std::string(op);
          break;
        }
      }
      if (tok.text.empty()) {
        if (c == '"') {
          return FilterError(text, i,
                             "unexpected '\"' (write strings as 'text' and quote column names "
                             "with backticks)");
        }
        return FilterError(text, i, std::string("unexpected character '") + c + "'");
      }
      i += tok.text.size();
    }
    tok.end = i;
    tokens.push_back(std::move(tok));
  }
}

// ---------------------------------------------------------------------------------------------
// Parser: or := and (OR and)*; and := not (AND not)*; not := NOT not | primary;
// primary := '(' or ')' | TRUE | FALSE | comparison.

Predicate MakeNot(Predicate child) {
  Predicate p;
  p.op = PredicateOp::kNot;
  p.children.push_back(std::move(child));
  return p;
}

Predicate MakeLeaf(PredicateOp op, const DataField& field, std::vector<Value> literals) {
  Predicate p;
  p.op = op;
  p.field = field.name;
  p.type = field.type;
  p.literals = std::move(literals);
  return p;
}

class Parser {
 public:
  Parser(std::string_view text, const std::vector<DataField>& fields)
      : text_(text), fields_(fields) {}

  Result<Predicate> Run() {
    FJORD_ASSIGN_OR_RAISE(tokens_, Tokenize(text_));
    if (Peek().kind == Token::kEnd) return Status::Invalid("empty filter");
    FJORD_ASSIGN_OR_RAISE(Predicate p, ParseOr());
    if (Peek().kind != Token::kEnd) return Unexpected(Peek(), "AND, OR or the end");
    return p;
  }

 private:
  static constexpr int kMaxDepth = 200;

  struct Operand {
    const DataField* column = nullptr;
    RawLiteral literal;
    size_t pos = 0;
  };

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(next_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = tokens_[next_];
    if (next_ + 1 < tokens_.size()) ++next_;
    return t;
  }
  bool IsWord(const Token& t, std::string_view word) const {
    return t.kind == Token::kWord && EqualsIgnoreCase(t.text, word);
  }
  bool IsSymbol(const Token& t, std::string_view sym) const {
    return t.kind == Token::kSymbol && t.text == sym;
  }
  bool AcceptWord(std::string_view word) {
    if (!IsWord(Peek(), word)) return false;
    Next();
    return true;
  }
  std::string_view Source(const Token& t) const { return text_.substr(t.pos, t.end - t.pos); }

  Status Unexpected(const Token& t, std::string_view expected) const {
    std::string found = t.kind == Token::kEnd ? std::string("the end of the filter")
                                              : "'" + std::string(Source(t)) + "'";
    return FilterError(text_, t.pos, "expected " + std::string(expected) + ", found " + found);
  }

  Status ExpectSymbol(std::string_view sym) {
    if (!IsSymbol(Peek(), sym)) return Unexpected(Peek(), "'" + std::string(sym) + "'");
    Next();
    return Status::OK();
  }

  Status Enter() {
    if (++depth_ > kMaxDepth) return FilterError(text_, Peek().pos, "filter nested too deeply");
    return Status::OK();
  }

  Result<Predicate> ParseOr() {
    FJORD_RETURN_NOT_OK(Enter());
    std::vector<Predicate> children;
    FJORD_ASSIGN_OR_RAISE(Predicate first, ParseAnd());
    children.push_back(std::move(first));
    while (AcceptWord("OR")) {
      FJORD_ASSIGN_OR_RAISE(Predicate next, ParseAnd());
      children.push_back(std::move(next));
    }
    --depth_;
    return MakeJunction(PredicateOp::kOr, std::move(children));
  }

  Result<Predicate> ParseAnd() {
    std::vector<Predicate> children;
    FJORD_ASSIGN_OR_RAISE(Predicate first, ParseNot());
    children.push_back(std::move(first));
    while (AcceptWord("AND")) {
      FJORD_ASSIGN_OR_RAISE(Predicate next, ParseNot());
      children.push_back(std::move(next));
    }
    return MakeJunction(PredicateOp::kAnd, std::move(children));
  }

  Result<Predicate> ParseNot() {
    if (AcceptWord("NOT")) {
      FJORD_RETURN_NOT_OK(Enter());
      FJORD_ASSIGN_OR_RAISE(Predicate child, ParseNot());
      --depth_;
      return MakeNot(std::move(child));
    }
    return ParsePrimary();
  }

  static bool IsComparison(const Token& t) {
    if (t.kind != Token::kSymbol) return false;
    for (std::string_view op : {"=", "==", "<>", "!=", "<", "<=", ">", ">="}) {
      if (t.text == op) return true;
    }
    return false;
  }

  static PredicateOp ComparisonOp(const std::string& sym) {
    if (sym == "=" || sym == "==") return PredicateOp::kEq;
    if (sym == "<>" || sym == "!=") return PredicateOp::kNotEq;
    if (sym == "<") return PredicateOp::kLt;
    if (sym == "<=") return PredicateOp::kLe;
    if (sym == ">") return PredicateOp::kGt;
    return PredicateOp::kGe;
  }

  // `literal op column` is `column op' literal`.
  static PredicateOp Mirror(PredicateOp op) {
    switch (op) {
      case PredicateOp::kLt:
        return PredicateOp::kGt;
      case PredicateOp::kLe:
        return PredicateOp::kGe;
      case PredicateOp::kGt:
        return PredicateOp::kLt;
      case PredicateOp::kGe:
        return PredicateOp::kLe;
      default:
        return op;
    }
  }

  Result<Predicate> ParsePrimary() {
    const Token& t = Peek();
    if (IsSymbol(t, "(")) {
      Next();
      FJORD_ASSIGN_OR_RAISE(Predicate inner, ParseOr());
      FJORD_RETURN_NOT_OK(ExpectSymbol(")"));
      return inner;
    }
    // A bare TRUE / FALSE is a constant predicate (an empty AND / OR).
    if ((IsWord(t, "TRUE") || IsWord(t, "FALSE")) && !IsComparison(Peek(1))) {
      Predicate p;
      p.op = IsWord(Next(), "TRUE") ? PredicateOp::kAnd : PredicateOp::kOr;
      return p;
    }
    FJORD_ASSIGN_OR_RAISE(Operand left, ParseOperand());
    if (left.column != nullptr) {
      const DataField& field = *left.column;
      if (AcceptWord("IS")) {
        bool negated = AcceptWord("NOT");
        if (!AcceptWord("NULL")) return Unexpected(Peek(), negated ? "NULL" : "NULL or NOT NULL");
        return MakeLeaf(negated ? PredicateOp::kIsNotNull : PredicateOp::kIsNull, field, {});
      }
      bool negated = false;
      if (IsWord(Peek(), "NOT")) {
        if (!IsWord(Peek(1), "IN") && !IsWord(Peek(1), "BETWEEN")) {
          return Unexpected(Peek(1), "IN or BETWEEN after NOT");
        }
        Next();
        negated = true;
      }
      if (AcceptWord("IN")) {
        FJORD_RETURN_NOT_OK(ExpectSymbol("("));
        std::vector<Value> values;
        do {
          FJORD_ASSIGN_OR_RAISE(Value v, ParseLiteralFor(field));
          values.push_back(std::move(v));
        } while (IsSymbol(Peek(), ",") && (Next(), true));
        FJORD_RETURN_NOT_OK(ExpectSymbol(")"));
        return MakeLeaf(negated ? PredicateOp::kNotIn : PredicateOp::kIn, field, std::move(values));
      }
      if (AcceptWord("BETWEEN")) {
        FJORD_ASSIGN_OR_RAISE(Value low, ParseLiteralFor(field));
        if (!AcceptWord("AND")) return Unexpected(Peek(), "AND in BETWEEN ... AND ...");
        FJORD_ASSIGN_OR_RAISE(Value high, ParseLiteralFor(field));
        std::vector<Predicate> range;
        range.push_back(MakeLeaf(PredicateOp::kGe, field, {std::move(low)}));
        range.push_back(MakeLeaf(PredicateOp::kLe, field, {std::move(high)}));
        Predicate between = MakeJunction(PredicateOp::kAnd, std::move(range));
        return negated ? MakeNot(std::move(between)) : between;
      }
      if (negated) return Unexpected(Peek(), "IN or BETWEEN after NOT");
    }
    const Token& op_token = Peek();
    if (!IsComparison(op_token)) {
      return Unexpected(op_token, left.column != nullptr
                                      ? "a comparison operator, IN, IS or BETWEEN"
                                      : "a comparison operator");
    }
    PredicateOp op = ComparisonOp(Next().text);
    FJORD_ASSIGN_OR_RAISE(Operand right, ParseOperand());
    if (left.column != nullptr && right.column != nullptr) {
      return FilterError(text_, right.pos,
                         "comparing two columns is not supported; compare a column with a "
                         "literal");
    }
    if (left.column == nullptr && right.column == nullptr) {
      return FilterError(text_, left.pos, "a comparison needs a column on one side");
    }
    if (left.column == nullptr) {
      std::swap(left, right);
      op = Mirror(op);
    }
    FJORD_ASSIGN_OR_RAISE(Value v, ConvertLiteral(right.literal, *left.column));
    return MakeLeaf(op, *left.column, {std::move(v)});
  }

  Result<Value> ParseLiteralFor(const DataField& field) {
    FJORD_ASSIGN_OR_RAISE(Operand operand, ParseOperand());
    if (operand.column != nullptr) {
      return FilterError(text_, operand.pos,
                         "expected a literal, found column '" + operand.column->name + "'");
    }
    return ConvertLiteral(operand.literal, field);
  }

  Result<Operand> ParseOperand() {
    Operand out;
    const Token& t = Peek();
    out.pos = t.pos;
    RawLiteral& lit = out.literal;
    switch (t.kind) {
      case Token::kSymbol: {
        if ((t.text == "-" || t.text == "+") && Peek(1).kind == Token::kNumber) {
          const Token& sign = Next();
          const Token& number = Next();
          lit.kind = LiteralKind::kNumber;
          lit.text = sign.text + number.text;
          lit.source = std::string(text_.substr(sign.pos, number.end - sign.pos));
          return out;
        }
        return Unexpected(t, "a column or a literal");
      }
      case Token::kNumber:
        lit.kind = LiteralKind::kNumber;
        lit.text = t.text;
        lit.source = std::string(Source(Next()));
        return out;
      case Token::kString:
        lit.kind = LiteralKind::kString;
        lit.text = t.text;
        lit.source = std::string(Source(Next()));
        return out;
      case Token::kHex:
        lit.kind = LiteralKind::kHex;
        lit.text = t.text;
        lit.source = std::string(Source(Next()));
        return out;
      case Token::kQuotedName: {
        FJORD_ASSIGN_OR_RAISE(out.column, Resolve(t.text));
        Next();
        return out;
      }
      case Token::kWord: {
        if (IsWord(t, "TRUE") || IsWord(t, "FALSE")) {
          lit.kind = LiteralKind::kBool;
          lit.text = t.text;
          lit.source = std::string(Source(Next()));
          return out;
        }
        if (IsWord(t, "NULL")) {
          lit.kind = LiteralKind::kNull;
          lit.source = std::string(Source(Next()));
          return out;
        }
        if (Peek(1).kind == Token::kString &&
            (IsWord(t, "DATE") || IsWord(t, "TIME") || IsWord(t, "TIMESTAMP"))) {
          lit.kind = IsWord(t, "DATE")   ? LiteralKind::kDate
                     : IsWord(t, "TIME") ? LiteralKind::kTime
                                         : LiteralKind::kTimestamp;
          const Token& keyword = Next();
          const Token& str = Next();
          lit.text = str.text;
          lit.source = std::string(text_.substr(keyword.pos, str.end - keyword.pos));
          return out;
        }
        if (IsReservedWord(t.text)) return Unexpected(t, "a column or a literal");
        FJORD_ASSIGN_OR_RAISE(out.column, Resolve(t.text));
        Next();
        return out;
      }
      case Token::kEnd:
        break;
    }
    return Unexpected(t, "a column or a literal");
  }

  // Exact name first; otherwise a unique case-insensitive match.
  Result<const DataField*> Resolve(const std::string& name) const {
    for (const DataField& f : fields_) {
      if (f.name == name) return &f;
    }
    const DataField* found = nullptr;
    for (const DataField& f : fields_) {
      if (EqualsIgnoreCase(f.name, name)) {
        if (found != nullptr) {
          return Status::Invalid("filter column '", name, "' is ambiguous: '", found->name,
                                 "' and '", f.name, "'");
        }
        found = &f;
      }
    }
    if (found != nullptr) return found;
    std::string known;
    for (const DataField& f : fields_) known += (known.empty() ? "" : ", ") + f.name;
    return Status::Invalid("filter refers to unknown column '", name, "' (columns: ", known, ")");
  }

  std::string_view text_;
  const std::vector<DataField>& fields_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<Predicate> Predicate::Parse(std::string_view text, const std::vector<DataField>& fields) {
  return Parser(text, fields).Run();
}

}  // namespace fjord
