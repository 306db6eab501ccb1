// The newest values of several counters per instance, joined by instance identity: one read
// of the latest values makes a row per process (processes view) or per thread (threads view).

import {statusName} from './pdh_status.js';

// A table of the newest value of several counters per instance: one row per instance of the
// newest sample (an instance that was gone by then is left out). With `accept`, only the
// series it accepts.
export function joinLatest(answer, columns, accept) {
  const rows = new Map();
  let sampleMs = 0;
  for (const series of answer.series || []) {
    if (accept && !accept(series)) continue;
    const column = columns[series.counter.toLowerCase()];
    if (!column) continue;
    const key = series.identity || (series.instance + '\u0000' + (series.pid === undefined ? '' : series.pid));
    let row = rows.get(key);
    if (!row) {
      row = {key, name: series.instance || '', pid: series.pid, tid: series.tid, path: series.path, values: {}, statuses: {}, ms: 0};
      rows.set(key, row);
    }
    const values = series.values || [];
    const times = series.times || [];
    const statuses = series.statuses || [];
    const last = values.length - 1;
    if (last < 0) continue;
    row.values[column] = values[last] === null ? null : Number(values[last]);
    row.statuses[column] = series.last_status || statusName(statuses[last]);
    row.ms = Math.max(row.ms, Number(times[last]) || 0);
    sampleMs = Math.max(sampleMs, row.ms);
  }
  return {rows: [...rows.values()].filter((row) => row.ms >= sampleMs - 1), sampleMs};
}
