// The chart view: Performance Monitor's line graph over any hosts' counters, its time ranges,
// live mode, and the CSV and PNG of what it shows. Its legend is chart_legend.js; the alerting
// rules' thresholds drawn over the series they are about, chart_thresholds.js.
//
//   #/chart?path=P&path=P2&range=5m|1h|24h|custom&from=MS&to=MS&live=1&scale=N,N,...&fit=1

import {api, queryOf} from './api.js';
import {legendMethods} from './chart_legend.js';
import {backgroundPlugin, cssVar, loadChartJs, setDatasetData} from './chart_library.js';
import {marksPlugin} from './chart_marks.js';
import {PALETTE, gapLimit, instanceLabel, lastOf, seriesKey} from './chart_series.js';
import {thresholdMethods} from './chart_thresholds.js';
import {timeTickLabel, timeTicks} from './chart_time_axis.js';
import {$, el, showWarningsIn, toast} from './dom.js';
import {formatExact, formatFullTime, scaleLabel, toLocalInput} from './format.js';
import {statusName} from './pdh_status.js';
import {replaceHash} from './router.js';
import {SortableHead, nextSort} from './sortable_head.js';
import {state} from './state.js';

// The preset windows.
const RANGES = {'5m': 5 * 60000, '1h': 3600000, '24h': 86400000};

export const chartView = {
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
  // loadRules, thresholdLines and applyThresholds.
  ...thresholdMethods,

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
      // The rules with the series, so that their thresholds are drawn with them.
      [answer] = await Promise.all([
        api('/api/v1/read', Object.assign({path: this.paths}, this.rangeFields()), controller.signal),
        this.loadRules(controller.signal),
      ]);
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
        plugins: [backgroundPlugin, marksPlugin],
      });
    }
    const chart = this.chart;
    chart.options.scales.x.min = from;
    chart.options.scales.x.max = to;
    this.fitDecimation();
    chart.data.datasets = this.series.map((series) => this.datasetOf(series));
    this.applyThresholds();
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

  // The axis' ticks (chart_time_axis.js), remembering their step for their labels.
  timeTicks(min, max, width) {
    const {ticks, step} = timeTicks(min, max, width);
    if (step) this.tickStep = step;
    return ticks;
  },
  tickLabel(value) {
    const {from, to} = this.window();
    return timeTickLabel(value, this.tickStep, to - from);
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
