// The processes view (#/processes?host=H&sort=cpu&desc=1): one host's processes as Task
// Manager shows them, read every 3 s; _Total and Idle are listed apart, after the others.

import {api} from './api.js';
import {counterPath, escapeInstance, escapeMachine} from './counter_path.js';
import {$, escapeHtml, showWarningsIn} from './dom.js';
import {formatBytes, formatInteger, formatTime, formatValue} from './format.js';
import {joinLatest} from './latest_values.js';
import {pollRead} from './polled_read.js';
import {hashFor, replaceHash} from './router.js';
import {SortableHead, nextSort} from './sortable_head.js';
import {collator, sortRows} from './sort.js';
import {renderRows} from './table_rows.js';

const POLL_MS = 3000;  // while the view is shown, it reads again this often

// The counters read, by the column that shows them (ioRead and ioWrite stand in for io on hosts
// without IO Data Bytes/sec).
const PROCESS_COUNTERS = {
  cpu: '% Processor Time',
  ws: 'Working Set',
  private: 'Private Bytes',
  io: 'IO Data Bytes/sec',
  ioRead: 'IO Read Bytes/sec',
  ioWrite: 'IO Write Bytes/sec',
  handles: 'Handle Count',
  threads: 'Thread Count',
};
// The instances that are not processes: listed after the others, whatever the order.
const isAggregate = (name) => /^(_total|idle)$/i.test(name);

