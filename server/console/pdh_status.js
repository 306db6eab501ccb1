// PDH's status codes by name, as the legend and the tooltips show a value's status.

const PDH_STATUS_NAMES = new Map([
  [0x00000000, 'PDH_CSTATUS_VALID_DATA'],
  [0x00000001, 'PDH_CSTATUS_NEW_DATA'],
  [0x800007D0, 'PDH_CSTATUS_NO_MACHINE'],
  [0x800007D1, 'PDH_CSTATUS_NO_INSTANCE'],
  [0x800007D3, 'PDH_CSTATUS_ITEM_NOT_VALIDATED'],
  [0x800007D5, 'PDH_NO_DATA'],
  [0x800007D6, 'PDH_CALC_NEGATIVE_DENOMINATOR'],
  [0x800007D7, 'PDH_CALC_NEGATIVE_TIMEBASE'],
  [0x800007D8, 'PDH_CALC_NEGATIVE_VALUE'],
  [0xC0000BB8, 'PDH_CSTATUS_NO_OBJECT'],
  [0xC0000BB9, 'PDH_CSTATUS_NO_COUNTER'],
  [0xC0000BBA, 'PDH_CSTATUS_INVALID_DATA'],
  [0xC0000BC0, 'PDH_CSTATUS_BAD_COUNTERNAME'],
]);
export function statusName(code) {
  if (code === undefined || code === null) return '';
  return PDH_STATUS_NAMES.get(code >>> 0) || '0x' + (code >>> 0).toString(16).toUpperCase();
}
export const statusIsValid = (name) => !name || name === 'PDH_CSTATUS_VALID_DATA' || name === 'PDH_CSTATUS_NEW_DATA';
