// Status and Result: how perfhive reports an error without exceptions. An error carries a code
// that callers branch on (a gRPC service maps it to its own status; the CLI to an exit code) and
// a message meant for a person ("object 3 at byte 18432: ..."); errors about a position in a
// line of input (a counter path) also carry the column, so a display can point at it. Success
// carries nothing and costs no allocation. The codes follow absl::StatusCode's meanings.

#ifndef PERFHIVE_BASE_STATUS_H_
#define PERFHIVE_BASE_STATUS_H_

#include <cassert>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace perfhive {

enum class StatusCode {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,  // the caller's input is wrong: a bad path, a malformed snapshot
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,  // a limit: buffer ceiling, message size, full disk or spool
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,  // the peer cannot be reached now; trying again later may work
  kDataLoss = 15,     // stored or received bytes are corrupt (a digest mismatch)
  kUnauthenticated = 16,
};

// "INVALID_ARGUMENT", as gRPC and absl spell the codes.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
    assert(code != StatusCode::kOk);
  }

  // An error whose kind nothing needs to tell apart.
  static Status Error(std::string message) {
    return Status(StatusCode::kUnknown, std::move(message));
  }
  static Status InvalidArgument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(StatusCode::kNotFound, std::move(message));
  }
  static Status Unavailable(std::string message) {
    return Status(StatusCode::kUnavailable, std::move(message));
  }
  static Status DeadlineExceeded(std::string message) {
    return Status(StatusCode::kDeadlineExceeded, std::move(message));
  }
  static Status PermissionDenied(std::string message) {
    return Status(StatusCode::kPermissionDenied, std::move(message));
  }
  static Status ResourceExhausted(std::string message) {
    return Status(StatusCode::kResourceExhausted, std::move(message));
  }
  static Status DataLoss(std::string message) {
    return Status(StatusCode::kDataLoss, std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(StatusCode::kInternal, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // The 1-based column, in characters, of the input line the error is about, if it is about one.
  std::optional<size_t> column() const { return column_; }
  Status&& WithColumn(size_t column) && {
    column_ = column;
    return std::move(*this);
  }

  // The same error with `context` in front of the message ("titles.bin: " + message).
  Status Prefixed(std::string_view context) const {
    Status prefixed = *this;
    prefixed.message_.insert(0, context);
    return prefixed;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::optional<size_t> column_;
};

// Either a value or the error that prevented it.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok());
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const std::string& error() const { return status_.message(); }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace perfhive

#endif  // PERFHIVE_BASE_STATUS_H_
