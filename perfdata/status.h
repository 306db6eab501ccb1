// Status and Result: how perfdata reports an error without exceptions. An error carries a
// message meant for a person ("object 3 at byte 18432: ..."); success carries nothing and
// costs no allocation.

#ifndef PERFHIVE_PERFDATA_STATUS_H_
#define PERFHIVE_PERFDATA_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace perfhive {

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}

  bool failed_ = false;
  std::string message_;
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

#endif  // PERFHIVE_PERFDATA_STATUS_H_
