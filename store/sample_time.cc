#include "store/sample_time.h"

#include <chrono>
#include <string>

namespace perfhive {

Result<int64_t> UnixNanosFromSystemTime(const SystemTime& time) {
  using namespace std::chrono;
  // SYSTEMTIME's own range (1601..30827) keeps the nanoseconds inside int64 only to 2262, so
  // the year is held to what an int64 of nanoseconds since 1970 can say.
  if (time.year < 1678 || time.year > 2261) {
    return Status::Error("SystemTime: year " + std::to_string(time.year) +
                         " is outside 1678..2261");
  }
  year_month_day date{year(time.year), month(time.month), day(time.day)};
  if (!date.ok()) {
    return Status::Error("SystemTime: " + std::to_string(time.year) + "-" +
                         std::to_string(time.month) + "-" + std::to_string(time.day) +
                         " is not a date");
  }
  if (time.hour > 23 || time.minute > 59 || time.second > 59 || time.milliseconds > 999) {
    return Status::Error("SystemTime: " + std::to_string(time.hour) + ":" +
                         std::to_string(time.minute) + ":" + std::to_string(time.second) + "." +
                         std::to_string(time.milliseconds) + " is not a time of day");
  }
  nanoseconds since_epoch = sys_days(date).time_since_epoch() + hours(time.hour) +
                            minutes(time.minute) + seconds(time.second) +
                            milliseconds(time.milliseconds);
  return static_cast<int64_t>(since_epoch.count());
}

}  // namespace perfhive
