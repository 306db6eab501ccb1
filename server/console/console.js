// perfhive's web console: Performance Monitor for the whole fleet. This module starts it.
//
// One page, plain JavaScript modules, no build step. perfhive-server serves them (with Debian's
// Chart.js at /chart.min.js) and the JSON API they read (docs/http_api.md). Every view is a
// URL, so it can be bookmarked and shared:
//
//   #/fleet?filter=web*&sort=last_seen&desc=1      every host and its health
//   #/chart?path=P&path=P2&range=5m|1h|24h|custom&from=MS&to=MS&live=1&scale=N,N,...&fit=1
//                                                   a line chart of what the paths select
//   #/processes?host=H&sort=cpu&desc=1             one host's processes (Task Manager)
//   #/threads?host=H&pid=N&name=INSTANCE           one process's threads
//
// The views are below; the parts they share are modules of their own: api.js (the JSON API),
// router.js (URLs and views), state.js (the session and the view shown), login.js, theme.js
// (theme_early.js applies it before the first paint), dom.js, format.js, sort.js,
// sortable_head.js, table_rows.js, counter_path.js, host_pattern.js, pdh_status.js.
//
// Hook for benchmarks and tests (tests/browser/console_bench.py):
//   window.perfhiveConsole.renderSeries(readAnswer)  draws an /api/v1/read answer on the chart
//       view (open #/chart first) and returns {ms, datasets, points}: the time to build the
//       datasets and draw them, with the canvas flushed (getImageData), by performance.now().
//   window.perfhiveConsole.renderFleet(hostsAnswer)  shows an /api/v1/hosts answer in the fleet
//       view (open #/fleet first; polling stops) and returns the time to build the table and
//       lay it out, in ms.
//   window.perfhiveConsole.chart()                    the Chart.js chart, or null.

import {api, queryOf} from './api.js';
import {counterPath, escapeCounter, escapeInstance, escapeInstancePart, escapeMachine, escapeObject} from './counter_path.js';
import {$, el, escapeHtml, showWarningsIn, toast} from './dom.js';
import {formatAgo, formatBytes, formatExact, formatFullTime, formatInteger, formatTime, formatValue, pad, scaleLabel,
  toLocalInput} from './format.js';
import {globRegExp, hasWildcard} from './host_pattern.js';
import {initLoginForm, start} from './login.js';
import {statusIsValid, statusName} from './pdh_status.js';
import {encodeParam, hashFor, replaceHash, route, views} from './router.js';
import {SortableHead, nextSort} from './sortable_head.js';
import {collator, sortRows} from './sort.js';
import {state} from './state.js';
import {focusedKey, restoreFocus, renderRows} from './table_rows.js';
import {initTheme} from './theme.js';

// -----------------------------------------------------------------------------------------
// Fleet.

// A host is quiet when not heard from for this long, or for three of its usual intervals
// when those are longer (the legend above the table says so).
const QUIET_FLOOR_MS = 60000;
const fleet = {
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
  valueOf(host, key) {
    switch (key) {
      case 'os': return ((host.os || '') + ' ' + (host.os_version || '')).trim();
      case 'last_seen': return host.last_seen_ms || null;
      case 'last_sample': return host.last_sample_ms || null;
      case 'policy': return fleet.policyText(host);
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
      host.credential, this.policyText(host)].some((field) => field && String(field).toLowerCase().includes(needle));
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

// -----------------------------------------------------------------------------------------
// Chart: Chart.js, loaded on first use.

// Chart.js, loaded the first time a chart is shown: the other views do without its 200 KB.
let chartJs = null;
function loadChartJs() {
  if (window.Chart) return Promise.resolve();
  if (!chartJs) {
    chartJs = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = 'chart.min.js';
      script.onload = () => resolve();
      script.onerror = () => {
        chartJs = null;
        reject(new Error('Chart.js did not load (/chart.min.js).'));
      };
      document.head.append(script);
    });
  }
  return chartJs;
}

// A colour of the page's theme (console.css), for the canvas.
function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
// Keeps a dataset's points assignable however the decimation plugin left its `data`.
function setDatasetData(dataset, points) {
  const descriptor = Object.getOwnPropertyDescriptor(dataset, 'data');
  if (descriptor && descriptor.set) {
    dataset.data = points;
  } else {
    Object.defineProperty(dataset, 'data', {value: points, writable: true, configurable: true, enumerable: true});
  }
}

// Paints the canvas with the page's background first, so a PNG looks as the page does.
const backgroundPlugin = {
  id: 'perfhiveBackground',
  beforeDraw(chart) {
    const context = chart.ctx;
    context.save();
    context.globalCompositeOperation = 'destination-over';
    context.fillStyle = cssVar('--bg') || '#fff';
    context.fillRect(0, 0, chart.width, chart.height);
    context.restore();
  },
};

// -----------------------------------------------------------------------------------------
// Chart: a series.

// Colours that read on light and dark backgrounds alike.
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#17becf', '#e377c2',
  '#8c564b', '#bcbd22', '#3b75af', '#ee6677', '#228833', '#aa3377', '#66ccee', '#ccbb44',
  '#e6550d', '#31a354', '#756bb1', '#636363', '#843c39'];

// A series' identity over time: a process by PID and start, a thread by PID and TID, else
// its instance (docs/query_semantics.md).
function seriesKey(series) {
  return [series.host, series.object, series.counter,
    series.identity || (series.instance === undefined ? '' : series.instance)].join('\u0000');
}
function instanceLabel(series) {
  if (series.instance === undefined || series.instance === null) return '';
  let label = series.instance;
  if (series.tid !== undefined && series.tid !== null) {
    label += ' (PID ' + series.pid + ', TID ' + series.tid + ')';
  } else if (series.pid !== undefined && series.pid !== null) {
    label += ' (PID ' + series.pid + ')';
  }
  return label;
}
function lastOf(array) {
  return array.length ? array[array.length - 1] : undefined;
}

