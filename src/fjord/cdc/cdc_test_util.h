// Helpers of the CDC format tests: decode one message, look up a column's value and type.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"

namespace fjord::cdc::testing {

inline CdcMessage Msg(std::optional<std::string> value,
                      std::string origin = "file in.jsonl line 3") {
  CdcMessage m;
  m.value = std::move(value);
  m.origin = std::move(origin);
  return m;
}

inline std::vector<CdcRecord> DecodeOk(const std::string& format_name, const std::string& json,
                                       const TypeMapping& mapping = {}) {
  auto format = MakeCdcFormat(format_name, mapping);
  EXPECT_TRUE(format.ok());
  std::vector<CdcRecord> out;
  Status st = (*format)->Decode(Msg(json), &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

// The error of decoding `json`, which must give no records.
inline Status DecodeError(const std::string& format_name, const std::string& json) {
  auto format = MakeCdcFormat(format_name, {});
  std::vector<CdcRecord> out;
  Status st = (*format)->Decode(Msg(json), &out);
  EXPECT_TRUE(out.empty());
  return st;
}

inline std::string Value(const CdcRecord& r, const std::string& name) {
  const CdcColumn* c = r.Find(name);
  if (c == nullptr) return "<absent>";
  return c->value ? *c->value : "<NULL>";
}

inline std::string Type(const CdcRecord& r, const std::string& name) {
  const CdcColumn* c = r.Find(name);
  return c == nullptr ? "<absent>" : c->type->ToString();
}

}  // namespace fjord::cdc::testing
