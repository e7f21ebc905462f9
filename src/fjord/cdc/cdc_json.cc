#include "fjord/cdc/cdc_json.h"

#include <simdjson.h>

#include <cctype>
#include <cstdlib>

#include "fjord/common/json.h"

namespace fjord::cdc {

const JsonNode* JsonNode::Get(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

void JsonNode::Set(const std::string& key, JsonNode value) {
  for (auto& [name, existing] : members) {
    if (name == key) {
      existing = std::move(value);
      return;
    }
  }
  members.emplace_back(key, std::move(value));
}

namespace {

// Splits a decimal number into its digits without point and the power of ten they are scaled by
// (BigDecimal's unscaled value and -scale). False when it is not a number.
bool SplitDecimal(std::string_view s, bool* negative, std::string* digits, int64_t* exponent) {
  size_t i = 0;
  *negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) *negative = s[i++] == '-';
  digits->clear();
  int64_t frac = 0;
  bool point = false;
  for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      if (point) return false;
      point = true;
    } else {
      digits->push_back(s[i]);
      if (point) ++frac;
    }
  }
  if (digits->empty()) return false;
  int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
      if (exp < 1000000000000LL) exp = exp * 10 + (s[i] - '0');
    }
    if (neg) exp = -exp;
  }
  if (i != s.size()) return false;
  *exponent = exp - frac;
  return true;
}

// JSON integers: Jackson's IntNode/LongNode/BigIntegerNode print their digits; "-0" is 0.
std::string IntegerText(std::string_view raw) {
  if (raw == "-0") return "0";
  return std::string(raw);
}

class TreeBuilder : public nlohmann::json_sax<Json> {
 public:
  JsonNode root;
  std::string error;

  bool null() override { return Put(JsonNode{}); }
  bool boolean(bool v) override {
    JsonNode n;
    n.kind = JsonNode::Kind::kBool;
    n.text = v ? "true" : "false";
    return Put(std::move(n));
  }
  bool number_integer(number_integer_t v) override { return PutInteger(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return PutInteger(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override {
    // nlohmann reports integers beyond 64 bits here too: Jackson's BigIntegerNode.
    if (s.find_first_of(".eE") == std::string::npos) return PutInteger(IntegerText(s));
    JsonNode n;
    n.kind = JsonNode::Kind::kDecimal;
    n.text = NormalizedDecimalText(s);
    return Put(std::move(n));
  }
  bool string(string_t& v) override {
    JsonNode n;
    n.kind = JsonNode::Kind::kString;
    n.text = std::move(v);
    return Put(std::move(n));
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    JsonNode n;
    n.kind = JsonNode::Kind::kObject;
    return Open(std::move(n));
  }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override {
    JsonNode n;
    n.kind = JsonNode::Kind::kArray;
    return Open(std::move(n));
  }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  struct Frame {
    JsonNode node;
    std::string key;  // the member the node goes into, when its parent is an object
  };

  bool PutInteger(std::string text) {
    JsonNode n;
    n.kind = JsonNode::Kind::kInteger;
    n.text = std::move(text);
    return Put(std::move(n));
  }
  bool Put(JsonNode n) {
    if (stack_.empty()) {
      root = std::move(n);
    } else if (stack_.back().node.is_object()) {
      stack_.back().node.Set(key_, std::move(n));
    } else {
      stack_.back().node.items.push_back(std::move(n));
    }
    return true;
  }
  bool Open(JsonNode n) {
    stack_.push_back(Frame{std::move(n), key_});
    return true;
  }
  bool Close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    key_ = f.key;
    return Put(std::move(f.node));
  }

  std::vector<Frame> stack_;
  std::string key_;
};

// The two ways a converted value is printed: Objects.toString ({a=1, b=x}, [1, x]) and
// Jackson's compact JSON ({"a":1,"b":"x"}, [1,"x"]). They differ only in the separators and in
// quoting strings and keys.
enum class TextStyle { kJava, kCompactJson };

void AppendText(const JsonNode& n, TextStyle style, std::string* out) {
  const bool json = style == TextStyle::kCompactJson;
  const char* separator = json ? "," : ", ";
  switch (n.kind) {
    case JsonNode::Kind::kNull:
      out->append("null");
      return;
    case JsonNode::Kind::kObject: {
      out->push_back('{');
      bool first = true;
      for (const auto& [k, v] : n.members) {
        if (!first) out->append(separator);
        first = false;
        if (json) {
          AppendJsonString(out, k);
          out->push_back(':');
        } else {
          out->append(k).push_back('=');
        }
        AppendText(v, style, out);
      }
      out->push_back('}');
      return;
    }
    case JsonNode::Kind::kArray: {
      out->push_back('[');
      bool first = true;
      for (const JsonNode& v : n.items) {
        if (!first) out->append(separator);
        first = false;
        AppendText(v, style, out);
      }
      out->push_back(']');
      return;
    }
    case JsonNode::Kind::kString:
      if (json) {
        AppendJsonString(out, n.text);
      } else {
        out->append(n.text);
      }
      return;
    default:
      out->append(n.text);
  }
}

namespace od = simdjson::ondemand;

// The node of `v` as ParseCdcJsonReference builds it. False on any error: the reference way then
// decides (and words the error).
bool BuildNode(od::value& v, JsonNode* n) {
  od::json_type type;
  if (v.type().get(type)) return false;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (v.get_object().get(object)) return false;
      n->kind = JsonNode::Kind::kObject;
      for (auto member : object) {
        od::field field;
        std::string_view key;
        if (std::move(member).get(field) || field.unescaped_key().get(key)) return false;
        JsonNode child;
        od::value value = field.value();
        if (!BuildNode(value, &child)) return false;
        n->Set(std::string(key), std::move(child));
      }
      return true;
    }
    case od::json_type::array: {
      od::array array;
      if (v.get_array().get(array)) return false;
      n->kind = JsonNode::Kind::kArray;
      for (auto item : array) {
        od::value value;
        if (std::move(item).get(value)) return false;
        n->items.emplace_back();
        if (!BuildNode(value, &n->items.back())) return false;
      }
      return true;
    }
    case od::json_type::number: {
      std::string_view token = v.raw_json_token();
      while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
        token.remove_suffix(1);
      }
      double checked;  // the token is a JSON number
      if (v.get_double().get(checked)) return false;
      if (token.find_first_of(".eE") == std::string_view::npos) {
        n->kind = JsonNode::Kind::kInteger;
        n->text = IntegerText(token);
      } else {
        n->kind = JsonNode::Kind::kDecimal;
        n->text = NormalizedDecimalText(token);
      }
      return true;
    }
    case od::json_type::string: {
      std::string_view text;
      if (v.get_string().get(text)) return false;
      n->kind = JsonNode::Kind::kString;
      n->text = std::string(text);
      return true;
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b)) return false;
      n->kind = JsonNode::Kind::kBool;
      n->text = b ? "true" : "false";
      return true;
    }
    case od::json_type::null: {
      bool is_null = false;
      return !v.is_null().get(is_null) && is_null;
    }
  }
  return false;
}

