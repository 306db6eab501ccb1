// How the console writes numbers, byte counts, times and scales: one place, so that every view
// shows a value the same way.

const number3 = new Intl.NumberFormat('en-US', {maximumFractionDigits: 3});
const number0 = new Intl.NumberFormat('en-US', {maximumFractionDigits: 0});
const number6 = new Intl.NumberFormat('en-US', {maximumFractionDigits: 6});
const integer = new Intl.NumberFormat('en-US', {maximumFractionDigits: 0});

// A counter value as the legend shows it: three decimals (none from 100,000 on), thousands
// separated.
export function formatValue(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && magnitude < 0.001) return value.toExponential(3);
  return magnitude >= 100000 ? number0.format(value) : number3.format(value);
}
// As exact as a tooltip should be.
export function formatExact(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && magnitude < 0.000001) return value.toExponential(6);
  return number6.format(value);
}
export function formatInteger(value) {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : integer.format(value);
}
export function formatBytes(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let unit = 0;
  while (Math.abs(scaled) >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  const digits = unit === 0 ? 0 : Math.abs(scaled) < 10 ? 2 : 1;
  return scaled.toFixed(digits) + ' ' + units[unit];
}
export function pad(n, width = 2) {
  return String(n).padStart(width, '0');
}
// Local time: "17:21:44", with the date when it is not today.
export function formatTime(ms, withMillis) {
  if (!ms) return '—';
  const d = new Date(ms);
  const now = new Date();
  let text = pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  if (withMillis) text += '.' + pad(d.getMilliseconds(), 3);
  if (d.toDateString() !== now.toDateString()) {
    text = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + text;
  }
  return text;
}
export function formatFullTime(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' +
      pad(d.getMilliseconds(), 3) + ' (' + new Date(ms).toISOString() + ')';
}
// "12 s ago", "4 min ago", "3 h ago", "2 d ago".
export function formatAgo(ms, now) {
  if (!ms) return 'never';
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 90) return seconds + ' s ago';
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return minutes + ' min ago';
  const hours = Math.round(minutes / 60);
  if (hours < 36) return hours + ' h ago';
  return Math.round(hours / 24) + ' d ago';
}
// A time as a datetime-local input holds it (local, to the second).
export function toLocalInput(ms) {
  const d = new Date(ms);
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' +
      pad(d.getMinutes()) + ':' + pad(d.getSeconds());
}
// A counter's scale (a power of ten, -7..7) as perfmon writes it: "1000", "0.01".
export function scaleLabel(scale) {
  if (scale >= 0) return String(10 ** scale);
  return '0.' + '0'.repeat(-scale - 1) + '1';
}
// A span as rules and flags write it: "5m", "1h30m", "15s", "250ms".
export function formatSpan(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms === 0) return '0s';
  if (ms % 1000 !== 0) return ms < 1000 ? ms + 'ms' : formatValue(ms / 1000) + 's';
  let rest = ms / 1000;
  let text = '';
  for (const [unit, seconds] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]]) {
    if (rest >= seconds) {
      text += Math.floor(rest / seconds) + unit;
      rest %= seconds;
    }
  }
  return text;
}
