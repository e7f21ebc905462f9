#include "fjord/cdc/pgoutput.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "fjord/common/strings.h"

namespace fjord::cdc::pgoutput {

namespace {

// Reads the big-endian fields of one message; the first error sticks and names the field.
class Reader {
 public:
  Reader(std::string_view bytes, const char* what) : bytes_(bytes), what_(what) {}

  bool Need(size_t n, const char* field) {
    if (!status_.ok()) return false;
    if (bytes_.size() - pos_ < n) {
      status_ = Status::Invalid("pgoutput ", what_, " message truncated at byte ", pos_,
                                " reading ", field, " (", bytes_.size(), " bytes)");
      return false;
    }
    return true;
  }
  uint64_t Int(size_t n, const char* field) {
    if (!Need(n, field)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
    pos_ += n;
    return v;
  }
  uint8_t U8(const char* f) { return static_cast<uint8_t>(Int(1, f)); }
  int16_t I16(const char* f) { return static_cast<int16_t>(Int(2, f)); }
  uint32_t U32(const char* f) { return static_cast<uint32_t>(Int(4, f)); }
  int32_t I32(const char* f) { return static_cast<int32_t>(Int(4, f)); }
  uint64_t U64(const char* f) { return Int(8, f); }
  int64_t I64(const char* f) { return static_cast<int64_t>(Int(8, f)); }
  std::string CString(const char* field) {
    if (!status_.ok()) return {};
    size_t end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos) {
      status_ = Status::Invalid("pgoutput ", what_, " message: ", field, " at byte ", pos_,
                                " is not NUL-terminated");
      return {};
    }
    std::string out(bytes_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  std::string_view Bytes(size_t n, const char* field) {
    if (!Need(n, field)) return {};
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view Rest() {
    std::string_view out = bytes_.substr(pos_);
    pos_ = bytes_.size();
    return out;
  }
  char Peek() const { return pos_ < bytes_.size() ? bytes_[pos_] : 0; }
  void Fail(Status st) {
    if (status_.ok()) status_ = std::move(st);
  }
  size_t pos() const { return pos_; }
  const Status& status() const { return status_; }
  const char* what() const { return what_; }

 private:
  std::string_view bytes_;
  const char* what_;
  size_t pos_ = 0;
  Status status_;
};

void ReadTuple(Reader* r, Tuple* out) {
  int16_t n = r->I16("the column count");
  if (n < 0) r->Fail(Status::Invalid("pgoutput ", r->what(), " message: negative column count"));
  for (int16_t i = 0; i < n && r->status().ok(); ++i) {
    TupleValue v;
    v.kind = static_cast<char>(r->U8("a column kind"));
    if (v.kind == 't' || v.kind == 'b') {
      int32_t len = r->I32("a value length");
      if (len < 0) {
        r->Fail(Status::Invalid("pgoutput ", r->what(), " message: negative value length"));
        return;
      }
      v.text = std::string(r->Bytes(static_cast<size_t>(len), "a value"));
    } else if (v.kind != 'n' && v.kind != 'u') {
      r->Fail(Status::Invalid("pgoutput ", r->what(), " message: unknown column kind '", v.kind,
                              "' of column ", i));
      return;
    }
    out->push_back(std::move(v));
  }
}

const char* TypeName(char type) {
  switch (type) {
    case 'B':
      return "Begin";
    case 'C':
      return "Commit";
    case 'O':
      return "Origin";
    case 'R':
      return "Relation";
    case 'Y':
      return "Type";
    case 'I':
      return "Insert";
    case 'U':
      return "Update";
    case 'D':
      return "Delete";
    case 'T':
      return "Truncate";
    case 'M':
      return "Message";
    default:
      return nullptr;
  }
}

}  // namespace

std::string FormatLsn(uint64_t lsn) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%" PRIX32 "/%" PRIX32, static_cast<uint32_t>(lsn >> 32),
                static_cast<uint32_t>(lsn));
  return buf;
}

Result<uint64_t> ParseLsn(std::string_view text) {
  size_t slash = text.find('/');
  auto hex = [](std::string_view s, uint64_t* out) {
    if (s.empty() || s.size() > 8) return false;
    uint64_t v = 0;
    for (char c : s) {
      const int d = HexDigit(c);
      if (d < 0) return false;
      v = v * 16 + static_cast<uint64_t>(d);
    }
    *out = v;
    return true;
  };
  uint64_t hi = 0, lo = 0;
  if (slash == std::string_view::npos || !hex(text.substr(0, slash), &hi) ||
      !hex(text.substr(slash + 1), &lo)) {
    return Status::Invalid("not a PostgreSQL LSN (like 16/B374D848): '", std::string(text), "'");
  }
  return (hi << 32) | lo;
}

Result<Message> DecodeMessage(std::string_view bytes) {
  if (bytes.empty()) return Status::Invalid("empty pgoutput message");
  Message m;
  m.type = bytes[0];
  const char* what = TypeName(m.type);
  if (what == nullptr) {
    return Status::Invalid("unknown pgoutput message type '", std::string(1, m.type), "' (byte ",
                           static_cast<int>(static_cast<uint8_t>(m.type)), ")");
  }
  Reader r(bytes.substr(1), what);
  switch (m.type) {
    case 'B':
      m.final_lsn = r.U64("the final LSN");
      m.timestamp = r.I64("the commit time");
      m.xid = r.U32("the transaction id");
      break;
    case 'C':
      r.U8("the flags");
      m.commit_lsn = r.U64("the commit LSN");
      m.end_lsn = r.U64("the end LSN");
      m.timestamp = r.I64("the commit time");
      break;
    case 'O':
      m.commit_lsn = r.U64("the origin's commit LSN");
      m.name = r.CString("the origin name");
      break;
    case 'R': {
      m.relation_id = r.U32("the relation id");
      m.nspname = r.CString("the schema");
      m.name = r.CString("the table name");
      m.replica_identity = static_cast<char>(r.U8("the replica identity"));
      int16_t n = r.I16("the column count");
      for (int16_t i = 0; i < n && r.status().ok(); ++i) {
        RelationColumn c;
        c.key = (r.U8("the column flags") & 1) != 0;
        c.name = r.CString("a column name");
        c.type_oid = r.U32("a column type");
        c.type_modifier = r.I32("a column type modifier");
        m.columns.push_back(std::move(c));
      }
      break;
    }
    case 'Y':
      m.type_oid = r.U32("the type id");
      m.nspname = r.CString("the type's schema");
      m.name = r.CString("the type name");
      break;
    case 'I': {
      m.relation_id = r.U32("the relation id");
      char n = static_cast<char>(r.U8("the 'N' marker"));
      if (r.status().ok() && n != 'N') {
        return Status::Invalid("pgoutput Insert message: expected 'N' before the new row, got '",
                               std::string(1, n), "'");
      }
      ReadTuple(&r, &m.new_tuple);
      break;
    }
    case 'U':
    case 'D': {
      m.relation_id = r.U32("the relation id");
      char k = static_cast<char>(r.U8("the tuple marker"));
      if (k == 'K' || k == 'O') {
        m.old_kind = k;
        ReadTuple(&r, &m.old_tuple);
        if (m.type == 'U') k = static_cast<char>(r.U8("the 'N' marker"));
      } else if (m.type == 'D' && r.status().ok()) {
        return Status::Invalid("pgoutput Delete message: expected 'K' or 'O', got '",
                               std::string(1, k), "'");
      }
      if (m.type == 'U') {
        if (r.status().ok() && k != 'N') {
          return Status::Invalid("pgoutput Update message: expected 'N' before the new row, got '",
                                 std::string(1, k), "'");
        }
        ReadTuple(&r, &m.new_tuple);
      }
      break;
    }
    case 'T': {
      uint32_t n = r.U32("the relation count");
      m.truncate_options = r.U8("the options");
      for (uint32_t i = 0; i < n && r.status().ok(); ++i) {
        m.relation_ids.push_back(r.U32("a relation id"));
      }
      break;
    }
    case 'M': {
      r.U8("the flags");
      m.commit_lsn = r.U64("the message LSN");
      m.name = r.CString("the prefix");
      uint32_t len = r.U32("the content length");
      m.content = std::string(r.Bytes(len, "the content"));
      break;
    }
  }
  FJORD_RETURN_NOT_OK(r.status());
  if (r.pos() != bytes.size() - 1) {
    return Status::Invalid("pgoutput ", what, " message: ", bytes.size() - 1 - r.pos(),
                           " bytes left over after byte ", r.pos() + 1);
  }
  return m;
}

Result<StreamMessage> DecodeStreamMessage(std::string_view bytes) {
  if (bytes.empty()) return Status::Invalid("empty replication stream message");
  StreamMessage m;
  m.type = bytes[0];
  if (m.type == 'w') {
    Reader r(bytes.substr(1), "XLogData");
    m.wal_start = r.U64("the WAL start");
    m.wal_end = r.U64("the WAL end");
    m.send_time = r.I64("the send time");
    m.payload = r.Rest();
    FJORD_RETURN_NOT_OK(r.status());
  } else if (m.type == 'k') {
    Reader r(bytes.substr(1), "keepalive");
    m.wal_end = r.U64("the WAL end");
    m.send_time = r.I64("the send time");
    m.reply_requested = r.U8("the reply flag") != 0;
    FJORD_RETURN_NOT_OK(r.status());
  } else {
    return Status::Invalid("unknown replication stream message type '", std::string(1, m.type),
                           "'");
  }
  return m;
}

std::string EncodeStandbyStatus(uint64_t lsn, int64_t now, bool reply_requested) {
  std::string out(1, 'r');
  auto put = [&out](uint64_t v) {
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(lsn);  // written
  put(lsn);  // flushed: what moves the slot's confirmed_flush_lsn
  put(lsn);  // applied
  put(static_cast<uint64_t>(now));
  out.push_back(reply_requested ? 1 : 0);
  return out;
}

int64_t PostgresNow() {
  // 2000-01-01 is 946684800 seconds after the Unix epoch.
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  return us - int64_t{946684800} * 1000000;
}

}  // namespace fjord::cdc::pgoutput
