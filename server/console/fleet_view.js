// The fleet view (#/fleet?filter=web*&group=site&sort=last_seen&desc=1): every host, its health
// and its labels, polled every 5 s, sortable by each column. The filter is a host selector when
// it holds "=" (role=web,site=ams*), which the server evaluates (/api/v1/hosts?select=) so that it
// means what `perfhive hosts --select` means; else a name pattern (web*) or text found in any
// column. The rows may be grouped by a label's value, each group headed by its host count.

import {api} from './api.js';
import {counterPath, escapeMachine} from './counter_path.js';
import {$, escapeHtml} from './dom.js';
import {formatAgo, formatFullTime, formatInteger, formatTime} from './format.js';
import {globRegExp, hasWildcard} from './host_pattern.js';
import {pollRead} from './polled_read.js';
import {encodeParam, hashFor, replaceHash} from './router.js';
import {SortableHead, nextSort} from './sortable_head.js';
import {collator, compareValues, sortRows} from './sort.js';
import {renderRows} from './table_rows.js';

const POLL_MS = 5000;  // while the view is shown, it reads again this often

// A host is quiet when not heard from for this long, or for three of its usual intervals
// when those are longer (the legend above the table says so).
const QUIET_FLOOR_MS = 60000;
// A selector is asked for once typing pauses this long.
const SELECTOR_DELAY_MS = 300;
// The filter as a host selector, or '' when it is a pattern or text.
const selectorOf = (filter) => filter.includes('=') ? filter : '';
// The columns of a host's row (a group's heading spans them).
const COLUMNS = 13;

