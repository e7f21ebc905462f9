// Datum: one Avro value of any type, as a tree — the generic data model that the binary decoder
// produces and the encoder consumes (binary.h).
//
// A Datum's type() is the type of the value itself; it is never kUnion. A value that sits where the
// schema has a union also carries the index of its branch (branch(), 0 elsewhere): unions cannot
// directly contain unions, so one index per value is enough and a nullable field costs no extra
// node.
//
// Storage, by type:
//   null                               nothing
//   boolean, int, long, float, double  an inline scalar
//   enum                               the symbol's index, inline
//   bytes, string, fixed               bytes()
//   array                              items(): the elements
//   record                             items(): the field values, in the schema's field order
//   map                                items(): key, value, key, value... (keys are string Datums);
//                                      use map_size(), map_key(i), map_value(i)
//
// Members that do not belong to the current type keep whatever they held before (the decoder reuses
// them to avoid allocating); they are ignored by every accessor, by ==, and by the encoder.
// A Datum is a value type: copies are deep. Not thread-safe to mutate concurrently.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/format/avro/schema.h"

namespace fjord::avro {

class Datum {
 public:
  Datum() = default;  // null

  static Datum Null() { return Datum(); }
  static Datum Boolean(bool v) {
    Datum d(Type::kBoolean);
    d.scalar_.b = v;
    return d;
  }
  static Datum Int(int32_t v) {
    Datum d(Type::kInt);
    d.scalar_.i = v;
    return d;
  }
  static Datum Long(int64_t v) {
    Datum d(Type::kLong);
    d.scalar_.l = v;
    return d;
  }
  static Datum Float(float v) {
    Datum d(Type::kFloat);
    d.scalar_.f = v;
    return d;
  }
  static Datum Double(double v) {
    Datum d(Type::kDouble);
    d.scalar_.d = v;
    return d;
  }
  static Datum Bytes(std::string v) { return WithBytes(Type::kBytes, std::move(v)); }
  static Datum String(std::string v) { return WithBytes(Type::kString, std::move(v)); }
  static Datum Fixed(std::string v) { return WithBytes(Type::kFixed, std::move(v)); }
  static Datum Enum(int32_t index) {
    Datum d(Type::kEnum);
    d.scalar_.i = index;
    return d;
  }
  static Datum Array(std::vector<Datum> items) { return WithItems(Type::kArray, std::move(items)); }
  static Datum Record(std::vector<Datum> fields) {
    return WithItems(Type::kRecord, std::move(fields));
  }
  static Datum Map(std::vector<std::pair<std::string, Datum>> entries);
  // `value` as branch `branch` of a union.
  static Datum Union(int32_t branch, Datum value) {
    value.branch_ = branch;
    return value;
  }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  // The union branch this value was read from / is to be written as; 0 outside unions.
  int32_t branch() const { return branch_; }
  void set_branch(int32_t branch) { branch_ = branch; }

  // Preconditions: the matching type.
  bool boolean_value() const { return scalar_.b; }
  int32_t int_value() const { return scalar_.i; }
  int64_t long_value() const { return scalar_.l; }
  float float_value() const { return scalar_.f; }
  double double_value() const { return scalar_.d; }
  int32_t enum_index() const { return scalar_.i; }
  // bytes, string, fixed.
  const std::string& bytes() const { return bytes_; }
  std::string_view string_view() const { return bytes_; }

  // array, record, map (see above).
  const std::vector<Datum>& items() const { return items_; }
  std::vector<Datum>* mutable_items() { return &items_; }
  size_t size() const { return items_.size(); }
  const Datum& operator[](size_t i) const { return items_[i]; }
  Datum& operator[](size_t i) { return items_[i]; }

  size_t map_size() const { return items_.size() / 2; }
  const std::string& map_key(size_t i) const { return items_[2 * i].bytes_; }
  const Datum& map_value(size_t i) const { return items_[2 * i + 1]; }
  // Precondition: type() == kMap.
  void AddMapEntry(std::string key, Datum value);

  // Change the type in place, keeping allocated storage for reuse. The branch is reset to 0.
  void SetNull() { Reset(Type::kNull); }
  void SetBoolean(bool v) {
    Reset(Type::kBoolean);
    scalar_.b = v;
  }
  void SetInt(int32_t v) {
    Reset(Type::kInt);
    scalar_.i = v;
  }
  void SetLong(int64_t v) {
    Reset(Type::kLong);
    scalar_.l = v;
  }
  void SetFloat(float v) {
    Reset(Type::kFloat);
    scalar_.f = v;
  }
  void SetDouble(double v) {
    Reset(Type::kDouble);
    scalar_.d = v;
  }
  void SetEnum(int32_t index) {
    Reset(Type::kEnum);
    scalar_.i = index;
  }
  // For bytes, string, fixed: sets the type and returns the buffer to fill.
  std::string* SetBytesType(Type type) {
    Reset(type);
    return &bytes_;
  }
  // For array, record, map: sets the type and returns the (emptied) children to fill.
  std::vector<Datum>* SetItemsType(Type type) {
    Reset(type);
    items_.clear();
    return &items_;
  }

  // A readable rendering for tests and error messages, e.g. {1, "a", [null, 2.5], {"k": b"\x01"}}.
  // Not a stable format.
  std::string ToString() const;

 private:
  friend class BinaryDecoder;
  explicit Datum(Type type) : type_(type) {}
  void Reset(Type type) {
    type_ = type;
    branch_ = 0;
  }
  static Datum WithBytes(Type type, std::string v) {
    Datum d(type);
    d.bytes_ = std::move(v);
    return d;
  }
  static Datum WithItems(Type type, std::vector<Datum> items) {
    Datum d(type);
    d.items_ = std::move(items);
    return d;
  }
  void AppendTo(std::string* out) const;

  Type type_ = Type::kNull;
  int32_t branch_ = 0;
  union {
    bool b;
    int32_t i;
    int64_t l;
    float f;
    double d;
  } scalar_{.l = 0};
  std::string bytes_;
  std::vector<Datum> items_;
};

// Equal types, branches and values. Floats and doubles compare by bit pattern, so NaN == NaN and
// 0.0 != -0.0: "the same bytes would be written".
bool operator==(const Datum& a, const Datum& b);

// Prints ToString() (GoogleTest uses this in failure messages).
void PrintTo(const Datum& datum, std::ostream* os);

}  // namespace fjord::avro
