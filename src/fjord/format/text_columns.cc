#include "fjord/format/text_columns.h"

#include "fjord/format/arrow_values.h"
#include "fjord/format/text_values.h"

namespace fjord {

TextColumns::TextColumns(const std::vector<DataField>& fields, RowsBuilder* out,
                         std::string_view input)
    : fields_(fields),
      out_(out),
      input_begin_(reinterpret_cast<uintptr_t>(input.data())),
      input_end_(reinterpret_cast<uintptr_t>(input.data() + input.size())),
      per_second_(fields.size(), 0) {
  for (size_t c = 0; c < fields.size(); ++c) {
    Kind kind = Kind::kOther;
    switch (fields[c].type->root()) {
      case TypeRoot::kChar:
      case TypeRoot::kVarChar:
        kind = Kind::kString;
        break;
      case TypeRoot::kTinyInt:
        kind = Kind::kInt8;
        break;
      case TypeRoot::kSmallInt:
        kind = Kind::kInt16;
        break;
      case TypeRoot::kInt:
        kind = Kind::kInt32;
        break;
      case TypeRoot::kBigInt:
        kind = Kind::kInt64;
        break;
      case TypeRoot::kDouble:
        kind = Kind::kDouble;
        break;
      case TypeRoot::kDecimal:
        kind = Kind::kDecimal;
        break;
      case TypeRoot::kDate:
        kind = Kind::kDate;
        break;
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz:
        kind = Kind::kTimestamp;
        per_second_[c] = UnitsPerSecond(*out->arrow_type(c));
        break;
      default:
        break;
    }
    kinds_.push_back(kind);
  }
}

Status TextColumns::AppendNull(size_t column) {
  out_->SetNull(column);
  return Status::OK();
}

Status TextColumns::Append(size_t column, std::string_view text) {
  const DataType& type = *fields_[column].type;
  const Kind kind = kinds_[column];
  if (kind == Kind::kString) {
    FJORD_RETURN_NOT_OK(CheckLength(text, type));
    const auto at = reinterpret_cast<uintptr_t>(text.data());
    if (at >= input_begin_ && input_end_ >= 32 && at <= input_end_ - 32) {
      return out_->SetPaddedString(column, text);
    }
    return out_->SetString(column, text);
  }
  if (kind == Kind::kOther) {
    FJORD_ASSIGN_OR_RAISE(Value v, ValueFromText(text, type));
    return out_->AppendValue(column, v);
  }
  FJORD_RETURN_NOT_OK(CheckNoBlankEdges(text, type));
  switch (kind) {
    case Kind::kInt8:
    case Kind::kInt16:
    case Kind::kInt32:
    case Kind::kInt64: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, ParseIntegerText(text, type));
      out_->SetInteger(column, v);
      return Status::OK();
    }
    case Kind::kDouble: {
      FJORD_ASSIGN_OR_RAISE(double v, ParseDoubleText(text));
      out_->SetDouble(column, v);
      return Status::OK();
    }
    case Kind::kDecimal: {
      FJORD_ASSIGN_OR_RAISE(Decimal d, Decimal::FromString(text, type.precision(), type.scale()));
      out_->SetDecimal(column, d.unscaled);
      return Status::OK();
    }
    case Kind::kDate: {
      FJORD_ASSIGN_OR_RAISE(int32_t days, ParseDateText(text));
      out_->SetInteger(column, days);
      return Status::OK();
    }
    case Kind::kTimestamp: {
      FJORD_ASSIGN_OR_RAISE(
          Timestamp ts,
          ParseTimestampText(text, type.precision(), type.root() == TypeRoot::kTimestampLtz));
      out_->SetInteger(column, TimestampToUnits(ts, per_second_[column]));
      return Status::OK();
    }
    default:
      break;
  }
  return Status::Invalid("no text reading for ", type.ToString());
}

}  // namespace fjord
