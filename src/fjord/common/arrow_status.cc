#include "fjord/common/arrow_status.h"

namespace fjord {

Status FromArrow(const arrow::Status& status) {
  if (status.ok()) return Status::OK();
  StatusCode code = StatusCode::kInternal;
  switch (status.code()) {
    case arrow::StatusCode::Invalid:
    case arrow::StatusCode::TypeError:
    case arrow::StatusCode::KeyError:
    case arrow::StatusCode::IndexError:
      code = StatusCode::kInvalid;
      break;
    case arrow::StatusCode::IOError:
      code = StatusCode::kIOError;
      break;
    case arrow::StatusCode::NotImplemented:
      code = StatusCode::kNotImplemented;
      break;
    case arrow::StatusCode::AlreadyExists:
      code = StatusCode::kAlreadyExists;
      break;
    case arrow::StatusCode::Cancelled:
      code = StatusCode::kCancelled;
      break;
    case arrow::StatusCode::SerializationError:
      code = StatusCode::kCorruption;
      break;
    default:
      code = StatusCode::kInternal;
  }
  return Status(code, status.message());
}

}  // namespace fjord
