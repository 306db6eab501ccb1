// The chart's legend: a row per series with its colour, a Show box, its scale and its last,
// average, minimum and maximum. These are methods of the chart view (chart_view.js mixes them
// in), so `this` is the chart view: the legend shows its series and changes its chart.

import {setDatasetData} from './chart_library.js';
import {seriesStats} from './chart_series.js';
import {$, el} from './dom.js';
import {formatFullTime, formatValue, scaleLabel} from './format.js';
import {statusIsValid} from './pdh_status.js';
import {sortRows} from './sort.js';
import {focusedKey, restoreFocus} from './table_rows.js';

export const legendMethods = {
  setScale(series, scale) {
    series.scale = scale;
    const factor = 10 ** scale;
    for (const point of series.points) point.y = point.v === null ? null : point.v * factor;
    if (this.chart) {
      setDatasetData(this.chart.data.datasets[series.index], series.points);
      this.applyThresholds();  // a rule's threshold is drawn at its series' scale
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