export const fleet = {
  name: 'fleet',
  hosts: [],
  // The selector `hosts` were listed with ('' for every host), and its error if it had one.
  listedSelector: null,
  selectorError: '',
  clockOffset: 0,
  sort: {key: 'name', descending: false},
  filter: '',
  group: '',
  timer: 0,
  typingTimer: 0,
  ticker: 0,
  controller: null,
  loaded: false,
  frozen: false,

  init() {
    this.head = new SortableHead($('fleet-table'), (key, numeric) => {
      this.sort = nextSort(this.sort, key, numeric);
      this.saveUrl();
      this.render();
    });
    const input = $('fleet-filter');
    const filter = () => {
      if (this.filter === input.value.trim()) return;
      this.filter = input.value.trim();
      this.saveUrl();
      clearTimeout(this.typingTimer);
      // Text and patterns are matched here at once; a selector asks the server once typing
      // pauses, and the list it answered stays until then.
      if (selectorOf(this.filter) === this.listedSelector) {
        this.render();
      } else {
        this.typingTimer = setTimeout(() => this.load(), selectorOf(this.filter) ? SELECTOR_DELAY_MS : 0);
      }
    };
    for (const event of ['input', 'change', 'search']) input.addEventListener(event, filter);
    $('fleet-filter-form').addEventListener('submit', (event) => event.preventDefault());
    $('fleet-group').addEventListener('change', () => {
      this.group = $('fleet-group').value;
      this.saveUrl();
      this.render();
    });
  },
  enter(params) {
    this.frozen = false;
    this.filter = params.get('filter') || '';
    $('fleet-filter').value = this.filter;
    this.group = params.get('group') || '';
    this.sort = {key: params.get('sort') || 'name', descending: params.get('desc') === '1'};
    if (this.loaded) this.render();
    this.load();
    this.ticker = setInterval(() => this.tick(), 1000);
  },
  leave() {
    clearTimeout(this.timer);
    clearTimeout(this.typingTimer);
    clearInterval(this.ticker);
    if (this.controller) this.controller.abort();
  },
  saveUrl() {
    replaceHash('fleet', {filter: this.filter, group: this.group,
      sort: this.sort.key === 'name' && !this.sort.descending ? '' : this.sort.key,
      desc: this.sort.descending ? '1' : ''});
  },
  now() {
    return Date.now() + this.clockOffset;
  },
  load() {
    const select = selectorOf(this.filter);
    return pollRead(this, {
      read: (signal) => api('/api/v1/hosts', {select}, signal),
      shown: (answer) => {
        this.show(answer, select);
        $('fleet-error').hidden = true;
      },
      failed: (error) => {
        if (select && error.status === 400) {
          // The selector means nothing: no rows, and the server's reason.
          this.show({hosts: []}, select, error.message);
        }
        $('fleet-error').textContent = select && error.status === 400 ? error.message +
            ' (or type text without "=" to find it in any column)' : 'Cannot list the hosts: ' + error.message;
        $('fleet-error').hidden = false;
      },
      pollMs: POLL_MS,
    });
  },
  // `answer` lists the hosts `select` selects ('' or undefined: every host); `error` is why the
  // selector selects none.
  show(answer, select = '', error = '') {
    this.hosts = answer.hosts || [];
    this.listedSelector = select;
    this.selectorError = error;
    if (answer.now_ms) this.clockOffset = answer.now_ms - Date.now();
    this.loaded = true;
    this.showGroupKeys();
    this.render();
  },
  // The label keys the hosts listed have, to group by; the chosen one stays offered.
  showGroupKeys() {
    const keys = new Set(this.hosts.flatMap((host) => Object.keys(host.labels || {})));
    if (this.group) keys.add(this.group);
    const wanted = ['', ...[...keys].sort(collator.compare)];
    const box = $('fleet-group');
    const offered = [...box.options].map((option) => option.value);
    if (offered.join('\n') !== wanted.join('\n')) {
      box.replaceChildren(...wanted.map((key) => {
        const option = document.createElement('option');
        option.value = key;
        option.textContent = key || 'nothing';
        return option;
      }));
    }
    box.value = this.group;
  },
  isQuiet(host, now) {
    if (!host.last_seen_ms) return true;
    const usual = host.snapshots > 1 && host.first_seen_ms ?
        (host.last_seen_ms - host.first_seen_ms) / (host.snapshots - 1) : 0;
    return now - host.last_seen_ms > Math.max(QUIET_FLOOR_MS, 3 * usual);
  },
  policyText(host) {
    if (!host.plan_revision && !host.plan_latest) return '';
    let text = host.plan_revision ? 'rev ' + host.plan_revision.slice(0, 8) : 'none applied';
    if (host.plan_latest && host.plan_latest !== host.plan_revision) {
      text += ' (latest ' + host.plan_latest.slice(0, 8) + ' pending)';
    }
    return text;
  },
  // ["role=web", "site=ams"]: the labels the server gives the host (its agent's under its
  // policy's), keys in order.
  labelPairs(host) {
    return Object.keys(host.labels || {}).sort().map((key) => key + '=' + host.labels[key]);
  },
  labelsText(host) {
    return fleet.labelPairs(host).join(', ');
  },
  valueOf(host, key) {
    switch (key) {
      case 'os': return ((host.os || '') + ' ' + (host.os_version || '')).trim();
      case 'last_seen': return host.last_seen_ms || null;
      case 'last_sample': return host.last_sample_ms || null;
      case 'policy': return fleet.policyText(host);
      case 'labels': return fleet.labelsText(host);
      default: {
        const value = host[key];
        return value === undefined ? null : value;
      }
    }
  },
  matches(host) {
    if (!this.filter || selectorOf(this.filter)) return true;  // the server selected them
    if (hasWildcard(this.filter)) return globRegExp(this.filter).test(host.name);
    const needle = this.filter.toLowerCase();
    return [host.name, host.source, host.os, host.os_version, host.agent_version, host.last_error,
      host.credential, this.policyText(host), this.labelsText(host)].some((field) => field && String(field).toLowerCase().includes(needle));
  },
  render() {
    const now = this.now();
    // Until the server answers for the selector typed (or, after one, for every host), there is
    // nothing to show.
    const selected = selectorOf(this.filter);
    const listed = this.listedSelector === selected;
    const rows = listed ? this.hosts.filter((host) => this.matches(host)) : [];
    const numeric = this.head.isNumeric(this.sort.key);
    sortRows(rows, this.valueOf, this.sort.key, numeric, this.sort.descending,
        (a, b) => collator.compare(a.name, b.name));
    this.head.show(this.sort.key, this.sort.descending);
    const tbody = $('fleet-table').tBodies[0];
    const drawn = [];
    for (const {value, hosts} of this.groups(rows)) {
      if (this.group) {
        const heading = this.group + ' = ' + (value || '(none)');
        drawn.push({
          key: '\u0000group ' + value,
          open: '<tr class="group-head" data-group="' + escapeHtml(value) + '" data-count="' + hosts.length + '">',
          cells: ['<th colspan="' + COLUMNS + '">' + escapeHtml(heading) + ' <span class="muted">' +
              hosts.length + (hosts.length === 1 ? ' host' : ' hosts') + '</span></th>'],
        });
      }
      for (const host of hosts) drawn.push(this.row(host, now));
    }
    renderRows(tbody, drawn);
    const some = rows.length + (rows.length === 1 ? ' host' : ' hosts');
    $('fleet-count').textContent = !listed || this.selectorError ? '' :
        selected ? some + ' selected by ' + selected :
        rows.length === this.hosts.length ? some : rows.length + ' of ' + this.hosts.length + ' hosts';
    $('fleet-filter').setAttribute('aria-invalid', listed && this.selectorError ? 'true' : 'false');
  },
  // The rows in groups of the same value of the label grouped by (in value order, hosts without
  // it last), each in the table's order; one group of them all when not grouped.
  groups(rows) {
    if (!this.group) return [{value: '', hosts: rows}];
    const groups = new Map();
    for (const host of rows) {
      const value = (host.labels || {})[this.group] || '';
      if (!groups.has(value)) groups.set(value, []);
      groups.get(value).push(host);
    }
    return [...groups.keys()].sort((a, b) => compareValues(a, b, false))
        .map((value) => ({value, hosts: groups.get(value)}));
  },
  // A host's row, for renderRows.
  row(host, now) {
    const quiet = this.isQuiet(host, now);
    const name = escapeHtml(host.name);
    const cpus = hashFor('chart', {path: counterPath(escapeMachine(host.name), 'Processor', '*', '% Processor Time'),
      range: '5m', live: '1'});
    const error = host.last_error ? escapeHtml(host.last_error) : '';
    const errorTitle = host.last_error ?
        escapeHtml(host.last_error + (host.last_error_ms ? '\n' + formatFullTime(host.last_error_ms) : '')) : '';
    let credential = host.credential || '';
    if (host.credential_expires_ms) credential += ' (expires ' + formatTime(host.credential_expires_ms) + ')';
    const policy = this.policyText(host);
    return {
      key: host.name,
      open: '<tr' + (quiet ? ' class="quiet"' : '') + ' data-host="' + name + '">',
      cells: [
        '<td><a href="#/processes?host=' + escapeHtml(encodeParam(host.name)) + '" data-focus="p:' + name +
            '" title="Processes of ' + name + '">' + name + '</a></td>',
        '<td>' + escapeHtml(host.source || '') + '</td>',
        '<td>' + escapeHtml(((host.os || '') + ' ' + (host.os_version || '')).trim()) + '</td>',
        '<td>' + escapeHtml(host.agent_version || '') + '</td>',
        '<td title="' + escapeHtml(formatFullTime(host.last_seen_ms)) + '"><span class="ago" data-ms="' + (host.last_seen_ms || 0) + '">' +
            formatAgo(host.last_seen_ms, now) + '</span>' + (quiet ? '<span class="quiet-badge">quiet</span>' : '') + '</td>',
        '<td title="' + escapeHtml(formatFullTime(host.last_sample_ms)) + '">' + formatTime(host.last_sample_ms) + '</td>',
        '<td class="num">' + formatInteger(host.snapshots) + '</td>',
        '<td class="num">' + formatInteger(host.refused) + '</td>',
        '<td class="error-cell" title="' + errorTitle + '">' + error + '</td>',
        '<td>' + escapeHtml(credential) + '</td>',
        '<td' + (host.plan_report ? ' title="' + escapeHtml(host.plan_report) + '"' : '') + '>' + escapeHtml(policy) +
            (host.plan_report ? ' <span class="tag">report</span>' : '') + '</td>',
        '<td>' + this.labelPairs(host).map((pair) => '<span class="tag">' + escapeHtml(pair) + '</span>').join(' ') +
            '</td>',
        '<td><a class="button small" href="' + escapeHtml(cpus) + '" data-focus="c:' + name +
            '" aria-label="Chart the processors of ' + name + '">CPUs</a></td>',
      ],
    };
  },
  tick() {
    const now = this.now();
    for (const cell of $('fleet-table').tBodies[0].querySelectorAll('span.ago')) {
      const text = formatAgo(Number(cell.dataset.ms), now);
      if (cell.textContent !== text) cell.textContent = text;
    }
  },
};