export const processes = {
  name: 'processes',
  host: '',
  sort: {key: 'name', descending: false},
  timer: 0,
  controller: null,
  rows: [],

  init() {
    this.head = new SortableHead($('processes-table'), (key, numeric) => {
      this.sort = nextSort(this.sort, key, numeric);
      this.saveUrl();
      this.render();
    });
  },
  enter(params) {
    this.host = params.get('host') || '';
    this.sort = {key: params.get('sort') || 'name', descending: params.get('desc') === '1'};
    $('processes-title').textContent = this.host ? 'Processes of ' + this.host : 'Processes';
    $('processes-cpus').href = hashFor('chart', {path: counterPath(escapeMachine(this.host), 'Processor', '*', '% Processor Time'), range: '5m', live: '1'});
    if (this.rows.host !== this.host) {
      this.rows = [];
      renderRows($('processes-table').tBodies[0], []);
      renderRows($('processes-table').tBodies[1], []);
      $('processes-sample').textContent = '';
    }
    this.render();
    this.load();
  },
  leave() {
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
  },
  saveUrl() {
    replaceHash('processes', {host: this.host, sort: this.sort.key === 'name' && !this.sort.descending ? '' : this.sort.key,
      desc: this.sort.descending ? '1' : ''});
  },
  load() {
    clearTimeout(this.timer);
    if (!this.host) {
      $('processes-error').textContent = 'No host: open one from the fleet.';
      $('processes-error').hidden = false;
      return;
    }
    const machine = escapeMachine(this.host);
    const paths = Object.values(PROCESS_COUNTERS).map((counter) => counterPath(machine, 'Process', '*', counter));
    return pollRead(this, {
      read: (signal) => api('/api/v1/read', {path: paths, latest: '1'}, signal),
      shown: (answer) => this.show(answer),
      failed: (error) => {
        $('processes-error').textContent = error.message;
        $('processes-error').hidden = false;
      },
      pollMs: POLL_MS,
    });
  },
  // The newest values of every process, one row each.
  show(answer) {
    const columns = {};
    for (const [column, counter] of Object.entries(PROCESS_COUNTERS)) columns[counter.toLowerCase()] = column;
    const {rows, sampleMs} = joinLatest(answer, columns);
    for (const row of rows) {
      const v = row.values;
      if (v.io === undefined && (v.ioRead !== undefined || v.ioWrite !== undefined)) {
        v.io = v.ioRead === null || v.ioWrite === null ? null : (v.ioRead || 0) + (v.ioWrite || 0);
        row.ioSummed = true;
      }
    }
    this.rows = rows;
    this.rows.host = this.host;
    this.sampleMs = sampleMs;
    // Paths that select nothing on this host are not news for the sum of IO counters.
    const warnings = (answer.warnings || []).filter((w) => !(rows.some((r) => r.ioSummed) && /IO Data Bytes\/sec/.test(w)));
    showWarningsIn($('processes-warnings'), warnings);
    $('processes-error').hidden = true;
    this.render();
  },
  valueOf(row, key) {
    if (key === 'name') return row.name;
    if (key === 'pid') return row.pid === undefined ? null : row.pid;
    const value = row.values[key];
    return value === undefined ? null : value;
  },
  render() {
    const numeric = this.head.isNumeric(this.sort.key);
    const main = this.rows.filter((row) => !isAggregate(row.name));
    const aggregates = this.rows.filter((row) => isAggregate(row.name));
    sortRows(main, this.valueOf, this.sort.key, numeric, this.sort.descending,
        (a, b) => collator.compare(a.name, b.name) || (a.pid || 0) - (b.pid || 0));
    aggregates.sort((a, b) => collator.compare(a.name, b.name));
    this.head.show(this.sort.key, this.sort.descending);
    const table = $('processes-table');
    renderRows(table.tBodies[0], main.map((row) => this.rowHtml(row, false)));
    renderRows(table.tBodies[1], aggregates.map((row) => this.rowHtml(row, true)));
    table.dataset.sampleMs = String(this.sampleMs || '');
    if (this.sampleMs) {
      $('processes-sample').textContent = main.length + ' processes · sample ' + formatTime(this.sampleMs) + ' · every 3 s';
    }
  },
  rowHtml(row, aggregate) {
    const machine = escapeMachine(this.host);
    const instance = escapeInstance(row.name);
    const chart = hashFor('chart', {path: [counterPath(machine, 'Process', instance, '% Processor Time'),
      counterPath(machine, 'Process', instance, 'Working Set')], range: '5m', live: '1', fit: '1'});
    const threads = hashFor('threads', {host: this.host, pid: row.pid, name: row.name});
    const name = escapeHtml(row.name);
    const id = escapeHtml(row.key);
    const v = row.values;
    const cell = (column, text) => {
      const status = row.statuses[column];
      const title = v[column] === null && status ? ' title="' + escapeHtml(status) + '"' : '';
      return '<td class="num"' + title + '>' + text + '</td>';
    };
    const ioTitle = row.ioSummed ? ' title="IO Read Bytes/sec + IO Write Bytes/sec (this host has no IO Data Bytes/sec)"' : '';
    return {
      key: row.key,
      open: '<tr data-key="' + id + '" data-pid="' + (row.pid === undefined ? '' : row.pid) + '" data-ms="' + (row.ms || '') + '"' +
          ' data-cpu="' + (v.cpu === undefined || v.cpu === null ? '' : v.cpu) + '">',
      cells: [
        '<td><a href="' + escapeHtml(chart) + '" data-focus="chart:' + id + '" title="Chart % Processor Time and Working Set of ' + name + '">' +
            name + '</a>' + (aggregate ? '<span class="tag">' + (/^idle$/i.test(row.name) ? 'idle' : 'total') + '</span>' : '') + '</td>',
        '<td class="num">' + (row.pid === undefined ? '' : row.pid) + '</td>',
        cell('cpu', formatValue(v.cpu === undefined ? null : v.cpu)),
        cell('ws', formatBytes(v.ws)),
        cell('private', formatBytes(v.private)),
        cell('io', formatBytes(v.io)).replace('<td class="num"', '<td class="num"' + ioTitle),
        cell('handles', formatInteger(v.handles)),
        cell('threads', formatInteger(v.threads)),
        '<td>' + (aggregate || row.pid === undefined ? '' :
          '<a class="button small" href="' + escapeHtml(threads) + '" data-focus="threads:' + id + '" aria-label="Threads of ' + name +
          ' (PID ' + row.pid + ')">Threads</a>') + '</td>',
      ],
    };
  },
};
