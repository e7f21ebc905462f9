// Avro schemas (Apache Avro 1.11 specification, "Schema Declaration"): parsing the JSON form into a
// tree of nodes, printing it back the way Java's Schema.toString() does, and field lookup.
//
// A Schema owns every node of its tree. Nodes refer to each other by plain pointers, so a named
// type used twice (or a recursive record) is one node reached from several places; the tree is
// really a graph and must be walked with that in mind. A Schema is immutable after parsing and safe
// to share between threads; it is handed around as std::shared_ptr<const Schema>.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/common/json.h"
#include "fjord/result.h"

namespace fjord::avro {

enum class Type : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// "null", "boolean", ..., "record", "enum", "array", "map", "union", "fixed".
std::string_view TypeName(Type type);

// How deeply schemas and the values they describe may nest (records in arrays in unions...). Real
// schemas stay far below; the bound keeps hostile input from exhausting the stack.
inline constexpr int kMaxNestingDepth = 256;

class Node;
class Schema;

struct Field {
  std::string name;
  const Node* type = nullptr;         // owned by the Schema
  std::optional<Json> default_value;  // absent when the field has no "default"
  std::optional<std::string> doc;
  std::vector<std::string> aliases;
  // "ascending" (the default when absent), "descending" or "ignore".
  std::optional<std::string> order;
  // Attributes the specification does not reserve, in source order.
  Json props = Json::object();
};

class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Type type() const { return type_; }
  bool is_named() const {
    return type_ == Type::kRecord || type_ == Type::kEnum || type_ == Type::kFixed;
  }
  bool is_primitive() const { return type_ <= Type::kString; }

  // Named types (record, enum, fixed) only; empty otherwise. The namespace is empty when none.
  const std::string& name() const { return name_; }
  const std::string& name_space() const { return namespace_; }
  const std::string& full_name() const { return full_name_; }
  const std::optional<std::string>& doc() const { return doc_; }
  const std::vector<std::string>& aliases() const { return aliases_; }

  // Record only.
  const std::vector<Field>& fields() const { return fields_; }
  // Declared as "error" (a record in Avro RPC protocols); printed back that way.
  bool is_error() const { return is_error_; }
  // The position of the field called `name`, or nullopt.
  std::optional<size_t> FieldIndex(std::string_view name) const;

  // Enum only.
  const std::vector<std::string>& symbols() const { return symbols_; }
  std::optional<size_t> SymbolIndex(std::string_view symbol) const;
  const std::optional<std::string>& enum_default() const { return enum_default_; }

  // Array: the element type. Map: the value type (keys are strings).
  const Node& items() const { return *children_[0]; }
  const Node& values() const { return *children_[0]; }
  // Union: the branches, in declaration order.
  const std::vector<const Node*>& branches() const { return children_; }
  // Fixed only: the size in bytes.
  int32_t fixed_size() const { return fixed_size_; }

  // The "logicalType" attribute, e.g. "timestamp-millis", "date", "decimal"; empty when absent.
  // Kept as written: an unknown or malformed logical type is not an error (Java ignores those too).
  const std::string& logical_type() const { return logical_type_; }
  // "precision" / "scale" of a decimal; 0 when absent or not an integer.
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  // Every attribute the specification does not reserve ("logicalType" included), in source order.
  const Json& props() const { return props_; }

  // The fewest bytes any value of this type encodes to (0 for null, empty records...), used to
  // reject element counts that cannot fit in the bytes that remain.
  int64_t min_encoded_size() const { return min_encoded_size_; }

 private:
  friend class Schema;
  friend class SchemaParser;
  explicit Node(Type type) : type_(type) {}

  Type type_;
  bool is_error_ = false;
  int32_t fixed_size_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  int64_t min_encoded_size_ = 0;
  std::string name_;
  std::string namespace_;
  std::string full_name_;
  std::optional<std::string> doc_;
  std::vector<std::string> aliases_;
  std::vector<Field> fields_;
  std::map<std::string, size_t, std::less<>> field_index_;
  std::vector<std::string> symbols_;
  std::optional<std::string> enum_default_;
  std::vector<const Node*> children_;
  std::string logical_type_;
  Json props_ = Json::object();
};

struct SchemaParseOptions {
  // Names and enum symbols must match [A-Za-z_][A-Za-z0-9_]* (namespaces: such names joined by
  // dots). Java's container-file reader turns this off, and so does ours.
  bool validate_names = true;
  // Field defaults must be values of the field's type (for a union: of one of its branches).
  bool validate_defaults = true;
};

class Schema {
 public:
  // Parses the JSON text of a schema. Errors are Invalid and say what and where (the path of
  // record fields leading to the problem).
  static Result<std::shared_ptr<const Schema>> Parse(std::string_view json_text,
                                                     const SchemaParseOptions& options = {});
  static Result<std::shared_ptr<const Schema>> FromJson(const Json& json,
                                                        const SchemaParseOptions& options = {});

  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  const Node& root() const { return *root_; }
  // The named type (record, enum, fixed) with this full name, or nullptr.
  const Node* FindNamed(std::string_view full_name) const;

  // One line without spaces, laid out as Java's Schema.toString(): a named type is written out at
  // its first use and by name afterwards, "namespace" only where it differs from the enclosing one,
  // primitives without attributes as bare strings.
  std::string ToJson() const;

 private:
  friend class SchemaParser;
  Schema() = default;

  std::vector<std::unique_ptr<Node>> nodes_;
  std::map<std::string, const Node*, std::less<>> named_;
  const Node* root_ = nullptr;
};

}  // namespace fjord::avro
