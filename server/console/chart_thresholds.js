// The alerting rules' thresholds on the chart view: a rule whose path selects a series on the
// chart (its object, instance and counter; the machine is left out, since a rule names its hosts
// apart, by selector) has its threshold drawn as a dashed line labelled with the rule, at that
// series' scale, and listed under the chart. The rules are asked for once per load of the chart,
// not at each live poll: they change when their file does. A server without rules draws none.
// These are methods of the chart view (chart_view.js mixes them in), as chart_legend.js's are.

import {fetchAlerts, thresholdLabel} from './alerts_answer.js';
import {setMarks} from './chart_marks.js';
import {parsePathPattern, patternSelects} from './counter_path_pattern.js';
import {$, el} from './dom.js';
import {scaleLabel} from './format.js';

export const thresholdMethods = {
  // [{rule, pattern}]: the rules with a threshold and a path this console can read.
  rules: [],

  // Never fails but for an abort: the chart does without the rules it cannot have.
  async loadRules(signal) {
    try {
      const answer = await fetchAlerts(signal);
      this.rules = answer.rules
          .filter((rule) => Number.isFinite(rule.threshold))
          .map((rule) => ({rule, pattern: parsePathPattern(rule.path)}))
          .filter((entry) => entry.pattern);
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      this.rules = [];
    }
  },

  // A line per rule and scale of the series its path selects (a rule over series drawn at two
  // scales has two lines, each where the threshold is for those series).
  thresholdLines() {
    const lines = [];
    for (const {rule, pattern} of this.rules) {
      const selected = this.series.filter((series) => patternSelects(pattern, series));
      for (const scale of new Set(selected.map((series) => series.scale))) {
        lines.push({
          rule: rule.name,
          value: rule.threshold * 10 ** scale,
          label: thresholdLabel(rule) + (scale ? ' (drawn ×' + scaleLabel(scale) + ')' : ''),
          series: selected.filter((series) => series.scale === scale).length,
          hosts: rule.hosts || '',
        });
      }
    }
    return lines;
  },

  // Puts the lines on the chart (before its update) and lists them under it.
  applyThresholds() {
    const lines = this.thresholdLines();
    if (this.chart) setMarks(this.chart, {lines});
    const note = $('chart-thresholds');
    note.textContent = '';
    note.hidden = !lines.length;
    if (!lines.length) return;
    note.append('Thresholds: ');
    lines.forEach((line, i) => {
      if (i) note.append('; ');
      // The rule's hosts are said here: the line is drawn over its path's series whatever their host.
      note.append(el('a', {href: '#/alerts', 'data-rule': line.rule, text: line.label,
        title: 'The rule ' + line.rule + ', over ' + line.series + ' series on this chart; its alerts are in the Alerts view'}));
      if (line.hosts) note.append(' (hosts ', el('code', {text: line.hosts}), ')');
    });
  },
};
