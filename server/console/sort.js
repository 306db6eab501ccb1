// The order of table rows: text in natural order (web2 before web10), numbers by value, and
// missing values last whichever way a column is sorted.

export const collator = new Intl.Collator('en', {numeric: true, sensitivity: 'base'});

// Ascending, with missing values last whichever way the column is sorted.
export function compareValues(a, b, numeric) {
  const aMissing = a === null || a === undefined || a === '' || (numeric && !Number.isFinite(a));
  const bMissing = b === null || b === undefined || b === '' || (numeric && !Number.isFinite(b));
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  return numeric ? a - b : collator.compare(String(a), String(b));
}
export function sortRows(rows, valueOf, key, numeric, descending, tieBreak) {
  return rows.sort((x, y) => {
    const a = valueOf(x, key);
    const b = valueOf(y, key);
    const missingA = a === null || a === undefined || a === '' || (numeric && !Number.isFinite(a));
    const missingB = b === null || b === undefined || b === '' || (numeric && !Number.isFinite(b));
    let order;
    if (missingA || missingB) {
      order = missingA === missingB ? 0 : missingA ? 1 : -1;  // missing last, both ways
    } else {
      order = compareValues(a, b, numeric);
      if (descending) order = -order;
    }
    return order || (tieBreak ? tieBreak(x, y) : 0);
  });
}
