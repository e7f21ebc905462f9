#include "fjord/format/avro/schema.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <utility>

namespace fjord::avro {

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return "boolean";
    case Type::kInt:
      return "int";
    case Type::kLong:
      return "long";
    case Type::kFloat:
      return "float";
    case Type::kDouble:
      return "double";
    case Type::kBytes:
      return "bytes";
    case Type::kString:
      return "string";
    case Type::kRecord:
      return "record";
    case Type::kEnum:
      return "enum";
    case Type::kArray:
      return "array";
    case Type::kMap:
      return "map";
    case Type::kUnion:
      return "union";
    case Type::kFixed:
      return "fixed";
  }
  return "?";
}

std::optional<size_t> Node::FieldIndex(std::string_view name) const {
  auto it = field_index_.find(name);
  if (it == field_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> Node::SymbolIndex(std::string_view symbol) const {
  for (size_t i = 0; i < symbols_.size(); ++i) {
    if (symbols_[i] == symbol) return i;
  }
  return std::nullopt;
}

const Node* Schema::FindNamed(std::string_view full_name) const {
  auto it = named_.find(full_name);
  return it == named_.end() ? nullptr : it->second;
}

namespace {

std::optional<Type> PrimitiveType(std::string_view name) {
  static constexpr std::pair<std::string_view, Type> kPrimitives[] = {
      {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},
      {"long", Type::kLong},   {"float", Type::kFloat},     {"double", Type::kDouble},
      {"bytes", Type::kBytes}, {"string", Type::kString},
  };
  for (const auto& [n, t] : kPrimitives) {
    if (n == name) return t;
  }
  return std::nullopt;
}

bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  auto first = static_cast<unsigned char>(name[0]);
  if (!(std::isalpha(first) || first == '_')) return false;
  for (char ch : name.substr(1)) {
    auto c = static_cast<unsigned char>(ch);
    if (!(std::isalnum(c) || c == '_')) return false;
  }
  return true;
}

bool IsValidNamespace(std::string_view space) {
  if (space.empty()) return true;
  size_t start = 0;
  while (true) {
    size_t dot = space.find('.', start);
    std::string_view part =
        space.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!IsValidName(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  constexpr int64_t kCap = int64_t{1} << 40;
  return std::min(kCap, a + b);
}

// Compact JSON with strings escaped as Jackson does (the props and defaults Java writes back).
void WriteJsonValue(const Json& v, std::string* out) {
  if (v.is_string()) {
    AppendJsonString(out, v.get_ref<const std::string&>());
  } else if (v.is_object()) {
    out->push_back('{');
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out->push_back(',');
      first = false;
      AppendJsonString(out, it.key());
      out->push_back(':');
      WriteJsonValue(it.value(), out);
    }
    out->push_back('}');
  } else if (v.is_array()) {
    out->push_back('[');
    bool first = true;
    for (const Json& e : v) {
      if (!first) out->push_back(',');
      first = false;
      WriteJsonValue(e, out);
    }
    out->push_back(']');
  } else {
    out->append(v.dump());
  }
}

}  // namespace

// Builds a Schema from JSON. Works on a JSON value it owns, moving attribute values (props,
// defaults) out of it rather than copying them: copying JSON recurses, and schema text may come
// from a hostile file.
class SchemaParser {
 public:
  explicit SchemaParser(const SchemaParseOptions& options)
      : options_(options), schema_(new Schema()) {}

  Result<std::shared_ptr<const Schema>> Run(Json& json) {
    FJORD_ASSIGN_OR_RAISE(const Node* root, ParseNode(json, "", 0));
    schema_->root_ = root;
    return std::shared_ptr<const Schema>(std::move(schema_));
  }

 private:
  // Where in the schema we are, for error messages: the chain of record fields.
  std::string Where() const {
    if (path_.empty()) return "at the top level";
    std::string s = "at field '";
    for (size_t i = 0; i < path_.size(); ++i) {
      if (i > 0) s += '.';
      s += path_[i];
    }
    s += "'";
    return s;
  }

  template <typename... Args>
  Status Error(Args&&... args) const {
    return Status::Invalid("invalid Avro schema ", Where(), ": ", std::forward<Args>(args)...);
  }

  Node* NewNode(Type type) {
    schema_->nodes_.push_back(std::unique_ptr<Node>(new Node(type)));
    return schema_->nodes_.back().get();
  }

  // Resolves a type name used as a reference: as a full name when it has a dot, else in the
  // enclosing namespace, then in the null namespace (as Java does).
  const Node* Lookup(std::string_view name, const std::string& space) const {
    if (name.find('.') == std::string_view::npos && !space.empty()) {
      std::string full = space + "." + std::string(name);
      if (const Node* n = schema_->FindNamed(full)) return n;
    }
    return schema_->FindNamed(name);
  }

  Result<const Node*> ParseNode(Json& json, const std::string& space, int depth) {
    if (depth > kMaxNestingDepth) {
      return Error("nested deeper than ", kMaxNestingDepth, " levels");
    }
    if (json.is_string()) {
      const std::string& name = json.get_ref<const std::string&>();
      if (auto prim = PrimitiveType(name)) return FinishPrimitive(NewNode(*prim));
      if (const Node* named = Lookup(name, space)) return named;
      return Error("unknown type name '", name, "'");
    }
    if (json.is_array()) return ParseUnion(json, space, depth);
    if (json.is_object()) return ParseObject(json, space, depth);
    return Error("expected a type name, an object or an array, got ", json.type_name(), " ",
                 json.dump());
  }

  const Node* FinishPrimitive(Node* node) {
    switch (node->type_) {
      case Type::kNull:
        node->min_encoded_size_ = 0;
        break;
      case Type::kFloat:
        node->min_encoded_size_ = 4;
        break;
      case Type::kDouble:
        node->min_encoded_size_ = 8;
        break;
      default:
        node->min_encoded_size_ = 1;
    }
    return node;
  }

  Result<const Node*> ParseUnion(Json& json, const std::string& space, int depth) {
    Node* node = NewNode(Type::kUnion);
    std::set<std::string, std::less<>> seen;
    int64_t min_branch = std::numeric_limits<int64_t>::max();
    for (Json& branch_json : json) {
      FJORD_ASSIGN_OR_RAISE(const Node* branch, ParseNode(branch_json, space, depth + 1));
      if (branch->type() == Type::kUnion) {
        return Error("a union may not immediately contain another union");
      }
      std::string key =
          branch->is_named() ? branch->full_name() : std::string(TypeName(branch->type()));
      if (!seen.insert(key).second) return Error("union contains '", key, "' twice");
      node->children_.push_back(branch);
      min_branch = std::min(min_branch, branch->min_encoded_size());
    }
    if (node->children_.empty()) {
      // Legal per the specification, but no value can be written or read.
      min_branch = 0;
    }
    node->min_encoded_size_ = SaturatingAdd(1, min_branch);
    return node;
  }

  // Takes the attributes the specification does not reserve out of `json` into `props`.
  static void TakeProps(Json& json, std::initializer_list<std::string_view> reserved, Json* props) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (std::find(reserved.begin(), reserved.end(), it.key()) != reserved.end()) continue;
      (*props)[it.key()] = std::move(it.value());
    }
  }

  Result<std::optional<std::string>> OptionalString(const Json& json, std::string_view key) const {
    auto it = json.find(key);
    if (it == json.end() || it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return Error("'", key, "' must be a string, got ", it->type_name());
    return std::optional<std::string>(it->get<std::string>());
  }

  Result<std::vector<std::string>> Aliases(const Json& json) const {
    std::vector<std::string> out;
    auto it = json.find("aliases");
    if (it == json.end() || it->is_null()) return out;
    if (!it->is_array()) return Error("'aliases' must be an array of strings");
    for (const Json& a : *it) {
      if (!a.is_string()) return Error("'aliases' must be an array of strings");
      out.push_back(a.get<std::string>());
    }
    return out;
  }

  // Sets the name, namespace and full name of a named type and registers it, so that its own
  // fields may refer to it.
  Status DefineName(Node* node, const Json& json, const std::string& space) {
    auto name_it = json.find("name");
    if (name_it == json.end() || !name_it->is_string()) {
      return Error("a ", TypeName(node->type_), " needs a string 'name'");
    }
    const std::string& name = name_it->get_ref<const std::string&>();
    size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
      node->namespace_ = name.substr(0, dot);
      node->name_ = name.substr(dot + 1);
    } else {
      FJORD_ASSIGN_OR_RAISE(std::optional<std::string> ns, OptionalString(json, "namespace"));
      node->namespace_ = ns ? *ns : space;
      node->name_ = name;
    }
    node->full_name_ =
        node->namespace_.empty() ? node->name_ : node->namespace_ + "." + node->name_;
    if (node->name_.empty()) return Error("empty type name");
    if (options_.validate_names &&
        (!IsValidName(node->name_) || !IsValidNamespace(node->namespace_))) {
      return Error("invalid type name '", node->full_name_, "'");
    }
    if (PrimitiveType(node->full_name_)) {
      return Error("a named type may not be called '", node->full_name_, "'");
    }
    if (!schema_->named_.emplace(node->full_name_, node).second) {
      return Error("type '", node->full_name_, "' is defined twice");
    }
    FJORD_ASSIGN_OR_RAISE(node->doc_, OptionalString(json, "doc"));
    FJORD_ASSIGN_OR_RAISE(node->aliases_, Aliases(json));
    return Status::OK();
  }

  void SetLogicalType(Node* node) {
    auto lt = node->props_.find("logicalType");
    if (lt != node->props_.end() && lt->is_string()) node->logical_type_ = lt->get<std::string>();
    auto int_prop = [&](const char* key) -> int32_t {
      auto it = node->props_.find(key);
      if (it == node->props_.end() || !it->is_number_integer()) return 0;
      if (it->is_number_unsigned()) {
        return static_cast<int32_t>(
            std::min<uint64_t>(it->get<uint64_t>(), std::numeric_limits<int32_t>::max()));
      }
      int64_t v = it->get<int64_t>();
      return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                      std::numeric_limits<int32_t>::max()));
    };
    node->precision_ = int_prop("precision");
    node->scale_ = int_prop("scale");
  }

  Result<const Node*> ParseObject(Json& json, const std::string& space, int depth) {
    auto type_it = json.find("type");
    if (type_it == json.end()) return Error("object without a 'type'");
    if (!type_it->is_string()) {
      return Error("'type' must be a type name, got ", type_it->type_name());
    }
    const std::string type = type_it->get<std::string>();
    if (auto prim = PrimitiveType(type)) {
      Node* node = NewNode(*prim);
      TakeProps(json,
                {"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
                 "aliases"},
                &node->props_);
      SetLogicalType(node);
      return FinishPrimitive(node);
    }
    if (type == "record" || type == "error") {
      return ParseRecord(json, space, depth, /*is_error=*/type == "error");
    }
    if (type == "enum") return ParseEnum(json, space);
    if (type == "fixed") return ParseFixed(json, space);
    if (type == "array" || type == "map") {
      bool is_array = type == "array";
      const char* key = is_array ? "items" : "values";
      auto child_it = json.find(key);
      if (child_it == json.end()) return Error("a ", type, " needs '", key, "'");
      Node* node = NewNode(is_array ? Type::kArray : Type::kMap);
      FJORD_ASSIGN_OR_RAISE(const Node* child, ParseNode(*child_it, space, depth + 1));
      node->children_.push_back(child);
      node->min_encoded_size_ = 1;
      TakeProps(json,
                {"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
                 "aliases"},
                &node->props_);
      SetLogicalType(node);
      return node;
    }
    // {"type": "SomeName"}: a reference to a named type (Java accepts these too).
    if (const Node* named = Lookup(type, space)) return named;
    return Error("unknown type name '", type, "'");
  }

  Result<const Node*> ParseRecord(Json& json, const std::string& space, int depth, bool is_error) {
    Node* node = NewNode(Type::kRecord);
    node->is_error_ = is_error;
    FJORD_RETURN_NOT_OK(DefineName(node, json, space));
    auto fields_it = json.find("fields");
    if (fields_it == json.end() || !fields_it->is_array()) {
      return Error("record '", node->full_name_, "' needs a 'fields' array");
    }
    int64_t min_size = 0;
    for (Json& field_json : *fields_it) {
      if (!field_json.is_object()) {
        return Error("a field of record '", node->full_name_, "' is not an object");
      }
      auto name_it = field_json.find("name");
      if (name_it == field_json.end() || !name_it->is_string()) {
        return Error("a field of record '", node->full_name_, "' has no string 'name'");
      }
      Field field;
      field.name = name_it->get<std::string>();
      path_.push_back(field.name);
      if (options_.validate_names && !IsValidName(field.name)) {
        return Error("invalid field name '", field.name, "'");
      }
      if (node->field_index_.count(field.name) != 0) {
        return Error("record '", node->full_name_, "' has two fields called '", field.name, "'");
      }
      auto type_it = field_json.find("type");
      if (type_it == field_json.end()) return Error("field without a 'type'");
      FJORD_ASSIGN_OR_RAISE(field.type, ParseNode(*type_it, node->namespace_, depth + 1));
      FJORD_ASSIGN_OR_RAISE(field.doc, OptionalString(field_json, "doc"));
      FJORD_ASSIGN_OR_RAISE(field.order, OptionalString(field_json, "order"));
      if (field.order && *field.order != "ascending" && *field.order != "descending" &&
          *field.order != "ignore") {
        return Error("invalid 'order' '", *field.order, "'");
      }
      FJORD_ASSIGN_OR_RAISE(field.aliases, Aliases(field_json));
      auto default_it = field_json.find("default");
      if (default_it != field_json.end()) {
        if (options_.validate_defaults && !IsValidDefault(*field.type, *default_it, 0)) {
          return Error("default value ", TruncatedDump(*default_it), " is not a ",
                       Describe(*field.type));
        }
        field.default_value = std::move(*default_it);
      }
      TakeProps(field_json, {"default", "doc", "name", "order", "type", "aliases"}, &field.props);
      min_size = SaturatingAdd(min_size, field.type->min_encoded_size());
      node->field_index_.emplace(field.name, node->fields_.size());
      node->fields_.push_back(std::move(field));
      path_.pop_back();
    }
    node->min_encoded_size_ = min_size;
    TakeProps(json,
              {"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
               "aliases"},
              &node->props_);
    SetLogicalType(node);
    return node;
  }

  Result<const Node*> ParseEnum(Json& json, const std::string& space) {
    Node* node = NewNode(Type::kEnum);
    FJORD_RETURN_NOT_OK(DefineName(node, json, space));
    auto symbols_it = json.find("symbols");
    if (symbols_it == json.end() || !symbols_it->is_array()) {
      return Error("enum '", node->full_name_, "' needs a 'symbols' array");
    }
    std::set<std::string, std::less<>> seen;
    for (const Json& s : *symbols_it) {
      if (!s.is_string()) return Error("enum '", node->full_name_, "' has a non-string symbol");
      const std::string& symbol = s.get_ref<const std::string&>();
      if (options_.validate_names && !IsValidName(symbol)) {
        return Error("enum '", node->full_name_, "' has an invalid symbol '", symbol, "'");
      }
      if (!seen.insert(symbol).second) {
        return Error("enum '", node->full_name_, "' has the symbol '", symbol, "' twice");
      }
      node->symbols_.push_back(symbol);
    }
    FJORD_ASSIGN_OR_RAISE(node->enum_default_, OptionalString(json, "default"));
    if (node->enum_default_ && !node->SymbolIndex(*node->enum_default_)) {
      return Error("enum '", node->full_name_, "' has a default '", *node->enum_default_,
                   "' that is not one of its symbols");
    }
    node->min_encoded_size_ = 1;
    TakeProps(json,
              {"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
               "aliases", "default"},
              &node->props_);
    SetLogicalType(node);
    return node;
  }

  Result<const Node*> ParseFixed(Json& json, const std::string& space) {
    Node* node = NewNode(Type::kFixed);
    FJORD_RETURN_NOT_OK(DefineName(node, json, space));
    auto size_it = json.find("size");
    if (size_it == json.end() || !size_it->is_number_integer() ||
        (!size_it->is_number_unsigned() && size_it->get<int64_t>() < 0) ||
        size_it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Error("fixed '", node->full_name_, "' needs a 'size' between 0 and 2^31-1");
    }
    node->fixed_size_ = static_cast<int32_t>(size_it->get<int64_t>());
    node->min_encoded_size_ = node->fixed_size_;
    TakeProps(json,
              {"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
               "aliases"},
              &node->props_);
    SetLogicalType(node);
    return node;
  }

  static std::string Describe(const Node& node) {
    if (node.is_named()) return std::string(TypeName(node.type())) + " " + node.full_name();
    return std::string(TypeName(node.type()));
  }

  static std::string TruncatedDump(const Json& j) {
    std::string s;
    WriteJsonValue(j, &s);
    if (s.size() > 80) s = s.substr(0, 77) + "...";
    return s;
  }

  // Whether `v` is a valid default for `node` (specification, "Complex Types" / field defaults).
  // For a union any branch is accepted, as Java does.
  static bool IsValidDefault(const Node& node, const Json& v, int depth) {
    if (depth > kMaxNestingDepth) return false;
    switch (node.type()) {
      case Type::kNull:
        return v.is_null();
      case Type::kBoolean:
        return v.is_boolean();
      case Type::kInt:
        if (v.is_number_unsigned()) {
          return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
        }
        return v.is_number_integer() && v.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
               v.get<int64_t>() <= std::numeric_limits<int32_t>::max();
      case Type::kLong:
        if (v.is_number_unsigned()) {
          return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        }
        return v.is_number_integer();
      case Type::kFloat:
      case Type::kDouble:
        if (v.is_string()) {
          const auto& s = v.get_ref<const std::string&>();
          return s == "NaN" || s == "Infinity" || s == "-Infinity";
        }
        return v.is_number();
      case Type::kBytes:
      case Type::kString:
      case Type::kFixed:
        return v.is_string();
      case Type::kEnum:
        return v.is_string() && node.SymbolIndex(v.get_ref<const std::string&>()).has_value();
      case Type::kArray:
        if (!v.is_array()) return false;
        for (const Json& e : v) {
          if (!IsValidDefault(node.items(), e, depth + 1)) return false;
        }
        return true;
      case Type::kMap:
        if (!v.is_object()) return false;
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (!IsValidDefault(node.values(), it.value(), depth + 1)) return false;
        }
        return true;
      case Type::kRecord:
        if (!v.is_object()) return false;
        for (const Field& f : node.fields()) {
          auto it = v.find(f.name);
          if (it != v.end()) {
            if (!IsValidDefault(*f.type, *it, depth + 1)) return false;
          } else if (!f.default_value) {
            return false;
          }
        }
        return true;
      case Type::kUnion:
        for (const Node* b : node.branches()) {
          if (IsValidDefault(*b, v, depth + 1)) return true;
        }
        return false;
    }
    return false;
  }

  SchemaParseOptions options_;
  std::unique_ptr<Schema> schema_;
  std::vector<std::string> path_;
};

