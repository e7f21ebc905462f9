// Helpers of the CDC format tests: decode one message, check a change's kind, names and keys, look
// up a column's value and type. The tests live in this namespace to use them unqualified.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"

namespace fjord::cdc::testing {

// The origin of the test messages unless a test names another.
inline constexpr const char* kFileOrigin = "file in.jsonl line 3";

inline CdcMessage Msg(std::optional<std::string> value, std::string origin = kFileOrigin) {
  CdcMessage m;
  m.value = std::move(value);
  m.origin = std::move(origin);
  return m;
}

inline std::vector<CdcRecord> DecodeOk(const std::string& format_name, const std::string& json,
                                       const TypeMapping& mapping = {},
                                       const std::string& origin = kFileOrigin) {
  auto format = MakeCdcFormat(format_name, mapping);
  EXPECT_TRUE(format.ok());
  std::vector<CdcRecord> out;
  Status st = (*format)->Decode(Msg(json, origin), &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

// The error of decoding `json`, which must give no records.
inline Status DecodeError(const std::string& format_name, const std::string& json,
                          const std::string& origin = kFileOrigin) {
  auto format = MakeCdcFormat(format_name, {});
  std::vector<CdcRecord> out;
  Status st = (*format)->Decode(Msg(json, origin), &out);
  EXPECT_TRUE(out.empty());
  return st;
}

// Checks what a change says besides its columns: its kind, database, table and primary keys.
inline void ExpectChange(const CdcRecord& r, ChangeKind kind,
                         const std::optional<std::string>& database,
                         const std::optional<std::string>& table,
                         const std::vector<std::string>& primary_keys) {
  EXPECT_EQ(r.kind, kind);
  EXPECT_EQ(r.database, database);
  EXPECT_EQ(r.table, table);
  EXPECT_EQ(r.primary_keys, primary_keys);
}

// Checks that `r` has `count` columns, the first named `first` and the last `last`.
inline void ExpectColumns(const CdcRecord& r, size_t count, const std::string& first,
                          const std::string& last) {
  ASSERT_EQ(r.columns.size(), count);
  EXPECT_EQ(r.columns.front().name, first);
  EXPECT_EQ(r.columns.back().name, last);
}

// The kinds of `records`, in order.
inline std::vector<ChangeKind> Kinds(const std::vector<CdcRecord>& records) {
  std::vector<ChangeKind> kinds;
  for (const CdcRecord& r : records) kinds.push_back(r.kind);
  return kinds;
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