// Three times the usual interval between a series' points (its 75th percentile, so that
// Global and Costly samples a few milliseconds apart do not count as usual): a longer one is
// a gap in the line.
function gapLimit(times) {
  if (times.length < 5) return Infinity;
  const steps = [];
  for (let i = 1; i < times.length; i++) steps.push(times[i] - times[i - 1]);
  steps.sort((a, b) => a - b);
  return 3 * Math.max(1, steps[Math.floor(steps.length * 0.75)]);
}

// The legend's figures over the points held: last (and its time), average, minimum, maximum,
// and how many points are shown (gaps left out).
function seriesStats(series) {
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

// -----------------------------------------------------------------------------------------
// Chart: the legend (methods of chartView).

const legendMethods = {
  setScale(series, scale) {
    series.scale = scale;
    const factor = 10 ** scale;
    for (const point of series.points) point.y = point.v === null ? null : point.v * factor;
    if (this.chart) {
      setDatasetData(this.chart.data.datasets[series.index], series.points);
      this.chart.update('none');
    }
    const row = this.legendRows.get(series.key);
    if (row) row.scale.value = String(scale);
    this.saveUrl();
  },

  // perfmon's "Scale Selected Counters": each series' largest value drawn within 0..100.
  scaleToFit() {
    for (const series of this.series) {
      const {max, min} = seriesStats(series);
      const largest = Math.max(Math.abs(max || 0), Math.abs(min || 0));
      const scale = largest > 0 ? Math.max(-7, Math.min(7, Math.floor(Math.log10(100 / largest)))) : 0;
      this.setScale(series, scale);
    }
  },

  renderLegend() {
    $('legend-table').hidden = !this.series.length;
    const tbody = $('legend-table').tBodies[0];
    const focus = focusedKey(tbody);
    tbody.textContent = '';
    this.legendRows = new Map();
    const rows = this.series.slice();
    const key = this.legendSort.key;
    const numeric = this.legendHead.isNumeric(key);
    const statsOf = new Map(rows.map((s) => [s, seriesStats(s)]));
    sortRows(rows, (s, k) => {
      if (k === 'index') return s.index;
      if (k === 'instance') return s.instanceLabel;
      if (k === 'status') return s.lastStatus;
      if (k in statsOf.get(s)) return statsOf.get(s)[k];
      return s[k];
    }, key, numeric, this.legendSort.descending, (a, b) => a.index - b.index);
    this.legendHead.show(key, this.legendSort.descending);
    const fragment = document.createDocumentFragment();
    for (const series of rows) {
      const show = el('input', {type: 'checkbox', 'aria-label': 'Show ' + series.label, 'data-focus': 'show:' + series.key});
      show.checked = !series.hidden;
      show.addEventListener('change', () => {
        series.hidden = !show.checked;
        row.classList.toggle('hidden-series', series.hidden);
        if (this.chart) {
          this.chart.setDatasetVisibility(series.index, show.checked);
          this.chart.update('none');
        }
      });
      const swatch = el('span', {className: 'swatch', 'aria-hidden': 'true'});
      swatch.style.background = series.color;
      const scale = el('select', {'aria-label': 'Scale of ' + series.label, 'data-focus': 'scale:' + series.key});
      for (let n = 7; n >= -7; n--) scale.append(el('option', {value: String(n), text: scaleLabel(n)}));
      scale.value = String(series.scale);
      scale.addEventListener('change', () => this.setScale(series, Number(scale.value)));
      const cells = {
        last: el('td', {className: 'num'}),
        mean: el('td', {className: 'num'}),
        min: el('td', {className: 'num'}),
        max: el('td', {className: 'num'}),
        status: el('td', {className: 'mono small'}),
      };
      const row = el('tr', {'data-key': series.key, 'data-path': series.path, 'data-index': String(series.index)},
          el('td', null, show),
          el('td', {title: 'Series ' + (series.index + 1)}, swatch, el('span', {className: 'visually-hidden', text: series.color})),
          el('td', {text: series.host}),
          el('td', {text: series.object}),
          el('td', {text: series.instanceLabel}),
          el('td', {text: series.counter, title: series.path}),
          el('td', null, scale),
          cells.last, cells.mean, cells.min, cells.max, cells.status);
      row.classList.toggle('hidden-series', series.hidden);
      fragment.append(row);
      this.legendRows.set(series.key, {row, cells, scale});
    }
    tbody.append(fragment);
    this.updateLegendValues(statsOf);
    restoreFocus(tbody, focus);
  },

  updateLegendValues(known) {
    for (const series of this.series) {
      const entry = this.legendRows.get(series.key);
      if (!entry) continue;
      const stats = (known && known.get(series)) || seriesStats(series);
      const {cells, row} = entry;
      cells.last.textContent = formatValue(stats.last);
      cells.mean.textContent = formatValue(stats.mean);
      cells.min.textContent = formatValue(stats.min);
      cells.max.textContent = formatValue(stats.max);
      cells.last.title = stats.lastTime ? formatFullTime(stats.lastTime) : '';
      cells.status.textContent = series.lastStatus;
      cells.status.classList.toggle('status-bad', !statusIsValid(series.lastStatus));
      // Exact figures for scripts and tests.
      row.dataset.last = stats.last === null ? '' : String(stats.last);
      row.dataset.lastMs = stats.lastTime === null ? '' : String(stats.lastTime);
      row.dataset.points = String(stats.points);
    }
  },
};

// -----------------------------------------------------------------------------------------
// Chart.

// The preset windows, and the steps that time ticks fall on.
const RANGES = {'5m': 5 * 60000, '1h': 3600000, '24h': 86400000};
const TIME_STEPS = [1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000,
  1800000, 3600000, 7200000, 10800000, 21600000, 43200000, 86400000];

const chartView = {
  name: 'chart',
  paths: [],
  range: '5m',
  from: null,
  to: null,
  live: false,
  urlScales: [],
  fit: false,
  series: [],
  byKey: new Map(),
  chart: null,
  controller: null,
  liveTimer: 0,
  legendSort: {key: 'index', descending: false},
  legendRows: new Map(),
  // renderLegend, updateLegendValues, setScale and scaleToFit.
  ...legendMethods,

  init() {
    for (const button of document.querySelectorAll('#view-chart [data-range]')) {
      button.addEventListener('click', () => this.setRange(button.dataset.range));
    }
    $('chart-live').addEventListener('click', () => {
      this.live = !this.live;
      this.saveUrl();
      this.updateToolbar();
      if (this.live) {
        this.load();
      } else {
        clearTimeout(this.liveTimer);
      }
    });
    $('chart-custom').addEventListener('submit', (event) => {
      event.preventDefault();
      const from = new Date($('chart-from').value).getTime();
      const to = new Date($('chart-to').value).getTime();
      if (!Number.isFinite(from) || !Number.isFinite(to) || from >= to) {
        this.showError('The custom range needs a "from" before its "to".');
        return;
      }
      this.range = 'custom';
      this.from = from;
      this.to = to;
      this.live = false;
      this.saveUrl();
      this.updateToolbar();
      this.load();
    });
    $('chart-path-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const path = $('chart-path').value.trim();
      if (path) this.addPaths([path], $('chart-path'));
    });
    $('chart-fit').addEventListener('click', () => this.scaleToFit());
    $('chart-png').addEventListener('click', () => this.downloadPng());
    this.legendHead = new SortableHead($('legend-table'), (key, numeric) => {
      this.legendSort = nextSort(this.legendSort, key, numeric);
      this.renderLegend();
    });
  },

  enter(params) {
    this.paths = params.getAll('path').filter((path) => path.trim() !== '');
    this.range = params.get('range') || '5m';
    if (this.range !== 'custom' && !RANGES[this.range]) this.range = '5m';
    this.from = Number(params.get('from')) || null;
    this.to = Number(params.get('to')) || null;
    if (this.range === 'custom' && !(this.from && this.to)) this.range = '5m';
    this.live = params.get('live') === '1' && this.range !== 'custom';
    this.urlScales = (params.get('scale') || '').split(',').map((text) =>
      text.trim() === '' || !Number.isFinite(Number(text)) ? null : Math.max(-7, Math.min(7, Math.round(Number(text)))));
    this.fit = params.get('fit') === '1';
    this.hideError();
    this.updateToolbar();
    this.renderChips();
    loadChartJs().catch(() => {});
    this.rememberUrl();
    this.load();
  },
  leave() {
    clearTimeout(this.liveTimer);
    if (this.controller) this.controller.abort();
    if ($('add-dialog').open) $('add-dialog').close();
  },
  // The Chart link on top comes back to the chart as it was left.
  rememberUrl() {
    document.querySelector('[data-nav=chart]').setAttribute('href', this.paths.length ? location.hash : '#/chart');
  },
  saveUrl() {
    this.saveUrlNow();
    this.rememberUrl();
  },
  saveUrlNow() {
    replaceHash('chart', {
      path: this.paths,
      range: this.range,
      from: this.range === 'custom' ? this.from : '',
      to: this.range === 'custom' ? this.to : '',
      live: this.live ? '1' : '',
      scale: this.series.length ? (this.series.some((s) => s.scale !== s.defaultScale) ? this.series.map((s) => s.scale).join(',') : '') :
          this.urlScales.some((s) => s !== null) ? this.urlScales.map((s) => s === null ? '' : s).join(',') : '',
    });
  },

  // The window shown: [from, to] in Unix ms.
  window() {
    if (this.range === 'custom') return {from: this.from, to: this.to};
    const to = Date.now();
    return {from: to - RANGES[this.range], to};
  },
  // The read's time parameters.
  rangeFields() {
    if (this.range === 'custom') {
      const span = this.to - this.from;
      return {from: Math.floor(this.from), to: Math.ceil(this.to), step: span > 6 * 3600000 ? Math.max(10, Math.round(span / 1440000)) + 's' : ''};
    }
    return {from: '-' + this.range, step: this.range === '24h' ? '60s' : ''};
  },

  updateToolbar() {
    for (const button of document.querySelectorAll('#view-chart [data-range]')) {
      button.setAttribute('aria-pressed', String(button.dataset.range === this.range));
    }
    const live = $('chart-live');
    live.setAttribute('aria-pressed', String(this.live));
    live.disabled = this.range === 'custom';
    $('chart-custom').hidden = this.range !== 'custom';
    if (this.range === 'custom' && this.from && this.to) {
      $('chart-from').value = toLocalInput(this.from);
      $('chart-to').value = toLocalInput(this.to);
    }
    const csv = $('chart-csv');
    if (this.paths.length) {
      csv.href = '/api/v1/read.csv?' + queryOf(Object.assign({path: this.paths}, this.rangeFields())).toString();
      csv.removeAttribute('aria-disabled');
    } else {
      csv.removeAttribute('href');
      csv.setAttribute('aria-disabled', 'true');
    }
    $('chart-png').disabled = !this.paths.length;
    $('chart-fit').disabled = !this.paths.length;
  },

  setRange(range) {
    if (range === 'custom') {
      const {from, to} = this.window();
      if (this.range !== 'custom') {
        this.from = Math.floor(from / 1000) * 1000;
        this.to = Math.ceil(to / 1000) * 1000;
      }
      this.range = 'custom';
      this.live = false;
      this.saveUrl();
      this.updateToolbar();
      $('chart-from').focus();
      this.load();
      return;
    }
    this.range = range;
    this.saveUrl();
    this.updateToolbar();
    this.load();
  },

  renderChips() {
    const list = $('chart-paths');
    list.textContent = '';
    for (const path of this.paths) {
      list.append(el('li', null,
          el('code', {className: 'mono', text: path}),
          el('button', {type: 'button', 'aria-label': 'Remove ' + path, title: 'Remove this path', text: '×',
            onclick: () => this.removePath(path)})));
    }
    $('chart-empty').hidden = this.paths.length > 0;
    $('chart-empty').parentElement.classList.toggle('empty', !this.paths.length);
  },

  removePath(path) {
    this.paths = this.paths.filter((p) => p !== path);
    this.urlScales = [];
    this.series = [];
    this.saveUrl();
    this.renderChips();
    this.updateToolbar();
    this.load();
  },

  // Adds paths once the server took them (a bad one shows its error, pointed at).
  async addPaths(paths, focusAfterError) {
    const fresh = paths.filter((path) => !this.paths.includes(path));
    if (!fresh.length) {
      toast('Already on the chart');
      return true;
    }
    try {
      await api('/api/v1/read', {path: fresh, latest: '1'});
    } catch (error) {
      if (error.status === 401) return false;
      this.showError(error.message);
      if (focusAfterError) focusAfterError.focus();
      return false;
    }
    this.hideError();
    this.urlScales = this.series.map((s) => s.scale);
    this.paths = this.paths.concat(fresh);
    this.saveUrl();
    this.renderChips();
    this.updateToolbar();
    $('chart-path').value = '';
    toast(fresh.length === 1 ? 'Added ' + fresh[0] : 'Added ' + fresh.length + ' counter paths');
    await this.load();
    return true;
  },

  showError(message) {
    const box = $('chart-error');
    box.textContent = message;
    box.hidden = false;
  },
  hideError() {
    $('chart-error').hidden = true;
    $('chart-error').textContent = '';
  },
  showWarnings(warnings) {
    showWarningsIn($('chart-warnings'), warnings);
  },

  async load() {
    clearTimeout(this.liveTimer);
    if (this.controller) this.controller.abort();
    if (!this.paths.length) {
      this.series = [];
      this.byKey = new Map();
      this.draw();
      this.renderLegend();
      this.showWarnings([]);
      $('chart-status').textContent = '';
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    $('chart-status').textContent = 'Reading…';
    let answer;
    try {
      answer = await api('/api/v1/read', Object.assign({path: this.paths}, this.rangeFields()), controller.signal);
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error.status !== 401) {
        this.showError(error.message);
        $('chart-status').textContent = '';
      }
      return;
    }
    if (controller !== this.controller) return;
    this.hideError();
    this.takeAnswer(answer);
    if (this.fit) {
      this.fit = false;
      this.scaleToFit();
    }
    if (this.live) this.liveTimer = setTimeout(() => this.poll(), 2000);
  },

  // Replaces every series with the answer's.
  takeAnswer(answer) {
    // A series drawn before keeps the scale it had.
    const scales = new Map(this.series.map((series) => [series.key, series.scale]));
    this.series = [];
    this.byKey = new Map();
    for (const raw of answer.series || []) this.addSeries(raw, scales.get(seriesKey(raw)));
    this.showWarnings(answer.warnings);
    this.draw();
    this.renderLegend();
    this.saveUrl();
  },

  addSeries(raw, kept) {
    const index = this.series.length;
    const fromUrl = kept !== undefined ? kept : this.urlScales[index];
    const series = {
      key: seriesKey(raw),
      index,
      host: raw.host,
      object: raw.object,
      counter: raw.counter,
      instance: raw.instance,
      pid: raw.pid,
      tid: raw.tid,
      path: raw.path,
      instanceLabel: instanceLabel(raw),
      defaultScale: Number.isFinite(raw.default_scale) ? raw.default_scale : 0,
      scale: 0,
      color: PALETTE[index % PALETTE.length],
      hidden: false,
      points: [],
      lastStatus: raw.last_status || '',
    };
    series.scale = fromUrl !== null && fromUrl !== undefined ? fromUrl : series.defaultScale;
    series.label = series.host + ' ' + series.object + (series.instanceLabel ? '(' + series.instanceLabel + ')' : '') + ' ' + series.counter;
    series.gapMs = gapLimit(raw.times || []);
    this.appendPoints(series, raw, -Infinity);
    this.series.push(series);
    this.byKey.set(series.key, series);
    return series;
  },

  // Adds the answer's points newer than `after`; returns how many.
  appendPoints(series, raw, after) {
    const times = raw.times || [];
    const values = raw.values || [];
    const statuses = raw.statuses || [];
    const factor = 10 ** series.scale;
    const points = series.points;
    let added = 0;
    let previous = points.length ? points[points.length - 1].x : -Infinity;
    for (let i = 0; i < times.length; i++) {
      const x = Number(times[i]);
      if (!(x > after)) continue;
      // Samples missing (a host down, an agent stopped): the line breaks, as perfmon's does.
      if (x - previous > series.gapMs && Number.isFinite(previous)) points.push({x: previous + 1, y: null, v: null, s: undefined, gap: true});
      previous = x;
      const v = values[i] === null || values[i] === undefined ? null : Number(values[i]);
      points.push({x, y: v === null ? null : v * factor, v, s: statuses[i]});
      added++;
    }
    if (added) {
      const status = lastOf(series.points).s;
      series.lastStatus = status === undefined ? raw.last_status || '' : statusName(status);
    }
    return added;
  },

  datasetOf(series) {
    return {
      label: series.label,
      data: series.points,
      borderColor: series.color,
      backgroundColor: series.color,
      // One pixel: Skia draws hairlines about ten times faster than wider lines without a GPU.
      borderWidth: 1,
      pointRadius: series.points.length <= 3 ? 3 : 0,
      pointHoverRadius: 4,
      pointHitRadius: 4,
      spanGaps: false,
      tension: 0,
      hidden: series.hidden,
      indexAxis: 'x',
    };
  },

  chartColors() {
    return {grid: cssVar('--chart-grid'), text: cssVar('--chart-text'), border: cssVar('--border')};
  },

  // Builds or updates the Chart.js chart from this.series.
  draw() {
    const canvas = $('chart-canvas');
    const empty = !this.paths.length && !this.series.length;
    $('chart-empty').hidden = !empty;
    canvas.parentElement.classList.toggle('empty', empty);
    if (!window.Chart) {
      loadChartJs().then(() => {
        if (window.Chart && state.currentView === this) this.draw();
      }, (error) => {
        $('chart-status').textContent = error.message;
      });
      return;
    }
    const {from, to} = this.window();
    const colors = this.chartColors();
    if (!this.chart) {
      this.chart = new window.Chart(canvas, {
        type: 'line',
        data: {datasets: []},
        options: {
          animation: false,
          parsing: false,
          normalized: true,
          spanGaps: false,
          responsive: true,
          maintainAspectRatio: false,
          resizeDelay: 50,
          interaction: {mode: 'nearest', intersect: false},
          elements: {point: {radius: 0}, line: {borderWidth: 1, tension: 0}},
          scales: {
            x: {
              type: 'linear',
              min: from,
              max: to,
              grid: {color: colors.grid, borderColor: colors.border},
              ticks: {color: colors.text, maxRotation: 0, autoSkip: true, callback: (value) => this.tickLabel(value)},
              afterBuildTicks: (axis) => {
                axis.ticks = this.timeTicks(axis.min, axis.max, axis.width);
              },
            },
            y: {
              beginAtZero: true,
              grid: {color: colors.grid, borderColor: colors.border},
              ticks: {color: colors.text},
            },
          },
          plugins: {
            legend: {display: false},
            // Largest-triangle-three-buckets down to about one point per pixel column once a
            // series has more points than the canvas is wide. Invalid points (null) are kept
            // as LTTB finds them: a gap narrower than a pixel may be drawn through.
            decimation: {enabled: true, algorithm: 'lttb', threshold: 1000, samples: 1000},
            tooltip: {
              mode: 'nearest',
              intersect: false,
              callbacks: {
                title: (items) => items.length ? formatFullTime(items[0].parsed.x) : '',
                label: (item) => this.tooltipLabel(item),
              },
            },
          },
        },
        plugins: [backgroundPlugin],
      });
    }
    const chart = this.chart;
    chart.options.scales.x.min = from;
    chart.options.scales.x.max = to;
    this.fitDecimation();
    chart.data.datasets = this.series.map((series) => this.datasetOf(series));
    chart.update('none');
    const points = this.series.reduce((sum, s) => sum + s.points.length, 0);
    $('chart-status').textContent = this.series.length ?
        this.series.length + (this.series.length === 1 ? ' series, ' : ' series, ') + points.toLocaleString('en-US') + ' points' +
        (this.live ? ' · live, every 2 s' : '') : (this.paths.length ? 'Nothing selected in this range.' : '');
  },

  // One point per pixel column of the plot, whatever the window's width.
  fitDecimation() {
    const decimation = this.chart.options.plugins.decimation;
    const width = Math.max(200, Math.round(this.chart.chartArea ? this.chart.chartArea.width : this.chart.width));
    decimation.samples = width;
    decimation.threshold = Math.round(width * 1.5);
  },

  tooltipLabel(item) {
    const series = this.series[item.datasetIndex];
    if (!series) return '';
    const point = item.raw || {};
    let text = series.label + ': ' + formatExact(point.v);
    if (series.scale !== 0) text += '  (drawn ×' + scaleLabel(series.scale) + ')';
    if (point.s !== undefined && point.s !== 0) text += '  ' + statusName(point.s);
    return text;
  },

  // Ticks at round local times, about one per 110 pixels.
  timeTicks(min, max, width) {
    const span = max - min;
    if (!(span > 0)) return [{value: min}];
    const wanted = Math.max(2, Math.floor((width || 800) / 110));
    const step = TIME_STEPS.find((s) => span / s <= wanted) || Math.ceil(span / wanted / 86400000) * 86400000;
    this.tickStep = step;
    const offset = -new Date(min).getTimezoneOffset() * 60000;  // local time, for whole hours and days
    const ticks = [];
    for (let t = Math.ceil((min + offset) / step) * step - offset; t <= max; t += step) ticks.push({value: t});
    return ticks;
  },
  tickLabel(value) {
    const d = new Date(value);
    const time = this.tickStep < 60000 ? pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) :
        pad(d.getHours()) + ':' + pad(d.getMinutes());
    const {from, to} = this.window();
    if (to - from > 20 * 3600000 && (d.getHours() === 0 && d.getMinutes() === 0 || this.tickStep >= 86400000)) {
      return [pad(d.getMonth() + 1) + '-' + pad(d.getDate()), time];
    }
    return time;
  },

  // Live: asks for what is newer than the points held and slides the window.
  async poll() {
    if (!this.live || state.currentView !== this) return;
    const controller = new AbortController();
    this.controller = controller;
    let newest = -Infinity;
    for (const series of this.series) {
      const last = lastOf(series.points);
      if (last && last.x > newest) newest = last.x;
    }
    // The oldest last point among the series that are still going (a host 30 s behind the
    // newest is asked for too; one that stopped long ago is not).
    let from = newest;
    for (const series of this.series) {
      const last = lastOf(series.points);
      if (last && last.x < from && last.x >= newest - 30000) from = last.x;
    }
    const fields = Object.assign({path: this.paths}, this.rangeFields());
    if (Number.isFinite(from)) fields.from = Math.floor(from);
    try {
      const answer = await api('/api/v1/read', fields, controller.signal);
      if (controller !== this.controller || !this.live) return;
      this.merge(answer);
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error.status === 401) return;
      $('chart-status').textContent = 'Live: ' + error.message;
    }
    if (this.live && state.currentView === this) this.liveTimer = setTimeout(() => this.poll(), 2000);
  },

  merge(answer) {
    let newSeries = false;
    for (const raw of answer.series || []) {
      const key = seriesKey(raw);
      let series = this.byKey.get(key);
      if (!series) {
        series = this.addSeries(raw);
        newSeries = true;
        continue;
      }
      const last = lastOf(series.points);
      this.appendPoints(series, raw, last ? last.x : -Infinity);
    }
    // Slide: keep one point left of the window so the lines enter from its edge.
    const {from} = this.window();
    for (const series of this.series) {
      let drop = 0;
      while (drop + 1 < series.points.length && series.points[drop + 1].x < from) drop++;
      if (drop) series.points.splice(0, drop);
    }
    // A poll's warnings are left out: hosts that stopped have nothing new, which is no news.
    if (newSeries) {
      this.draw();
      this.renderLegend();
      this.saveUrl();
      return;
    }
    const chart = this.chart;
    if (!chart) return;
    const {to} = this.window();
    chart.options.scales.x.min = from;
    chart.options.scales.x.max = to;
    this.fitDecimation();
    this.series.forEach((series, i) => {
      const dataset = chart.data.datasets[i];
      setDatasetData(dataset, series.points);
      dataset.pointRadius = series.points.length <= 3 ? 3 : 0;
    });
    chart.update('none');
    this.updateLegendValues();
    const points = this.series.reduce((sum, s) => sum + s.points.length, 0);
    $('chart-status').textContent = this.series.length + ' series, ' + points.toLocaleString('en-US') + ' points · live, every 2 s';
  },

  downloadPng() {
    if (!this.chart) return;
    const link = el('a', {href: this.chart.toBase64Image('image/png'), download: 'perfhive-chart.png'});
    document.body.append(link);
    link.click();
    link.remove();
  },

  applyTheme() {
    if (!this.chart) return;
    const colors = this.chartColors();
    const scales = this.chart.options.scales;
    for (const axis of [scales.x, scales.y]) {
      axis.grid.color = colors.grid;
      axis.grid.borderColor = colors.border;
      axis.ticks.color = colors.text;
    }
    this.chart.update('none');
  },

  // The benchmark hook: draws an /api/v1/read answer and times it.
  renderSeries(answer) {
    if (!window.Chart || state.currentView !== this) throw new Error('open #/chart first, and wait for Chart.js');
    clearTimeout(this.liveTimer);
    if (this.controller) this.controller.abort();
    this.live = false;
    let latest = -Infinity;
    let earliest = Infinity;
    for (const s of answer.series || []) {
      if (s.times && s.times.length) {
        latest = Math.max(latest, Number(lastOf(s.times)));
        earliest = Math.min(earliest, Number(s.times[0]));
      }
    }
    if (Number.isFinite(latest)) {
      this.range = 'custom';
      this.from = earliest;
      this.to = latest;
    }
    this.paths = [...new Set((answer.series || []).map((s) => s.path))].slice(0, 1);
    this.urlScales = [];
    const start = performance.now();
    this.series = [];
    this.byKey = new Map();
    for (const raw of answer.series || []) this.addSeries(raw);
    this.draw();
    this.chart.ctx.getImageData(0, 0, 1, 1);  // the drawing done, not only queued
    const ms = performance.now() - start;
    this.renderLegend();
    this.updateToolbar();
    return {ms, datasets: this.chart.data.datasets.length, points: this.series.reduce((n, s) => n + s.points.length, 0)};
  },
};

