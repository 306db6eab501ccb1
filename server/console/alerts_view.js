// The alerts view (#/alerts?rule=R&series=S): what the server's rules (perfhive-server --rules,
// docs/alerts.md) found, firing first, then pending, then resolved, polled every 5 s; the chosen
// alert's series over its window, with its rule's threshold dashed and the time its condition
// held shaded; and the rules themselves, each with the hosts that lack its counters. A rules file
// that failed to reload is said on top, since the rules shown are then not the file's.

import {conditionText, fetchAlerts, isActive, ruleOf, sortAlerts, thresholdLabel} from './alerts_answer.js';
import {api} from './api.js';
import {marksPlugin, setMarks} from './chart_marks.js';
import {backgroundPlugin, cssVar, lineChartOptions, loadChartJs} from './chart_library.js';
import {PALETTE, gapLimit, instanceLabel} from './chart_series.js';
import {timeTickLabel, timeTicks} from './chart_time_axis.js';
import {$, el, escapeHtml} from './dom.js';
import {formatExact, formatFullTime, formatInteger, formatSpan, formatTime, formatValue} from './format.js';
import {pollRead} from './polled_read.js';
import {hashFor} from './router.js';
import {state} from './state.js';
import {renderRows} from './table_rows.js';

const POLL_MS = 5000;
// An alert's chart starts its rule's `for` before the alert became active, and has this much
// more on both sides: a minute, or a tenth of the window when that is longer.
const MARGIN_FLOOR_MS = 60000;

const keyOf = (alert) => alert.rule + '\u0000' + alert.series;
// A rule's hosts as a selector for /api/v1/read: a bare name pattern means host=PATTERN.
const selectorOf = (hosts) => !hosts ? '' : hosts.includes('=') ? hosts : 'host=' + hosts;
// Steps of about 1,440 points for a long window, as the chart view reads a custom range.
const stepOf = (span) => span > 6 * 3600000 ? Math.max(10, Math.round(span / 1440000)) + 's' : '';

