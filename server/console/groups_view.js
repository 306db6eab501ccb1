// The groups view: the fleet's questions about many hosts at once.
//
//   #/groups?path=P&select=S&by=K&range=5m|1h|24h&stat=mean|max|p95|last&group=G
//
// A counter's series grouped (by counter, host, a label, instance or process name) and combined
// per step on the server (docs/query_semantics.md, "The fleet"): each group's average as a line
// in the band from its minimum to its maximum, and its p95 dashed; the groups ranked by a
// statistic of their average; the ten member series ranked by the same statistic; and a
// group's members drawn instead of its aggregate (`group`).

import {api} from './api.js';
import {backgroundPlugin, lineChartOptions, loadChartJs} from './chart_library.js';
import {PALETTE} from './chart_series.js';
import {$, escapeHtml, showWarningsIn} from './dom.js';
import {formatFullTime, formatValue} from './format.js';
import {replaceHash} from './router.js';
import {renderRows} from './table_rows.js';

const RANGES = {'5m': 5 * 60000, '1h': 3600000, '24h': 86400000};
// About 120 steps a range, each a step people read easily.
const STEPS = [1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000];
const TOP = 10;

function stepFor(rangeMs) {
  return STEPS.find((step) => step >= rangeMs / 120) || STEPS[STEPS.length - 1];
}
// The figure a series is ranked by: a statistic, or its last valid value.
function figureOf(series, stat) {
  if (stat === 'last') {
    for (let k = series.values.length - 1; k >= 0; k--) {
      if (series.values[k] !== null) return series.values[k];
    }
    return null;
  }
  const stats = series.statistics;
  return stats && stats.count > 0 ? stats[stat] : null;
}
// The selector term that narrows a read to one group's members.
function memberSelector(by, group) {
  if (by === 'host') return 'host=' + group;
  if (by === 'instance' || by === 'process' || by === '' || by === 'counter') return '';
  return (by.startsWith('label:') ? by.slice(6) : by) + '=' + group;
}