// -----------------------------------------------------------------------------------------
// Add counters: perfmon's dialog.

const addDialog = {
  hosts: [],
  objects: [],
  counters: [],
  instances: [],
  browseHost: '',
  controller: null,
  generation: 0,

  init() {
    const dialog = $('add-dialog');
    $('chart-add').addEventListener('click', () => this.open());  // the chart view's button
    $('add-cancel').addEventListener('click', () => dialog.close());
    $('add-ok').addEventListener('click', () => this.add());
    $('add-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.add();
    });
    let hostTimer = 0;
    $('add-host').addEventListener('input', () => {
      clearTimeout(hostTimer);
      hostTimer = setTimeout(() => this.hostChanged(), 300);
      this.preview();
    });
    $('add-host').addEventListener('change', () => {
      clearTimeout(hostTimer);
      this.hostChanged();
    });
    $('add-detail').addEventListener('change', () => this.loadObjects());
    $('add-object').addEventListener('change', () => this.objectChanged());
    const counters = $('add-counters');
    const explain = () => this.explainCounter();
    counters.addEventListener('change', () => {
      explain();
      this.preview();
    });
    counters.addEventListener('keyup', explain);
    counters.addEventListener('click', explain);
    counters.addEventListener('focus', explain);
    $('add-all-counters').addEventListener('change', () => {
      counters.disabled = $('add-all-counters').checked;
      this.preview();
    });
    $('add-instances').addEventListener('change', () => this.preview());
  },

  async open() {
    const dialog = $('add-dialog');
    $('add-error').hidden = true;
    if (!dialog.open) dialog.showModal();
    try {
      const answer = await api('/api/v1/hosts');
      this.hosts = (answer.hosts || []).map((h) => h.name).sort(collator.compare);
    } catch (error) {
      this.hosts = [];
    }
    const list = $('add-host-list');
    list.textContent = '';
    list.append(el('option', {value: '*', text: 'every host'}));
    for (const host of this.hosts) list.append(el('option', {value: host}));
    const input = $('add-host');
    if (!input.value) {
      const first = chartView.series[0];
      input.value = first ? first.host : this.hosts[0] || '';
    }
    this.hostChanged();
    input.focus();
    input.select();
  },

  hostChanged() {
    const typed = $('add-host').value.trim();
    let browse = typed;
    if (hasWildcard(typed)) {
      const pattern = globRegExp(typed);
      browse = this.hosts.find((host) => pattern.test(host)) || '';
    }
    const note = $('add-browse-host');
    if (!typed) {
      note.textContent = '';
    } else if (hasWildcard(typed)) {
      note.textContent = browse ? 'Objects, counters and instances as ' + browse + ' has them; the paths name ' + typed + '.' :
          'No host matches ' + typed + '.';
    } else {
      note.textContent = '';
    }
    if (browse === this.browseHost && this.objects.length) {
      this.preview();
      return;
    }
    this.browseHost = browse;
    this.loadObjects();
  },

  fail(error) {
    if (error.name === 'AbortError') return;
    $('add-error').textContent = error.message;
    $('add-error').hidden = false;
  },

  async loadObjects() {
    const select = $('add-object');
    const previous = select.value;
    select.textContent = '';
    this.objects = [];
    $('add-error').hidden = true;
    if (!this.browseHost) {
      this.objectChanged();
      return;
    }
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    let objects = [];
    try {
      const answer = await api('/api/v1/objects', {host: this.browseHost, detail: $('add-detail').value}, controller.signal);
      objects = (answer.objects || []).slice().sort((a, b) => collator.compare(a.name, b.name));
    } catch (error) {
      this.fail(error);
    }
    if (controller !== this.controller) return;  // a newer host or detail level
    this.objects = objects;
    for (const object of this.objects) {
      select.append(el('option', {value: object.name, text: object.name}));
    }
    const keep = this.objects.find((o) => o.name === previous) || this.objects.find((o) => o.name === 'Processor') || this.objects[0];
    if (keep) select.value = keep.name;
    this.objectChanged();
  },

  currentObject() {
    return this.objects.find((o) => o.name === $('add-object').value) || null;
  },

  async objectChanged() {
    const generation = ++this.generation;
    const object = this.currentObject();
    const help = $('add-object-help');
    help.textContent = object ? object.help || '(no explain text)' : '';
    const counters = $('add-counters');
    const instances = $('add-instances');
    counters.textContent = '';
    instances.textContent = '';
    this.counters = [];
    this.instances = [];
    $('add-counter-help').textContent = '';
    $('add-instances-note').textContent = '';
    if (!object) {
      this.preview();
      return;
    }
    const signal = this.controller ? this.controller.signal : undefined;
    const fields = {host: this.browseHost, object: object.name};
    let counterList = [];
    let instanceList = [];
    try {
      const [counterAnswer, instanceAnswer] = await Promise.all([
        api('/api/v1/counters', Object.assign({detail: $('add-detail').value}, fields), signal),
        object.instances === -1 ? Promise.resolve({instances: []}) : api('/api/v1/instances', fields, signal),
      ]);
      counterList = counterAnswer.counters || [];
      instanceList = instanceAnswer.instances || [];
    } catch (error) {
      this.fail(error);
    }
    if (generation !== this.generation) return;  // another object or detail level since
    this.counters = counterList;
    this.instances = instanceList;
    for (const counter of this.counters) {
      counters.append(el('option', {value: counter.name, text: counter.name}));
    }
    if (counters.options.length) counters.options[0].selected = true;
    if (object.instances === -1) {
      instances.disabled = true;
      $('add-instances-note').textContent = object.name + ' has no instances.';
    } else {
      instances.disabled = false;
      instances.append(el('option', {value: '*', text: '* (all instances)'}));
      for (const instance of this.instances) {
        let text = instance.name;
        if (instance.tid !== undefined) {
          text += '  (PID ' + instance.pid + ', TID ' + instance.tid + ')';
        } else if (instance.pid !== undefined) {
          text += '  (PID ' + instance.pid + ')';
        }
        instances.append(el('option', {value: instance.name, text}));
      }
      instances.options[0].selected = true;
      $('add-instances-note').textContent = this.instances.length + ' instances now' +
          (object.name === 'Process' || object.name === 'Thread' ? '; a path names one by its name, PIDs are shown for reference.' : '.');
    }
    this.explainCounter();
    this.preview();
  },

  explainCounter() {
    const select = $('add-counters');
    const chosen = select.selectedOptions.length ? select.selectedOptions[select.selectedOptions.length - 1] : null;
    const counter = chosen && this.counters.find((c) => c.name === chosen.value);
    const box = $('add-counter-help');
    box.textContent = '';
    if (!counter) return;
    const meta = [counter.type_name || counter.type, counter.unit ? 'unit ' + counter.unit : '',
      'detail ' + counter.detail, 'default scale ' + (counter.default_scale || 0) + ' (×' + scaleLabel(counter.default_scale || 0) + ')'].filter(Boolean).join(' · ');
    box.append(el('strong', {text: counter.name}), el('span', {className: 'meta', text: meta}),
        document.createTextNode(counter.help || '(no explain text)'));
  },

  paths() {
    const typed = $('add-host').value.trim();
    const object = this.currentObject();
    if (!typed || !object) return [];
    const machine = hasWildcard(typed) ? typed : escapeMachine(typed);
    const counters = $('add-all-counters').checked ? ['*'] :
        [...$('add-counters').selectedOptions].map((o) => escapeCounter(o.value));
    let instances = [null];
    if (object.instances !== -1) {
      const chosen = [...$('add-instances').selectedOptions].map((o) => o.value);
      instances = chosen.includes('*') ? ['*'] : chosen.map(escapeInstance);
    }
    const paths = [];
    for (const instance of instances) {
      for (const counter of counters) paths.push(counterPath(machine, escapeObject(object.name), instance, counter));
    }
    return paths;
  },

  preview() {
    const paths = this.paths();
    $('add-preview').textContent = paths.length ? (paths.length > 4 ? paths.slice(0, 4).join('   ') + '   … (' + paths.length + ')' : paths.join('   ')) : '—';
    $('add-ok').disabled = !paths.length;
  },

  async add() {
    const paths = this.paths();
    if (!paths.length) return;
    $('add-error').hidden = true;
    const ok = await chartView.addPaths(paths, null);
    if (ok) {
      $('add-dialog').close();
      $('chart-add').focus();
    } else {
      $('add-error').textContent = $('chart-error').textContent;
      $('add-error').hidden = !$('add-error').textContent;
    }
  },
};