// simdjson's on-demand parser, one per thread (the decoders of a job run on several).
bool ParseFast(std::string_view text, JsonNode* out) {
  thread_local od::parser parser;
  thread_local std::string padded;
  if (padded.size() < text.size() + simdjson::SIMDJSON_PADDING) {
    padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  }
  // simdjson may look at the padding: zeros, never a stale message's bytes.
  std::fill(std::copy(text.begin(), text.end(), padded.begin()),
            padded.begin() + static_cast<std::ptrdiff_t>(text.size() + simdjson::SIMDJSON_PADDING),
            '\0');
  od::document doc;
  if (parser.iterate(padded.data(), text.size(), padded.size()).get(doc)) return false;
  // Messages are objects; other documents (rare) take the reference way.
  od::json_type type;
  if (doc.type().get(type) || (type != od::json_type::object && type != od::json_type::array)) {
    return false;
  }
  od::value root;
  if (doc.get_value().get(root)) return false;
  // Like Jackson's readValue, what follows the first value is not read.
  return BuildNode(root, out);
}

}  // namespace

Result<JsonNode> ParseCdcJson(std::string_view text) {
  JsonNode node;
  if (ParseFast(text, &node)) return node;
  return ParseCdcJsonReference(text);
}

Result<JsonNode> ParseCdcJsonReference(std::string_view text) {
  TreeBuilder builder;
  // Not strict: like Jackson's readValue, the first value is read and what follows is ignored.
  bool ok =
      Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::detail::input_format_t::json,
                      /*strict=*/false);
  if (!ok) {
    return Status::Invalid("not valid JSON: ",
                           builder.error.empty() ? "parse error" : builder.error);
  }
  return std::move(builder.root);
}

std::string JsonAsText(const JsonNode& node) {
  switch (node.kind) {
    case JsonNode::Kind::kNull:
      return "null";
    case JsonNode::Kind::kObject:
    case JsonNode::Kind::kArray:
      return "";
    default:
      return node.text;
  }
}

std::string JavaObjectText(const JsonNode& node) {
  std::string out;
  AppendText(node, TextStyle::kJava, &out);
  return out;
}

std::string JacksonCompactText(const JsonNode& node) {
  std::string out;
  AppendText(node, TextStyle::kCompactJson, &out);
  return out;
}

bool IsJavaBigDecimal(std::string_view text) {
  bool negative;
  std::string digits;
  int64_t exponent;
  return SplitDecimal(text, &negative, &digits, &exponent);
}

std::string NormalizedDecimalText(std::string_view number) {
  bool negative;
  std::string digits;
  int64_t exponent;
  if (!SplitDecimal(number, &negative, &digits, &exponent)) return std::string(number);
  size_t nz = digits.find_first_not_of('0');
  if (nz == std::string::npos) return "0";  // Jackson's DecimalNode.ZERO
  digits.erase(0, nz);
  while (digits.size() > 1 && digits.back() == '0') {  // stripTrailingZeros
    digits.pop_back();
    ++exponent;
  }
  const int64_t scale = -exponent;
  const int64_t len = static_cast<int64_t>(digits.size());
  const int64_t adjusted = -scale + (len - 1);
  std::string out = negative ? "-" : "";
  if (scale == 0) return out + digits;
  if (scale > 0 && adjusted >= -6) {
    if (len > scale) {
      out += digits.substr(0, static_cast<size_t>(len - scale));
      out += '.';
      out += digits.substr(static_cast<size_t>(len - scale));
    } else {
      out += "0.";
      out.append(static_cast<size_t>(scale - len), '0');
      out += digits;
    }
    return out;
  }
  out += digits[0];
  if (len > 1) out += "." + digits.substr(1);
  out += 'E';
  out += adjusted >= 0 ? "+" : "-";
  out += std::to_string(adjusted >= 0 ? adjusted : -adjusted);
  return out;
}

}  // namespace fjord::cdc
