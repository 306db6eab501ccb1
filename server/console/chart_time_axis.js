// The time axis of the console's line charts: ticks at round local times (whole seconds, minutes,
// hours, days), about one per 110 pixels, labelled to the second or the minute as their step
// needs, with the date under a long window's midnights. The chart view's and the alerts view's.

import {pad} from './format.js';

// The steps ticks fall on.
const TIME_STEPS = [1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000,
  1800000, 3600000, 7200000, 10800000, 21600000, 43200000, 86400000];

// {ticks: [{value}], step} for an axis from `min` to `max` that is `width` pixels wide; step is
// null when the axis has no span.
export function timeTicks(min, max, width) {
  const span = max - min;
  if (!(span > 0)) return {ticks: [{value: min}], step: null};
  const wanted = Math.max(2, Math.floor((width || 800) / 110));
  const step = TIME_STEPS.find((s) => span / s <= wanted) || Math.ceil(span / wanted / 86400000) * 86400000;
  const offset = -new Date(min).getTimezoneOffset() * 60000;  // local time, for whole hours and days
  const ticks = [];
  for (let t = Math.ceil((min + offset) / step) * step - offset; t <= max; t += step) ticks.push({value: t});
  return {ticks, step};
}

// A tick's label, for ticks `step` apart on a window `span` long.
export function timeTickLabel(value, step, span) {
  const d = new Date(value);
  const time = step < 60000 ? pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) :
      pad(d.getHours()) + ':' + pad(d.getMinutes());
  if (span > 20 * 3600000 && (d.getHours() === 0 && d.getMinutes() === 0 || step >= 86400000)) {
    return [pad(d.getMonth() + 1) + '-' + pad(d.getDate()), time];
  }
  return time;
}