// -----------------------------------------------------------------------------------------
// Processes and threads: one read of the latest values, joined by instance identity.

// A table of the newest value of several counters per instance: one row per instance of the
// newest sample (an instance that was gone by then is left out). With `accept`, only the
// series it accepts.
function joinLatest(answer, columns, accept) {
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

// -----------------------------------------------------------------------------------------
// Processes.

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

const processes = {
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
  async load() {
    clearTimeout(this.timer);
    if (!this.host) {
      $('processes-error').textContent = 'No host: open one from the fleet.';
      $('processes-error').hidden = false;
      return;
    }
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    const machine = escapeMachine(this.host);
    const paths = Object.values(PROCESS_COUNTERS).map((counter) => counterPath(machine, 'Process', '*', counter));
    try {
      const answer = await api('/api/v1/read', {path: paths, latest: '1'}, controller.signal);
      if (controller !== this.controller) return;
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
    } catch (error) {
      if (error.name === 'AbortError') return;
      $('processes-error').textContent = error.message;
      $('processes-error').hidden = false;
    }
    if (state.currentView === this) this.timer = setTimeout(() => this.load(), 3000);
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

// -----------------------------------------------------------------------------------------
// Threads.

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

const threads = {
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
  async load() {
    clearTimeout(this.timer);
    if (!this.host) return;
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    // Threads name their process without its #index: "svchost/3" for every svchost.
    const parent = this.process ? escapeInstancePart(this.process.replace(/#\d+$/, '')) : '*';
    const machine = escapeMachine(this.host);
    const paths = Object.values(THREAD_COUNTERS).map((counter) => counterPath(machine, 'Thread', parent + '/*', counter));
    try {
      const columns = {};
      for (const [column, counter] of Object.entries(THREAD_COUNTERS)) columns[counter.toLowerCase()] = column;
      const accept = (series) => this.pid === null || Number(series.pid) === this.pid;
      // latest=1 reads the newest two samples of each query: Thread's are Costly ones.
      const answer = await api('/api/v1/read', {path: paths, latest: '1'}, controller.signal);
      if (controller !== this.controller) return;
      const {rows, sampleMs} = joinLatest(answer, columns, accept);
      for (const row of rows) {
        if (row.tid === undefined && Number.isFinite(row.values.tidValue)) row.tid = row.values.tidValue;
      }
      this.rows = rows;
      this.sampleMs = sampleMs;
      showWarningsIn($('threads-warnings'), answer.warnings);
      $('threads-error').hidden = true;
      this.render();
    } catch (error) {
      if (error.name === 'AbortError') return;
      $('threads-error').textContent = error.message;
      $('threads-error').hidden = false;
    }
    if (state.currentView === this) this.timer = setTimeout(() => this.load(), 3000);
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

// -----------------------------------------------------------------------------------------
// Start.

views.fleet = fleet;
views.chart = chartView;
views.processes = processes;
views.threads = threads;

// A module runs once the page is parsed, before DOMContentLoaded: the listener keeps the order
// the console has always started in, whichever way this file is loaded.
document.addEventListener('DOMContentLoaded', () => {
  initTheme(() => chartView.applyTheme());
  fleet.init();
  chartView.init();
  addDialog.init();
  processes.init();
  threads.init();
  initLoginForm();
  window.addEventListener('hashchange', route);
  start();
});

window.perfhiveConsole = {
  renderSeries: (answer) => chartView.renderSeries(answer),
  renderFleet(answer) {
    fleet.frozen = true;
    fleet.leave();
    const start = performance.now();
    fleet.show(answer);
    void document.body.offsetHeight;  // style and layout of the new rows
    return performance.now() - start;
  },
  chart: () => chartView.chart,
};