Result<std::shared_ptr<const Schema>> Schema::Parse(std::string_view json_text,
                                                    const SchemaParseOptions& options) {
  // Attribute values (props, defaults) are arbitrary JSON that is later copied and printed
  // recursively; bound its depth so that hostile text cannot exhaust the stack.
  constexpr int kMaxJsonDepth = 4 * kMaxNestingDepth;
  int max_depth = 0;
  Json json = Json::parse(
      json_text.begin(), json_text.end(),
      [&max_depth](int depth, Json::parse_event_t, Json&) {
        max_depth = std::max(max_depth, depth);
        return true;
      },
      /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return Status::Invalid("invalid Avro schema: not valid JSON");
  }
  if (max_depth > kMaxJsonDepth) {
    return Status::Invalid("invalid Avro schema: JSON nested deeper than ", kMaxJsonDepth,
                           " levels");
  }
  SchemaParser parser(options);
  return parser.Run(json);
}

Result<std::shared_ptr<const Schema>> Schema::FromJson(const Json& json,
                                                       const SchemaParseOptions& options) {
  Json copy = json;
  SchemaParser parser(options);
  return parser.Run(copy);
}

namespace {

class SchemaPrinter {
 public:
  explicit SchemaPrinter(std::string* out) : out_(out) {}

