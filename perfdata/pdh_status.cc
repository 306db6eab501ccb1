#include "perfdata/pdh_status.h"

#include <cstdio>

namespace perfhive {

std::string_view PdhStatusName(PdhStatus status) {
  switch (status) {
    case PdhStatus::kValidData:
      return "PDH_CSTATUS_VALID_DATA";
    case PdhStatus::kNewData:
      return "PDH_CSTATUS_NEW_DATA";
    case PdhStatus::kNoMachine:
      return "PDH_CSTATUS_NO_MACHINE";
    case PdhStatus::kNoInstance:
      return "PDH_CSTATUS_NO_INSTANCE";
    case PdhStatus::kItemNotValidated:
      return "PDH_CSTATUS_ITEM_NOT_VALIDATED";
    case PdhStatus::kNoData:
      return "PDH_NO_DATA";
    case PdhStatus::kNegativeDenominator:
      return "PDH_CALC_NEGATIVE_DENOMINATOR";
    case PdhStatus::kNegativeTimebase:
      return "PDH_CALC_NEGATIVE_TIMEBASE";
    case PdhStatus::kNegativeValue:
      return "PDH_CALC_NEGATIVE_VALUE";
    case PdhStatus::kNoObject:
      return "PDH_CSTATUS_NO_OBJECT";
    case PdhStatus::kNoCounter:
      return "PDH_CSTATUS_NO_COUNTER";
    case PdhStatus::kInvalidData:
      return "PDH_CSTATUS_INVALID_DATA";
    case PdhStatus::kBadCounterName:
      return "PDH_CSTATUS_BAD_COUNTERNAME";
  }
  return "PDH_UNKNOWN_STATUS";
}

std::string DescribePdhStatus(PdhStatus status) {
  char code[16];
  std::snprintf(code, sizeof code, "0x%08X", static_cast<uint32_t>(status));
  return std::string(PdhStatusName(status)) + " (" + code + ")";
}

}  // namespace perfhive