export const groupsView = {
  name: 'groups',
  fields: {path: '', select: '', by: 'host', range: '1h', stat: 'mean', group: ''},
  chart: null,
  controller: null,
  request: null,

  init() {
    $('groups-form').addEventListener('submit', (event) => {
      event.preventDefault();
      for (const name of ['path', 'select', 'by', 'range', 'stat']) {
        this.fields[name] = $('groups-' + name).value.trim();
      }
      this.fields.group = '';
      this.saveUrl();
      this.load();
    });
    $('groups-back').addEventListener('click', () => this.showGroup(''));
  },
  enter(params) {
    for (const name of Object.keys(this.fields)) {
      const value = params.get(name);
      if (value !== null) this.fields[name] = value;
    }
    if (!RANGES[this.fields.range]) this.fields.range = '1h';
    for (const name of ['path', 'select', 'by', 'range', 'stat']) {
      $('groups-' + name).value = this.fields[name];
    }
    this.load();
  },
  leave() {
    if (this.controller) this.controller.abort();
  },
  saveUrl() {
    replaceHash('groups', this.fields);
  },
  showGroup(group) {
    this.fields.group = group;
    this.saveUrl();
    this.load();
  },
  showError(message) {
    $('groups-error').textContent = message;
    $('groups-error').hidden = !message;
  },

  // The reads behind the view, all over the same range and steps: the groups' aggregates (or
  // one group's members), and the top member series.
  async load() {
    const {path, select, by, range, stat, group} = this.fields;
    $('groups-back').hidden = !group;
    $('groups-title').textContent = group ? 'Members of ' + group : 'Groups';
    if (!path) {
      this.showError('Type a counter path, e.g. \\\\*\\Processor(_Total)\\% Processor Time.');
      return;
    }
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    const to = Date.now();
    const step = stepFor(RANGES[range]);
    // Whole steps, so that every host's boundaries are the same instants.
    const from = Math.floor((to - RANGES[range]) / step) * step;
    const narrowed = [select, group ? memberSelector(by, group) : ''].filter((s) => s).join(',');
    const common = {path, from, to, step: step / 1000 + 's', statistics: '1'};
    this.request = group ?
        {...common, select: narrowed} :
        {...common, select, aggregate: 'avg,min,max,p95', group_by: by};
    $('view-groups').dataset.request = JSON.stringify(this.request);
    try {
      const [shown, top] = await Promise.all([
        api('/api/v1/read', this.request, controller.signal),
        api('/api/v1/read', {...common, select: narrowed, top: TOP, rank_by: stat}, controller.signal),
      ]);
      if (controller.signal.aborted) return;
      this.showError('');
      showWarningsIn($('groups-warnings'), shown.warnings);
      await this.draw(shown.series, from, to, Boolean(group));
      this.renderGroups(group ? [] : shown.series);
      this.renderTop(top.series);
      $('groups-status').textContent = 'Steps of ' + formatValue(step / 1000) + ' s from ' +
          formatFullTime(from) + ' to ' + formatFullTime(to) + '.';
    } catch (error) {
      if (error.name === 'AbortError') return;
      this.showError(error.message);
    }
  },

  // Each group's average in its min–max band with its p95 dashed; or each member's line.
  async draw(series, from, to, members) {
    await loadChartJs();
    const datasets = [];
    const points = (one) => one.times.map((t, k) => ({x: t, y: one.values[k]}));
    if (members) {
      series.forEach((one, i) => datasets.push({label: one.path, data: points(one),
        borderColor: PALETTE[i % PALETTE.length], backgroundColor: PALETTE[i % PALETTE.length]}));
    } else {
      const groups = new Map();
      for (const one of series) {
        const key = one.aggregate.group;
        if (!groups.has(key)) groups.set(key, {});
        groups.get(key)[one.aggregate.function] = one;
      }
      [...groups.values()].forEach((functions, i) => {
        const color = PALETTE[i % PALETTE.length];
        if (functions.min && functions.max) {
          datasets.push({label: functions.min.path, data: points(functions.min), borderWidth: 0,
            borderColor: 'transparent', pointRadius: 0, fill: false});
          datasets.push({label: functions.max.path, data: points(functions.max), borderWidth: 0,
            borderColor: 'transparent', backgroundColor: color + '33', pointRadius: 0, fill: '-1'});
        }
        if (functions.avg) {
          datasets.push({label: functions.avg.path, data: points(functions.avg), borderColor: color,
            backgroundColor: color, borderWidth: 2});
        }
        if (functions.p95) {
          datasets.push({label: functions.p95.path, data: points(functions.p95), borderColor: color,
            backgroundColor: color, borderDash: [6, 4], borderWidth: 1});
        }
      });
    }
    if (this.chart) this.chart.destroy();
    this.chart = new window.Chart($('groups-canvas'), {
      type: 'line',
      data: {datasets},
      options: lineChartOptions(from, to, (text) => ({
        ticks: {color: text, maxRotation: 0, callback: (value) => formatFullTime(value).slice(11, 19)},
      }), formatValue, formatFullTime),
      plugins: [backgroundPlugin],
    });
  },

  // The groups, ranked by the chosen statistic of their average.
  renderGroups(series) {
    const stat = this.fields.stat;
    const averages = series.filter((one) => one.aggregate.function === 'avg');
    const ranked = averages.map((one) => ({one, figure: figureOf(one, stat)}))
        .sort((a, b) => (b.figure ?? -Infinity) - (a.figure ?? -Infinity));
    $('groups-table').hidden = ranked.length === 0;
    renderRows($('groups-table').tBodies[0], ranked.map(({one, figure}, i) => {
      const stats = one.statistics || {};
      return {
        key: one.aggregate.group,
        open: '<tr data-group="' + escapeHtml(one.aggregate.group) + '" data-path="' +
            escapeHtml(one.path) + '" data-figure="' + (figure ?? '') + '">',
        cells: ['<td class="num">' + (i + 1) + '</td>',
          '<td>' + escapeHtml(one.aggregate.group || '(all)') + '</td>',
          '<td class="num">' + one.aggregate.members + '</td>',
          '<td class="num">' + (figure === null ? '—' : formatValue(figure)) + '</td>',
          '<td class="num">' + (stats.count ? formatValue(stats.max) : '—') + '</td>',
          '<td><button type="button" data-focus="members-' + escapeHtml(one.aggregate.group) +
              '" data-members="' + escapeHtml(one.aggregate.group) + '">Members</button></td>'],
      };
    }));
    for (const button of $('groups-table').querySelectorAll('[data-members]')) {
      button.onclick = () => this.showGroup(button.dataset.members);
    }
  },

  // The member series with the highest statistic, best first, as the server ranked them.
  renderTop(series) {
    const stat = this.fields.stat;
    renderRows($('groups-top').tBodies[0], series.map((one, i) => {
      const figure = figureOf(one, stat);
      return {
        key: one.path,
        open: '<tr data-path="' + escapeHtml(one.path) + '" data-figure="' + (figure ?? '') + '">',
        cells: ['<td class="num">' + (i + 1) + '</td>', '<td>' + escapeHtml(one.host) + '</td>',
          '<td class="mono">' + escapeHtml(one.path) + '</td>',
          '<td class="num">' + (figure === null ? '—' : formatValue(figure)) + '</td>'],
      };
    }));
  },
};
