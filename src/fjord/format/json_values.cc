#include "fjord/format/json_values.h"

#include <limits>
#include <unordered_map>

#include "fjord/format/text_values.h"

namespace fjord {

namespace {

constexpr std::uint64_t kNumberSubtype = 0x4e;  // marks a binary value as number text

// Builds a Json from nlohmann's SAX events, keeping the text of non-integer numbers.
class ExactJsonBuilder : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return Put(Json(nullptr)) != nullptr; }
  bool boolean(bool v) override { return Put(Json(v)) != nullptr; }
  bool number_integer(number_integer_t v) override { return Put(Json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return Put(Json(v)) != nullptr; }
  bool number_float(number_float_t, const string_t& s) override {
    return Put(Json::binary(Json::binary_t::container_type(s.begin(), s.end()), kNumberSubtype)) !=
           nullptr;
  }
  bool string(string_t& v) override { return Put(Json(std::move(v))) != nullptr; }
  bool binary(binary_t& v) override { return Put(Json::binary(v)) != nullptr; }
  bool start_object(std::size_t) override {
    Json* j = Put(Json::object());
    stack_.push_back(j);
    return true;
  }
  bool key(string_t& k) override {
    if (stack_.back()->contains(k)) {
      error_ = "key \"" + k + "\" given twice";
      return false;
    }
    key_ = std::move(k);
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    Json* j = Put(Json::array());
    stack_.push_back(j);
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." without the tag.
    if (size_t p = error_.find("] "); p != std::string::npos) error_ = error_.substr(p + 2);
    // Inside an object, the key whose value broke (for a JSON line: the column).
    if (!stack_.empty() && stack_.back()->is_object() && !key_.empty()) {
      error_ += " (in the value of \"" + key_ + "\")";
    }
    return false;
  }

  Json root;
  std::string error_;

 private:
  Json* Put(Json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    Json* top = stack_.back();
    if (top->is_array()) {
      top->push_back(std::move(v));
      return &top->back();
    }
    return &((*top)[key_] = std::move(v));
  }
  std::vector<Json*> stack_;
  std::string key_;
};

std::string Describe(const Json& j) {
  std::string buffer;
  if (const std::string* text = JsonNumberText(j, &buffer)) return *text;
  return j.dump();
}

}  // namespace

Result<Json> ParseExactJson(std::string_view text, std::string_view source) {
  ExactJsonBuilder builder;
  bool ok = Json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok || !builder.error_.empty()) {
    std::string prefix = source.empty() ? "" : std::string(source) + ": ";
    return Status::Invalid(
        prefix, "invalid JSON: ", builder.error_.empty() ? "parse error" : builder.error_);
  }
  return std::move(builder.root);
}

const std::string* JsonNumberText(const Json& j, std::string* buffer) {
  if (!j.is_binary()) return nullptr;
  const auto& bin = j.get_binary();
  if (!bin.has_subtype() || bin.subtype() != kNumberSubtype) return nullptr;
  buffer->assign(bin.begin(), bin.end());
  return buffer;
}

