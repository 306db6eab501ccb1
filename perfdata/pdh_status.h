// PDH's status codes for a computed counter value, and their names, so that perfhive reports
// a value's state exactly as PDH would (PDH_CSTATUS_VALID_DATA, PDH_CSTATUS_INVALID_DATA, ...).
// PDH itself splits a failed calculation in two: the function returns a PDH_CALC_* code and the
// value's CStatus reads PDH_CSTATUS_INVALID_DATA. perfhive keeps one status per value, the more
// specific of the two (docs/counter_math.md has the mapping).

#ifndef PERFHIVE_PERFDATA_PDH_STATUS_H_
#define PERFHIVE_PERFDATA_PDH_STATUS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace perfhive {

enum class PdhStatus : uint32_t {
  kValidData = 0x00000000,            // PDH_CSTATUS_VALID_DATA
  kNewData = 0x00000001,              // PDH_CSTATUS_NEW_DATA
  kNoMachine = 0x800007D0,            // PDH_CSTATUS_NO_MACHINE
  kNoInstance = 0x800007D1,           // PDH_CSTATUS_NO_INSTANCE
  kItemNotValidated = 0x800007D3,     // PDH_CSTATUS_ITEM_NOT_VALIDATED
  kNoData = 0x800007D5,               // PDH_NO_DATA
  kNegativeDenominator = 0x800007D6,  // PDH_CALC_NEGATIVE_DENOMINATOR
  kNegativeTimebase = 0x800007D7,     // PDH_CALC_NEGATIVE_TIMEBASE
  kNegativeValue = 0x800007D8,        // PDH_CALC_NEGATIVE_VALUE
  kNoObject = 0xC0000BB8,             // PDH_CSTATUS_NO_OBJECT
  kNoCounter = 0xC0000BB9,            // PDH_CSTATUS_NO_COUNTER
  kInvalidData = 0xC0000BBA,          // PDH_CSTATUS_INVALID_DATA
  kBadCounterName = 0xC0000BC0,       // PDH_CSTATUS_BAD_COUNTERNAME
};

// "PDH_CSTATUS_VALID_DATA", ...; "PDH_UNKNOWN_STATUS" for a code not listed above.
std::string_view PdhStatusName(PdhStatus status);

// The name with the code, as people search for it: "PDH_CSTATUS_INVALID_DATA (0xC0000BBA)".
std::string DescribePdhStatus(PdhStatus status);

// Whether a value with this status is a number to show (valid or new data).
inline bool IsSuccess(PdhStatus status) {
  return status == PdhStatus::kValidData || status == PdhStatus::kNewData;
}

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_PDH_STATUS_H_