  void Write(const Node& node) {
    switch (node.type()) {
      case Type::kRecord:
      case Type::kEnum:
      case Type::kFixed:
        WriteNamed(node);
        return;
      case Type::kUnion: {
        out_->push_back('[');
        bool first = true;
        for (const Node* b : node.branches()) {
          if (!first) out_->push_back(',');
          first = false;
          Write(*b);
        }
        out_->push_back(']');
        return;
      }
      case Type::kArray:
      case Type::kMap:
        out_->append(node.type() == Type::kArray ? R"({"type":"array","items":)"
                                                 : R"({"type":"map","values":)");
        Write(node.items());
        WriteProps(node.props());
        out_->push_back('}');
        return;
      default:
        if (node.props().empty()) {
          AppendJsonString(out_, TypeName(node.type()));
        } else {
          out_->append(R"({"type":)");
          AppendJsonString(out_, TypeName(node.type()));
          WriteProps(node.props());
          out_->push_back('}');
        }
        return;
    }
  }

 private:
  void WriteProps(const Json& props) {
    for (auto it = props.begin(); it != props.end(); ++it) {
      out_->push_back(',');
      AppendJsonString(out_, it.key());
      out_->push_back(':');
      WriteJsonValue(it.value(), out_);
    }
  }

  void WriteKey(std::string_view key) {
    out_->push_back(',');
    AppendJsonString(out_, key);
    out_->push_back(':');
  }

