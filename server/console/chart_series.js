// A series on the chart: its identity over time, its label, its colour, where its line breaks
// and the figures the legend shows of it.

// Colours that read on light and dark backgrounds alike.
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#17becf', '#e377c2',
  '#8c564b', '#bcbd22', '#3b75af', '#ee6677', '#228833', '#aa3377', '#66ccee', '#ccbb44',
  '#e6550d', '#31a354', '#756bb1', '#636363', '#843c39'];

// A series' identity over time: a process by PID and start, a thread by PID and TID, else
// its instance (docs/query_semantics.md).
export function seriesKey(series) {
  return [series.host, series.object, series.counter,
    series.identity || (series.instance === undefined ? '' : series.instance)].join('\u0000');
}
export function instanceLabel(series) {
  if (series.instance === undefined || series.instance === null) return '';
  let label = series.instance;
  if (series.tid !== undefined && series.tid !== null) {
    label += ' (PID ' + series.pid + ', TID ' + series.tid + ')';
  } else if (series.pid !== undefined && series.pid !== null) {
    label += ' (PID ' + series.pid + ')';
  }
  return label;
}
export function lastOf(array) {
  return array.length ? array[array.length - 1] : undefined;
}

// Three times the usual interval between a series' points (its 75th percentile, so that
// Global and Costly samples a few milliseconds apart do not count as usual): a longer one is
// a gap in the line.
export function gapLimit(times) {
  if (times.length < 5) return Infinity;
  const steps = [];
  for (let i = 1; i < times.length; i++) steps.push(times[i] - times[i - 1]);
  steps.sort((a, b) => a - b);
  return 3 * Math.max(1, steps[Math.floor(steps.length * 0.75)]);
}

// The legend's figures over the points held: last (and its time), average, minimum, maximum,
// and how many points are shown (gaps left out).
export function seriesStats(series) {
  let count = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let shown = 0;
  for (const point of series.points) {
    if (point.gap) continue;
    shown++;
    if (point.v === null) continue;
    count++;
    sum += point.v;
    if (point.v < min) min = point.v;
    if (point.v > max) max = point.v;
  }
  const last = lastOf(series.points);
  return {
    last: last ? last.v : null,
    lastTime: last ? last.x : null,
    mean: count ? sum / count : null,
    min: count ? min : null,
    max: count ? max : null,
    points: shown,
  };
}