export const alertsView = {
  name: 'alerts',
  answer: null,
  // {rule, series} of the alert whose chart is shown, from the URL.
  selected: null,
  timer: 0,
  controller: null,
  chartController: null,
  chart: null,
  // The alert the chart was made for, and its window's span (for the time axis' labels).
  chartAlert: '',
  chartSpan: 0,
  // The alert and window the chart holds: a resolved alert's window no longer moves, so it is
  // read once rather than at every poll.
  charted: '',
  frozen: false,

  init() {},
  enter(params) {
    this.frozen = false;
    const rule = params.get('rule');
    const series = params.get('series');
    this.selected = rule !== null && series !== null ? {rule, series} : null;
    this.charted = '';
    if (this.answer) this.show(this.answer);
    this.load();
  },
  leave() {
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
    if (this.chartController) this.chartController.abort();
  },

  load() {
    return pollRead(this, {
      read: (signal) => fetchAlerts(signal),
      shown: (answer) => {
        $('alerts-error').hidden = true;
        this.show(answer);
      },
      failed: (error) => {
        $('alerts-error').textContent = 'Cannot list the alerts: ' + error.message;
        $('alerts-error').hidden = false;
      },
      pollMs: POLL_MS,
    });
  },

  // Shows an /api/v1/alerts answer: the reload error, the alerts, the chosen one's chart and the
  // rules.
  show(answer) {
    this.answer = answer;
    const reload = $('alerts-reload-error');
    // The server keeps the rules it read before (the error names the file, line and column).
    reload.textContent = answer.reload_error ? 'The rules file was not read again: ' + answer.reload_error +
        '. The rules below are those read before, in force until it is mended.' : '';
    reload.hidden = !answer.reload_error;
    $('alerts-source').textContent = answer.rules_file ?
        'Rules from ' + answer.rules_file + (answer.interval_ms ? ', evaluated every ' + formatSpan(answer.interval_ms) : '') + '.' : '';
    this.renderAlerts(answer);
    this.renderRules(answer);
    this.showChart(answer);
  },

  renderAlerts(answer) {
    const alerts = sortAlerts(answer.alerts);
    const counts = {firing: 0, pending: 0, resolved: 0};
    for (const alert of alerts) counts[alert.state] = (counts[alert.state] || 0) + 1;
    $('alerts-count').textContent = alerts.length ?
        counts.firing + ' firing, ' + counts.pending + ' pending, ' + counts.resolved + ' resolved' : '';
    // Nothing to worry about: say why, whether or not resolved alerts are still listed.
    const empty = $('alerts-empty');
    empty.textContent = '';
    if (!alerts.some(isActive)) {
      if (answer.rules_file) {
        empty.append('Nothing pending or firing.');
      } else {
        empty.append('No rules: start the server with ', el('code', {text: '--rules FILE'}),
            ' (docs/alerts.md).');
      }
    }
    empty.hidden = !empty.childNodes.length;
    $('alerts-table').hidden = !alerts.length;
    const selected = this.selected ? keyOf(this.selected) : '';
    renderRows($('alerts-table').tBodies[0], alerts.map((alert) => this.alertRow(alert, keyOf(alert) === selected)));
  },

  // An alert's row, for renderRows; its series opens its chart.
  alertRow(alert, selected) {
    const key = keyOf(alert);
    const summary = (alert.annotations || {}).summary || '';
    const description = (alert.annotations || {}).description || '';
    const value = Number.isFinite(alert.value) ? alert.value : null;
    const stateTitle = alert.state === 'resolved' && alert.resolved_ms ? 'resolved at ' + formatFullTime(alert.resolved_ms) : '';
    const link = hashFor('alerts', {rule: alert.rule, series: alert.series});
    // The link's focus key, without the row key's NUL (which HTML turns into U+FFFD).
    const focus = 's:' + encodeURIComponent(alert.rule) + ' ' + encodeURIComponent(alert.series);
    return {
      key,
      open: '<tr class="alert-' + escapeHtml(alert.state) + (selected ? ' selected' : '') + '" data-rule="' +
          escapeHtml(alert.rule) + '" data-state="' + escapeHtml(alert.state) + '" data-series="' + escapeHtml(alert.series) +
          '" data-host="' + escapeHtml(alert.host || '') + '" data-value="' + (value === null ? '' : String(value)) + '">',
      cells: [
        '<td><span class="state-badge state-' + escapeHtml(alert.state) + '"' + (stateTitle ? ' title="' + escapeHtml(stateTitle) + '"' : '') +
            '>' + escapeHtml(alert.state) + '</span></td>',
        '<td>' + escapeHtml(alert.rule) + '</td>',
        '<td><span class="severity severity-' + escapeHtml(alert.severity || '') + '">' + escapeHtml(alert.severity || '') + '</span></td>',
        '<td class="mono"><a href="' + escapeHtml(link) + '" data-focus="' + escapeHtml(focus) + '"' +
            (selected ? ' aria-current="true"' : '') + ' title="Chart this series over the alert\'s window">' +
            escapeHtml(alert.series) + '</a></td>',
        '<td title="' + escapeHtml(formatFullTime(alert.active_since_ms)) + '">' + formatTime(alert.active_since_ms) + '</td>',
        '<td title="' + escapeHtml(formatFullTime(alert.firing_since_ms)) + '">' + formatTime(alert.firing_since_ms) + '</td>',
        '<td class="num" title="' + escapeHtml(formatExact(value)) + '">' + formatValue(value) + '</td>',
        '<td class="summary"' + (description ? ' title="' + escapeHtml(description) + '"' : '') + '>' + escapeHtml(summary) + '</td>',
      ],
    };
  },

  renderRules(answer) {
    // A reason's list stays open across refreshes, though its text changes (it says since when).
    const tbody = $('rules-table').tBodies[0];
    const open = new Set([...tbody.querySelectorAll('details[open]')].map((details) => details.closest('tr').dataset.rule));
    renderRows(tbody, answer.rules.map((rule) => {
      const missing = rule.missing || [];
      return {
        key: rule.name,
        open: '<tr data-rule="' + escapeHtml(rule.name) + '" data-checked="' + (rule.series_checked ?? '') +
            '" data-missing="' + missing.length + '"' + (rule.error ? ' class="rule-failed"' : '') + '>',
        cells: [
          '<td>' + escapeHtml(rule.name) + '</td>',
          '<td class="mono"><a href="' + escapeHtml(this.ruleChart(rule)) + '" title="Chart ' +
              (rule.aggregate ? 'its groups' : 'its path') + ' over the last hour">' +
              escapeHtml(rule.aggregate ? rule.aggregate + '(' + rule.path + ')' : rule.path) + '</a>' +
              (rule.step_ms ? ' <span class="muted">step ' + formatSpan(rule.step_ms) + '</span>' : '') + '</td>',
          '<td class="mono">' + escapeHtml(conditionText(rule)) + '</td>',
          '<td>' + (rule.hosts ? '<code>' + escapeHtml(rule.hosts) + '</code>' : '<span class="muted">every host</span>') + '</td>',
          '<td class="num">' + formatInteger(rule.series_checked) + '</td>',
          '<td title="' + escapeHtml(formatFullTime(rule.last_evaluation_ms)) + '">' +
              (rule.last_evaluation_ms ? formatTime(rule.last_evaluation_ms) : 'not yet') + '</td>',
          '<td class="wrap">' + this.missingHtml(missing) + '</td>',
          '<td class="error-cell wrap">' + escapeHtml(rule.error || '') + '</td>',
        ],
      };
    }));
    for (const row of tbody.rows) {
      const details = row.querySelector('details');
      if (details && open.has(row.dataset.rule)) details.open = true;
    }
  },

  // The hosts lacking a rule's counters: how many, opening onto the server's reason for each (a
  // line per host and path, in the words a read explains them with, which name the host where
  // the sentence needs it rather than in one place).
  missingHtml(missing) {
    if (!missing.length) return '';
    return '<details><summary>' + missing.length + (missing.length === 1 ? ' host' : ' hosts') +
        '</summary><ul class="missing">' + missing.map((entry) => '<li>' + escapeHtml(entry) + '</li>').join('') +
        '</ul></details>';
  },

  // Where a rule's series are charted: its path on the chart, an aggregate's groups on Groups.
  ruleChart(rule) {
    if (rule.aggregate) {
      return hashFor('groups', {path: rule.path, select: selectorOf(rule.hosts), by: rule.by || 'counter',
        range: '1h', stat: 'max'});
    }
    return hashFor('chart', {path: rule.path, range: '1h'});
  },

  // The window an alert is charted over, in Unix ms.
  windowOf(alert, rule) {
    const now = Date.now();
    const start = alert.active_since_ms - ((rule && rule.for_ms) || 0);
    const end = alert.resolved_ms || now;
    const margin = Math.max(MARGIN_FLOOR_MS, (end - start) / 10);
    return {from: Math.floor(start - margin), to: Math.ceil(alert.resolved_ms ? Math.min(now, end + margin) : now)};
  },

  // The read that gives an alert's series: the series itself, or its rule's aggregate over the
  // rule's hosts, at the rule's step.
  readOf(alert, rule, from, to) {
    if (!alert.host && rule && rule.aggregate) {
      const step = rule.step_ms || Math.max(1000, Math.round((to - from) / 120000) * 1000);
      return {path: rule.path, select: selectorOf(rule.hosts), aggregate: rule.aggregate,
        group_by: rule.by, step: step / 1000 + 's', from: Math.floor(from / step) * step, to};
    }
    return {path: alert.series, from, to, step: stepOf(to - from)};
  },

  showChart(answer) {
    const alert = this.selected && answer.alerts.find((one) => keyOf(one) === keyOf(this.selected));
    $('alerts-chart-part').hidden = !this.selected;
    if (!this.selected) return;
    if (!alert) {
      // A resolved alert the server has forgotten: its chart stays as it was.
      $('alerts-chart-status').textContent = 'The server no longer lists this alert.';
      if (!this.charted) $('alerts-chart-title').textContent = this.selected.rule + ' on ' + this.selected.series;
      return;
    }
    const rule = ruleOf(answer, alert);
    const {from, to} = this.windowOf(alert, rule);
    const charted = keyOf(alert) + '\u0000' + alert.state + '\u0000' + (alert.resolved_ms ? to : '');
    if (alert.resolved_ms && charted === this.charted) return;
    this.readChart(alert, rule, from, to, charted);
  },

  async readChart(alert, rule, from, to, charted) {
    if (this.chartController) this.chartController.abort();
    const controller = new AbortController();
    this.chartController = controller;
    const request = this.readOf(alert, rule, from, to);
    let read;
    try {
      [read] = await Promise.all([api('/api/v1/read', request, controller.signal), loadChartJs()]);
    } catch (error) {
      if (error.name === 'AbortError') return;
      $('alerts-chart-error').textContent = error.message;
      $('alerts-chart-error').hidden = false;
      return;
    }
    if (controller !== this.chartController) return;
    $('alerts-chart-error').hidden = true;
    // An aggregate's read answers every group: the alert's is the one of its path.
    let series = read.series || [];
    if (request.aggregate) {
      const same = series.filter((one) => one.path === alert.series);
      series = same.length ? same : series.slice(0, 1);
    }
    $('alerts-chart-title').textContent = alert.rule + ' on ' + alert.series;
    this.drawChart(alert, rule, series, from, to);
    // The read behind the chart shown, for tests.
    $('view-alerts').dataset.request = JSON.stringify(request);
    $('alerts-chart-status').textContent = series.length ?
        'From ' + formatTime(from) + ' to ' + formatTime(to) + '; shaded: ' +
        (alert.state === 'resolved' ? 'while its condition held' : 'since its condition holds') + '.' :
        'Nothing stored for this series in its window.';
    this.charted = charted;
  },

  // The series' lines (broken where samples are missing, as the chart view's are), the rule's
  // threshold, the alert's interval shaded, and when it began firing and resolved.
  drawChart(alert, rule, series, from, to) {
    const datasets = series.map((one, i) => {
      const limit = gapLimit(one.times || []);
      const points = [];
      (one.times || []).forEach((t, k) => {
        if (points.length && t - points[points.length - 1].x > limit) points.push({x: points[points.length - 1].x + 1, y: null});
        points.push({x: t, y: one.values[k]});
      });
      const color = PALETTE[i % PALETTE.length];
      const instance = instanceLabel(one);
      return {label: one.path + (instance && one.pid !== undefined ? ' (PID ' + one.pid + ')' : ''), data: points,
        borderColor: color, backgroundColor: color, borderWidth: 1.5, pointRadius: points.length <= 3 ? 3 : 0,
        spanGaps: false};
    });
    // The same alert's chart is updated in place at each poll, not made anew (which would drop a
    // tooltip being read).
    if (this.chart && this.chartAlert === keyOf(alert)) {
      this.chart.data.datasets = datasets;
      Object.assign(this.chart.options.scales.x, {min: from, max: to});
      this.chartSpan = to - from;
    } else {
      this.makeChart(datasets, from, to);
      this.chartAlert = keyOf(alert);
    }
    const end = alert.resolved_ms || Date.now();
    const instants = [];
    if (alert.firing_since_ms) instants.push({at: alert.firing_since_ms, label: 'firing'});
    if (alert.resolved_ms) instants.push({at: alert.resolved_ms, label: 'resolved'});
    setMarks(this.chart, {
      lines: rule && Number.isFinite(rule.threshold) ? [{value: rule.threshold, label: thresholdLabel(rule)}] : [],
      bands: [{from: alert.active_since_ms, to: end, color: cssVar('--band-' + alert.state) || undefined}],
      instants,
    });
    this.chart.update('none');
  },

  makeChart(datasets, from, to) {
    if (this.chart) this.chart.destroy();
    let tickStep = 60000;
    this.chartSpan = to - from;
    this.chart = new window.Chart($('alerts-canvas'), {
      type: 'line',
      data: {datasets},
      options: lineChartOptions(from, to, (text) => ({
        ticks: {color: text, maxRotation: 0, callback: (value) => timeTickLabel(value, tickStep, this.chartSpan)},
        afterBuildTicks: (axis) => {
          const {ticks, step} = timeTicks(axis.min, axis.max, axis.width);
          if (step) tickStep = step;
          axis.ticks = ticks;
        },
      }), formatExact, formatFullTime),
      plugins: [backgroundPlugin, marksPlugin],
    });
  },

  applyTheme() {
    // The chart's colours are taken when it is made: the next read makes it again.
    this.charted = '';
    this.chartAlert = '';
    if (state.currentView === this && this.answer) this.showChart(this.answer);
  },

  // The tests' hook: shows an answer as if the server had given it, and stops polling.
  render(answer) {
    this.frozen = true;
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
    this.show(Object.assign({rules_file: '', interval_ms: 0, reload_error: '', rules: [], alerts: []}, answer));
  },
};