  void WriteNamed(const Node& node) {
    if (!written_.insert(&node).second) {
      // Already defined: refer to it by name, qualified only when outside its namespace or when
      // the bare name would read as a primitive type ("a.int").
      bool bare = node.name_space() == space_ && !PrimitiveType(node.name());
      AppendJsonString(out_, bare ? node.name() : node.full_name());
      return;
    }
    out_->append(R"({"type":)");
    AppendJsonString(out_, node.is_error() ? "error" : TypeName(node.type()));
    WriteKey("name");
    AppendJsonString(out_, node.name());
    if (node.name_space() != space_) {
      WriteKey("namespace");
      AppendJsonString(out_, node.name_space());
    }
    if (node.doc()) {
      WriteKey("doc");
      AppendJsonString(out_, *node.doc());
    }
    if (node.type() == Type::kRecord) {
      std::string saved = space_;
      space_ = node.name_space();
      out_->append(R"(,"fields":[)");
      bool first = true;
      for (const Field& f : node.fields()) {
        if (!first) out_->push_back(',');
        first = false;
        WriteField(f);
      }
      out_->push_back(']');
      WriteProps(node.props());
      WriteAliases(node.aliases());
      out_->push_back('}');
      space_ = saved;
      return;
    }
    if (node.type() == Type::kEnum) {
      out_->append(R"(,"symbols":[)");
      for (size_t i = 0; i < node.symbols().size(); ++i) {
        if (i > 0) out_->push_back(',');
        AppendJsonString(out_, node.symbols()[i]);
      }
      out_->push_back(']');
      if (node.enum_default()) {
        WriteKey("default");
        AppendJsonString(out_, *node.enum_default());
      }
    } else {
      WriteKey("size");
      out_->append(std::to_string(node.fixed_size()));
    }
    WriteProps(node.props());
    WriteAliases(node.aliases());
    out_->push_back('}');
  }

  void WriteField(const Field& f) {
    out_->append(R"({"name":)");
    AppendJsonString(out_, f.name);
    WriteKey("type");
    Write(*f.type);
    if (f.doc) {
      WriteKey("doc");
      AppendJsonString(out_, *f.doc);
    }
    if (f.default_value) {
      WriteKey("default");
      WriteJsonValue(*f.default_value, out_);
    }
    if (f.order && *f.order != "ascending") {
      WriteKey("order");
      AppendJsonString(out_, *f.order);
    }
    WriteAliases(f.aliases);
    WriteProps(f.props);
    out_->push_back('}');
  }

  void WriteAliases(const std::vector<std::string>& aliases) {
    if (aliases.empty()) return;
    out_->append(R"(,"aliases":[)");
    for (size_t i = 0; i < aliases.size(); ++i) {
      if (i > 0) out_->push_back(',');
      AppendJsonString(out_, aliases[i]);
    }
    out_->push_back(']');
  }

  std::string* out_;
  std::string space_;
  std::set<const Node*> written_;
};

}  // namespace

std::string Schema::ToJson() const {
  std::string out;
  SchemaPrinter printer(&out);
  printer.Write(*root_);
  return out;
}

}  // namespace fjord::avro
