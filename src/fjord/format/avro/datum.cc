#include "fjord/format/avro/datum.h"

#include <bit>
#include <cstdio>
#include <ostream>

#include "fjord/common/json.h"

namespace fjord::avro {

Datum Datum::Map(std::vector<std::pair<std::string, Datum>> entries) {
  Datum d(Type::kMap);
  d.items_.reserve(entries.size() * 2);
  for (auto& [key, value] : entries) {
    d.items_.push_back(Datum::String(std::move(key)));
    d.items_.push_back(std::move(value));
  }
  return d;
}

void Datum::AddMapEntry(std::string key, Datum value) {
  items_.push_back(Datum::String(std::move(key)));
  items_.push_back(std::move(value));
}

bool operator==(const Datum& a, const Datum& b) {
  if (a.type() != b.type() || a.branch() != b.branch()) return false;
  switch (a.type()) {
    case Type::kNull:
      return true;
    case Type::kBoolean:
      return a.boolean_value() == b.boolean_value();
    case Type::kInt:
    case Type::kEnum:
      return a.int_value() == b.int_value();
    case Type::kLong:
      return a.long_value() == b.long_value();
    case Type::kFloat:
      return std::bit_cast<uint32_t>(a.float_value()) == std::bit_cast<uint32_t>(b.float_value());
    case Type::kDouble:
      return std::bit_cast<uint64_t>(a.double_value()) == std::bit_cast<uint64_t>(b.double_value());
    case Type::kBytes:
    case Type::kString:
    case Type::kFixed:
      return a.bytes() == b.bytes();
    case Type::kArray:
    case Type::kRecord:
    case Type::kMap:
    case Type::kUnion:
      return a.items() == b.items();
  }
  return false;
}

namespace {

void AppendEscapedBytes(std::string_view bytes, std::string* out) {
  out->append("b\"");
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out->push_back(ch);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out->append(buf);
    }
  }
  out->push_back('"');
}

}  // namespace

void Datum::AppendTo(std::string* out) const {
  switch (type_) {
    case Type::kNull:
      out->append("null");
      return;
    case Type::kBoolean:
      out->append(scalar_.b ? "true" : "false");
      return;
    case Type::kInt:
      out->append(std::to_string(scalar_.i));
      return;
    case Type::kLong:
      out->append(std::to_string(scalar_.l)).append("L");
      return;
    case Type::kFloat:
    case Type::kDouble: {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", type_ == Type::kFloat ? scalar_.f : scalar_.d);
      out->append(buf);
      if (type_ == Type::kFloat) out->push_back('f');
      return;
    }
    case Type::kEnum:
      out->append("enum#").append(std::to_string(scalar_.i));
      return;
    case Type::kString:
      AppendJsonString(out, bytes_);
      return;
    case Type::kBytes:
      AppendEscapedBytes(bytes_, out);
      return;
    case Type::kFixed:
      out->append("fixed:");
      AppendEscapedBytes(bytes_, out);
      return;
    case Type::kArray:
    case Type::kRecord: {
      out->push_back(type_ == Type::kArray ? '[' : '{');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out->append(", ");
        items_[i].AppendTo(out);
      }
      out->push_back(type_ == Type::kArray ? ']' : '}');
      return;
    }
    case Type::kMap:
    case Type::kUnion: {
      out->append("map{");
      for (size_t i = 0; i + 1 < items_.size(); i += 2) {
        if (i > 0) out->append(", ");
        AppendJsonString(out, items_[i].bytes_);
        out->append(": ");
        items_[i + 1].AppendTo(out);
      }
      out->push_back('}');
      return;
    }
  }
}

void PrintTo(const Datum& datum, std::ostream* os) { *os << datum.ToString(); }

std::string Datum::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

}  // namespace fjord::avro
