// The threads view (#/threads?host=H&pid=N&name=INSTANCE): one process's threads, read every
// 3 s.

import {api} from './api.js';
import {counterPath, escapeInstancePart, escapeMachine} from './counter_path.js';
import {$, escapeHtml, showWarningsIn} from './dom.js';
import {formatInteger, formatTime, formatValue} from './format.js';
import {joinLatest} from './latest_values.js';
import {pollRead} from './polled_read.js';
import {hashFor, replaceHash} from './router.js';
import {SortableHead, nextSort} from './sortable_head.js';
import {sortRows} from './sort.js';
import {renderRows} from './table_rows.js';

const POLL_MS = 3000;  // while the view is shown, it reads again this often

// The counters read, by the column that shows them.
const THREAD_COUNTERS = {
  tidValue: 'ID Thread',
  cpu: '% Processor Time',
  state: 'Thread State',
  priority: 'Priority Current',
  switches: 'Context Switches/sec',
};
// Thread State's values by number.
const THREAD_STATES = ['Initialized', 'Ready', 'Running', 'Standby', 'Terminated', 'Wait', 'Transition', 'Unknown'];

export const threads = {
  name: 'threads',
  host: '',
  pid: null,
  process: '',
  sort: {key: 'tid', descending: false},
  timer: 0,
  controller: null,
  rows: [],

  init() {
    this.head = new SortableHead($('threads-table'), (key, numeric) => {
      this.sort = nextSort(this.sort, key, numeric);
      this.saveUrl();
      this.render();
    });
  },
  enter(params) {
    this.host = params.get('host') || '';
    this.pid = params.has('pid') && params.get('pid') !== '' ? Number(params.get('pid')) : null;
    this.process = params.get('name') || '';
    this.sort = {key: params.get('sort') || 'tid', descending: params.get('desc') === '1'};
    $('threads-title').textContent = 'Threads of ' + (this.process || 'PID ' + this.pid) +
        (this.pid !== null && this.process ? ' (PID ' + this.pid + ')' : '') + (this.host ? ' on ' + this.host : '');
    $('threads-back').href = hashFor('processes', {host: this.host});
    $('threads-back').textContent = 'Processes of ' + this.host;
    this.rows = [];
    renderRows($('threads-table').tBodies[0], []);
    $('threads-sample').textContent = '';
    this.load();
  },
  leave() {
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
  },
  saveUrl() {
    replaceHash('threads', {host: this.host, pid: this.pid, name: this.process,
      sort: this.sort.key === 'tid' && !this.sort.descending ? '' : this.sort.key, desc: this.sort.descending ? '1' : ''});
  },
  load() {
    clearTimeout(this.timer);
    if (!this.host) return;
    // Threads name their process without its #index: "svchost/3" for every svchost.
    const parent = this.process ? escapeInstancePart(this.process.replace(/#\d+$/, '')) : '*';
    const machine = escapeMachine(this.host);
    const paths = Object.values(THREAD_COUNTERS).map((counter) => counterPath(machine, 'Thread', parent + '/*', counter));
    return pollRead(this, {
      // latest=1 reads the newest two samples of each query: Thread's are Costly ones.
      read: (signal) => api('/api/v1/read', {path: paths, latest: '1'}, signal),
      shown: (answer) => this.show(answer),
      failed: (error) => {
        $('threads-error').textContent = error.message;
        $('threads-error').hidden = false;
      },
      pollMs: POLL_MS,
    });
  },
  // The newest values of the process's threads (or every thread), one row each.
  show(answer) {
    const columns = {};
    for (const [column, counter] of Object.entries(THREAD_COUNTERS)) columns[counter.toLowerCase()] = column;
    const accept = (series) => this.pid === null || Number(series.pid) === this.pid;
    const {rows, sampleMs} = joinLatest(answer, columns, accept);
    for (const row of rows) {
      if (row.tid === undefined && Number.isFinite(row.values.tidValue)) row.tid = row.values.tidValue;
    }
    this.rows = rows;
    this.sampleMs = sampleMs;
    showWarningsIn($('threads-warnings'), answer.warnings);
    $('threads-error').hidden = true;
    this.render();
  },
  valueOf(row, key) {
    if (key === 'tid') return row.tid === undefined ? null : row.tid;
    if (key === 'instance') return row.name;
    const value = row.values[key];
    return value === undefined ? null : value;
  },
  render() {
    const numeric = this.head.isNumeric(this.sort.key);
    sortRows(this.rows, this.valueOf, this.sort.key, numeric, this.sort.descending, (a, b) => (a.tid || 0) - (b.tid || 0));
    this.head.show(this.sort.key, this.sort.descending);
    const tbody = $('threads-table').tBodies[0];
    renderRows(tbody, this.rows.map((row) => {
      const v = row.values;
      const stateText = v.state === undefined || v.state === null ? '—' :
          (THREAD_STATES[v.state] ? THREAD_STATES[v.state] + ' (' + v.state + ')' : String(v.state));
      return {
        key: row.key,
        open: '<tr data-tid="' + (row.tid === undefined ? '' : row.tid) + '" data-pid="' + (row.pid === undefined ? '' : row.pid) + '">',
        cells: [
          '<td class="num">' + (row.tid === undefined ? '' : row.tid) + '</td>',
          '<td>' + escapeHtml(row.name) + '</td>',
          '<td class="num">' + formatValue(v.cpu === undefined ? null : v.cpu) + '</td>',
          '<td>' + escapeHtml(stateText) + '</td>',
          '<td class="num">' + formatInteger(v.priority) + '</td>',
          '<td class="num">' + formatValue(v.switches === undefined ? null : v.switches) + '</td>',
        ],
      };
    }));
    $('threads-sample').textContent = this.rows.length + (this.rows.length === 1 ? ' thread' : ' threads') +
        (this.sampleMs ? ' · sample ' + formatTime(this.sampleMs) : '') + ' · every 3 s';
    if (!this.rows.length && this.sampleMs === 0) $('threads-sample').textContent = 'No threads in the newest sample.';
  },
};
