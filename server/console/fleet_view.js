// The fleet view (#/fleet?filter=web*&sort=last_seen&desc=1): every host, its health and its
// labels, polled every 5 s, filtered by a pattern or any text (role=web finds a label), sortable
// by each column.

import {api} from './api.js';
import {counterPath, escapeMachine} from './counter_path.js';
import {$, escapeHtml} from './dom.js';
import {formatAgo, formatFullTime, formatInteger, formatTime} from './format.js';
import {globRegExp, hasWildcard} from './host_pattern.js';
import {encodeParam, hashFor, replaceHash} from './router.js';
import {SortableHead, nextSort} from './sortable_head.js';
import {collator, sortRows} from './sort.js';
import {state} from './state.js';
import {renderRows} from './table_rows.js';

// A host is quiet when not heard from for this long, or for three of its usual intervals
// when those are longer (the legend above the table says so).
const QUIET_FLOOR_MS = 60000;
export const fleet = {
  name: 'fleet',
  hosts: [],
  clockOffset: 0,
  sort: {key: 'name', descending: false},
  filter: '',
  timer: 0,
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
      this.render();
    };
    for (const event of ['input', 'change', 'search']) input.addEventListener(event, filter);
    $('fleet-filter-form').addEventListener('submit', (event) => event.preventDefault());
  },
  enter(params) {
    this.frozen = false;
    this.filter = params.get('filter') || '';
    $('fleet-filter').value = this.filter;
    this.sort = {key: params.get('sort') || 'name', descending: params.get('desc') === '1'};
    if (this.loaded) this.render();
    this.load();
    this.ticker = setInterval(() => this.tick(), 1000);
  },
  leave() {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    if (this.controller) this.controller.abort();
  },
  saveUrl() {
    replaceHash('fleet', {filter: this.filter, sort: this.sort.key === 'name' && !this.sort.descending ? '' : this.sort.key,
      desc: this.sort.descending ? '1' : ''});
  },
  now() {
    return Date.now() + this.clockOffset;
  },
  async load() {
    clearTimeout(this.timer);
    if (this.frozen) return;
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    try {
      const answer = await api('/api/v1/hosts', null, this.controller.signal);
      if (this.frozen) return;
      this.show(answer);
      $('fleet-error').hidden = true;
    } catch (error) {
      if (error.name === 'AbortError') return;
      $('fleet-error').textContent = 'Cannot list the hosts: ' + error.message;
      $('fleet-error').hidden = false;
    }
    if (state.currentView === this && !this.frozen) this.timer = setTimeout(() => this.load(), 5000);
  },
  show(answer) {
    this.hosts = answer.hosts || [];
    this.clockOffset = answer.now_ms ? answer.now_ms - Date.now() : 0;
    this.loaded = true;
    this.render();
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
    if (!this.filter) return true;
    if (hasWildcard(this.filter)) return globRegExp(this.filter).test(host.name);
    const needle = this.filter.toLowerCase();
    return [host.name, host.source, host.os, host.os_version, host.agent_version, host.last_error,
      host.credential, this.policyText(host), this.labelsText(host)].some((field) => field && String(field).toLowerCase().includes(needle));
  },
  render() {
    const now = this.now();
    const rows = this.hosts.filter((host) => this.matches(host));
    const numeric = this.head.isNumeric(this.sort.key);
    sortRows(rows, this.valueOf, this.sort.key, numeric, this.sort.descending,
        (a, b) => collator.compare(a.name, b.name));
    this.head.show(this.sort.key, this.sort.descending);
    const tbody = $('fleet-table').tBodies[0];
    const drawn = [];
    for (const host of rows) {
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
      drawn.push({
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
      });
    }
    renderRows(tbody, drawn);
    $('fleet-count').textContent = rows.length === this.hosts.length ?
        this.hosts.length + (this.hosts.length === 1 ? ' host' : ' hosts') :
        rows.length + ' of ' + this.hosts.length + ' hosts';
  },
  tick() {
    const now = this.now();
    for (const cell of $('fleet-table').tBodies[0].querySelectorAll('span.ago')) {
      const text = formatAgo(Number(cell.dataset.ms), now);
      if (cell.textContent !== text) cell.textContent = text;
    }
  },
};