Result<Value> ValueFromJson(const Json& j, const DataType& type) {
  if (j.is_null()) {
    if (!type.nullable()) return Status::Invalid("NULL (or missing) for ", type.ToString());
    return Value();
  }
  std::string number_buffer;
  const std::string* number_text = JsonNumberText(j, &number_buffer);
  auto bad = [&](const char* what) {
    return Status::Invalid("expected ", what, " for ", type.ToString(), ", got ", Describe(j));
  };
  auto integer = [&]() -> Result<int64_t> {
    if (!j.is_number_integer()) return bad("an integer");
    return ParseIntegerText(j.dump(), type);
  };
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (!j.is_boolean()) return bad("true or false");
      return Value(j.get<bool>());
    case TypeRoot::kTinyInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer());
      return Value(static_cast<int8_t>(v));
    }
    case TypeRoot::kSmallInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer());
      return Value(static_cast<int16_t>(v));
    }
    case TypeRoot::kInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer());
      return Value(static_cast<int32_t>(v));
    }
    case TypeRoot::kBigInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer());
      return Value(v);
    }
    case TypeRoot::kFloat:
    case TypeRoot::kDouble: {
      std::string text;
      if (number_text) {
        text = *number_text;
      } else if (j.is_number_integer()) {
        text = j.dump();
      } else if (j.is_string()) {
        text = j.get<std::string>();
        if (text != "NaN" && text != "Infinity" && text != "-Infinity") {
          return bad("a number (or \"NaN\", \"Infinity\", \"-Infinity\")");
        }
      } else {
        return bad("a number");
      }
      if (type.root() == TypeRoot::kFloat) {
        FJORD_ASSIGN_OR_RAISE(float f, ParseFloatText(text));
        return Value(f);
      }
      FJORD_ASSIGN_OR_RAISE(double d, ParseDoubleText(text));
      return Value(d);
    }
    case TypeRoot::kDecimal: {
      std::string text = number_text             ? *number_text
                         : j.is_string()         ? j.get<std::string>()
                         : j.is_number_integer() ? j.dump()
                                                 : "";
      if (text.empty()) return bad("a decimal number or string");
      return ValueFromText(text, type);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      if (!j.is_string()) return bad("a string");
      FJORD_RETURN_NOT_OK(CheckLength(j.get_ref<const std::string&>(), type));
      return Value(j.get<std::string>());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (!j.is_string()) return bad("a string");
      return ValueFromText(j.get_ref<const std::string&>(), type);
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector: {
      if (!j.is_array()) return bad("a list");
      ValueList items;
      int64_t index = 0;
      for (const Json& e : j) {
        Result<Value> v = ValueFromJson(e, *type.element());
        if (!v.ok()) return v.status().WithContext("element ", index);
        items.push_back(std::move(*v));
        ++index;
      }
      if (type.root() == TypeRoot::kMultiset) {
        ValueMap counts;
        for (Value& v : items) {
          // Held as a map from element to count, whose keys cannot be NULL.
          if (v.is_null()) return Status::Invalid("a MULTISET element may not be NULL");
          bool found = false;
          for (auto& [k, c] : counts) {
            if (k == v) {
              c = Value(c.get<int32_t>() + 1);
              found = true;
            }
          }
          if (!found) counts.emplace_back(std::move(v), Value(int32_t{1}));
        }
        return Value::Map(std::move(counts));
      }
      return Value::List(std::move(items));
    }
    case TypeRoot::kMap: {
      if (!j.is_array()) return bad("a list of [key, value] pairs");
      ValueMap entries;
      for (const Json& e : j) {
        if (!e.is_array() || e.size() != 2) return bad("a list of [key, value] pairs");
        Result<Value> k = ValueFromJson(e[0], *type.key());
        if (!k.ok()) return k.status().WithContext("map key ", Describe(e[0]));
        if (k->is_null()) return Status::Invalid("a MAP key may not be NULL");
        Result<Value> v = ValueFromJson(e[1], *type.value());
        if (!v.ok()) return v.status().WithContext("map value of key ", Describe(e[0]));
        entries.emplace_back(std::move(*k), std::move(*v));
      }
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kRow: {
      if (!j.is_object()) return bad("an object");
      for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const DataField& f : type.fields()) known = known || f.name == it.key();
        if (!known) return Status::Invalid("unknown field '", it.key(), "' in ", type.ToString());
      }
      ValueList fields;
      for (const DataField& f : type.fields()) {
        auto it = j.find(f.name);
        Result<Value> v =
            it == j.end() ? ValueFromJson(Json(nullptr), *f.type) : ValueFromJson(*it, *f.type);
        if (!v.ok()) return v.status().WithContext("field '", f.name, "'");
        fields.push_back(std::move(*v));
      }
      return Value::List(std::move(fields));
    }
  }
  return Status::Invalid("no JSON form for ", type.ToString());
}

Result<JsonLineRow> ParseJsonLine(std::string_view line, const std::vector<DataField>& fields,
                                  std::string_view where) {
  FJORD_ASSIGN_OR_RAISE(Json j, ParseExactJson(line, where));
  if (!j.is_object()) return Status::Invalid(where, ": expected a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = it.key() == "_row_kind";
    for (const DataField& f : fields) known = known || f.name == it.key();
    if (!known) {
      return Status::Invalid(where, ": unknown column '", it.key(), "' (not in the table)");
    }
  }
  JsonLineRow row;
  if (auto k = j.find("_row_kind"); k != j.end()) {
    std::string ks = k->is_string() ? k->get<std::string>() : "";
    if (ks == "+I") {
      row.kind = 0;
    } else if (ks == "-U") {
      row.kind = 1;
    } else if (ks == "+U") {
      row.kind = 2;
    } else if (ks == "-D") {
      row.kind = 3;
    } else {
      return Status::Invalid(where, ": _row_kind must be +I, -U, +U or -D, got ", Describe(*k));
    }
  }
  row.values.reserve(fields.size());
  for (const DataField& f : fields) {
    auto it = j.find(f.name);
    if (!f.type->nullable() && (it == j.end() || it->is_null())) {
      return Status::Invalid(where, ", column '", f.name, "' is NOT NULL but the line has ",
                             it == j.end() ? "no value for it" : "null");
    }
    Result<Value> v =
        it == j.end() ? ValueFromJson(Json(nullptr), *f.type) : ValueFromJson(*it, *f.type);
    if (!v.ok()) return v.status().WithContext(where, ", column '", f.name, "'");
    row.values.push_back(std::move(*v));
  }
  return row;
}

}  // namespace fjord
