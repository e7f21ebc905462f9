#include "fjord/cdc/pgoutput.h"

#include "fjord/testing/test_util.h"

namespace fjord::cdc::pgoutput {
namespace {

// Builds messages byte by byte, as the manual's "Logical Replication Message Formats" lays
// them out (integers big-endian, strings NUL-terminated).
class Bytes {
 public:
  explicit Bytes(char type) { s_.push_back(type); }
  Bytes& U8(uint8_t v) { return Int(v, 1); }
  Bytes& I16(int16_t v) { return Int(static_cast<uint16_t>(v), 2); }
  Bytes& I32(int32_t v) { return Int(static_cast<uint32_t>(v), 4); }
  Bytes& I64(int64_t v) { return Int(static_cast<uint64_t>(v), 8); }
  Bytes& Str(const std::string& v) {
    s_ += v;
    s_.push_back('\0');
    return *this;
  }
  Bytes& Text(const std::string& v) {
    U8('t');
    I32(static_cast<int32_t>(v.size()));
    s_ += v;
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  Bytes& Int(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) s_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  std::string s_;
};

TEST(PgoutputTest, Lsn) {
  EXPECT_EQ(FormatLsn(0), "0/0");
  EXPECT_EQ(FormatLsn((uint64_t{0x16} << 32) | 0xB374D848), "16/B374D848");
  ASSERT_OK_AND_ASSIGN(uint64_t lsn, ParseLsn("16/b374d848"));
  EXPECT_EQ(lsn, (uint64_t{0x16} << 32) | 0xB374D848);
  EXPECT_THAT(ParseLsn("16-B3"), IsError(StatusCode::kInvalid, "not a PostgreSQL LSN"));
  EXPECT_THAT(ParseLsn("/1"), IsError(StatusCode::kInvalid, "not a PostgreSQL LSN"));
}

TEST(PgoutputTest, BeginAndCommit) {
  ASSERT_OK_AND_ASSIGN(Message b, DecodeMessage(Bytes('B').I64(0x1000020).I64(777).I32(42).str()));
  EXPECT_EQ(b.type, 'B');
  EXPECT_EQ(b.final_lsn, 0x1000020u);
  EXPECT_EQ(b.timestamp, 777);
  EXPECT_EQ(b.xid, 42u);
  ASSERT_OK_AND_ASSIGN(Message c,
                       DecodeMessage(Bytes('C').U8(0).I64(0x1000020).I64(0x1000050).I64(9).str()));
  EXPECT_EQ(c.commit_lsn, 0x1000020u);
  EXPECT_EQ(c.end_lsn, 0x1000050u);
}

TEST(PgoutputTest, Relation) {
  std::string bytes = Bytes('R')
                          .I32(16384)
                          .Str("public")
                          .Str("orders")
                          .U8('d')
                          .I16(2)
                          .U8(1)
                          .Str("id")
                          .I32(23)
                          .I32(-1)
                          .U8(0)
                          .Str("name")
                          .I32(1043)
                          .I32(24)
                          .str();
  ASSERT_OK_AND_ASSIGN(Message m, DecodeMessage(bytes));
  EXPECT_EQ(m.relation_id, 16384u);
  EXPECT_EQ(m.nspname, "public");
  EXPECT_EQ(m.name, "orders");
  EXPECT_EQ(m.replica_identity, 'd');
  ASSERT_EQ(m.columns.size(), 2u);
  EXPECT_TRUE(m.columns[0].key);
  EXPECT_EQ(m.columns[0].name, "id");
  EXPECT_EQ(m.columns[0].type_oid, 23u);
  EXPECT_EQ(m.columns[0].type_modifier, -1);
  EXPECT_FALSE(m.columns[1].key);
  EXPECT_EQ(m.columns[1].type_modifier, 24);  // varchar(20): the length plus 4
  // Cut short inside the second column's name.
  EXPECT_THAT(DecodeMessage(bytes.substr(0, bytes.size() - 11)),
              IsError(StatusCode::kInvalid, "Relation message"));
}

TEST(PgoutputTest, InsertWithNullAndUnchangedValues) {
  ASSERT_OK_AND_ASSIGN(
      Message m, DecodeMessage(Bytes('I').I32(7).U8('N').I16(3).Text("1").U8('n').U8('u').str()));
  EXPECT_EQ(m.type, 'I');
  EXPECT_EQ(m.relation_id, 7u);
  ASSERT_EQ(m.new_tuple.size(), 3u);
  EXPECT_EQ(m.new_tuple[0].kind, 't');
  EXPECT_EQ(m.new_tuple[0].text, "1");
  EXPECT_EQ(m.new_tuple[1].kind, 'n');
  EXPECT_EQ(m.new_tuple[2].kind, 'u');
  EXPECT_EQ(m.old_kind, 0);
}

TEST(PgoutputTest, UpdateWithAndWithoutOldRow) {
  ASSERT_OK_AND_ASSIGN(Message plain,
                       DecodeMessage(Bytes('U').I32(7).U8('N').I16(1).Text("x").str()));
  EXPECT_EQ(plain.old_kind, 0);
  EXPECT_TRUE(plain.old_tuple.empty());
  ASSERT_EQ(plain.new_tuple.size(), 1u);

  ASSERT_OK_AND_ASSIGN(Message key, DecodeMessage(Bytes('U')
                                                      .I32(7)
                                                      .U8('K')
                                                      .I16(2)
                                                      .Text("1")
                                                      .U8('n')
                                                      .U8('N')
                                                      .I16(2)
                                                      .Text("2")
                                                      .Text("b")
                                                      .str()));
  EXPECT_EQ(key.old_kind, 'K');
  ASSERT_EQ(key.old_tuple.size(), 2u);
  EXPECT_EQ(key.old_tuple[0].text, "1");
  EXPECT_EQ(key.new_tuple[1].text, "b");

  ASSERT_OK_AND_ASSIGN(
      Message full,
      DecodeMessage(Bytes('U').I32(7).U8('O').I16(1).Text("old").U8('N').I16(1).Text("new").str()));
  EXPECT_EQ(full.old_kind, 'O');
  EXPECT_EQ(full.old_tuple[0].text, "old");
  EXPECT_EQ(full.new_tuple[0].text, "new");

  EXPECT_THAT(DecodeMessage(Bytes('U').I32(7).U8('X').I16(0).str()),
              IsError(StatusCode::kInvalid, "expected 'N'"));
}

TEST(PgoutputTest, DeleteTruncateTypeOrigin) {
  ASSERT_OK_AND_ASSIGN(Message d, DecodeMessage(Bytes('D').I32(9).U8('K').I16(1).Text("5").str()));
  EXPECT_EQ(d.old_kind, 'K');
  EXPECT_EQ(d.old_tuple[0].text, "5");
  EXPECT_THAT(DecodeMessage(Bytes('D').I32(9).U8('N').I16(0).str()),
              IsError(StatusCode::kInvalid, "expected 'K' or 'O'"));

  ASSERT_OK_AND_ASSIGN(Message t, DecodeMessage(Bytes('T').I32(2).U8(1).I32(9).I32(10).str()));
  EXPECT_EQ(t.relation_ids, (std::vector<uint32_t>{9, 10}));
  EXPECT_EQ(t.truncate_options, 1);

  ASSERT_OK_AND_ASSIGN(Message y,
                       DecodeMessage(Bytes('Y').I32(50000).Str("public").Str("mood").str()));
  EXPECT_EQ(y.type_oid, 50000u);
  EXPECT_EQ(y.name, "mood");

  ASSERT_OK_AND_ASSIGN(Message o, DecodeMessage(Bytes('O').I64(5).Str("node_a").str()));
  EXPECT_EQ(o.name, "node_a");
}

TEST(PgoutputTest, BadMessages) {
  EXPECT_THAT(DecodeMessage(""), IsError(StatusCode::kInvalid, "empty"));
  EXPECT_THAT(DecodeMessage("Z"), IsError(StatusCode::kInvalid, "unknown pgoutput message type"));
  EXPECT_THAT(DecodeMessage(Bytes('B').I64(1).str()),
              IsError(StatusCode::kInvalid, "Begin message truncated"));
  EXPECT_THAT(DecodeMessage(Bytes('I').I32(7).U8('N').I16(1).U8('q').str()),
              IsError(StatusCode::kInvalid, "unknown column kind 'q'"));
  EXPECT_THAT(DecodeMessage(Bytes('I').I32(7).U8('N').I16(1).U8('t').I32(10).str()),
              IsError(StatusCode::kInvalid, "reading a value"));
  EXPECT_THAT(DecodeMessage(Bytes('B').I64(1).I64(2).I32(3).U8(0).str()),
              IsError(StatusCode::kInvalid, "left over"));
}

TEST(PgoutputTest, StreamFraming) {
  std::string w = Bytes('w').I64(100).I64(200).I64(300).str() + "Bpayload";
  ASSERT_OK_AND_ASSIGN(StreamMessage x, DecodeStreamMessage(w));
  EXPECT_EQ(x.type, 'w');
  EXPECT_EQ(x.wal_start, 100u);
  EXPECT_EQ(x.wal_end, 200u);
  EXPECT_EQ(x.payload, "Bpayload");
  ASSERT_OK_AND_ASSIGN(StreamMessage k,
                       DecodeStreamMessage(Bytes('k').I64(0x2000).I64(1).U8(1).str()));
  EXPECT_EQ(k.type, 'k');
  EXPECT_EQ(k.wal_end, 0x2000u);
  EXPECT_TRUE(k.reply_requested);
  EXPECT_THAT(DecodeStreamMessage(Bytes('k').I64(1).str()),
              IsError(StatusCode::kInvalid, "keepalive message truncated"));
  EXPECT_THAT(DecodeStreamMessage("x"), IsError(StatusCode::kInvalid, "unknown replication"));
}

TEST(PgoutputTest, StandbyStatusUpdate) {
  // 'r', then write, flush and apply positions, the clock and the reply flag: 34 bytes.
  std::string r = EncodeStandbyStatus(0x0102030405060708, 9, true);
  EXPECT_EQ(r, Bytes('r')
                   .I64(0x0102030405060708)
                   .I64(0x0102030405060708)
                   .I64(0x0102030405060708)
                   .I64(9)
                   .U8(1)
                   .str());
  EXPECT_EQ(r.size(), 34u);
}

}  // namespace
}  // namespace fjord::cdc::pgoutput
