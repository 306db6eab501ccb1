// Marks over a chart's lines: alerting rules' thresholds as dashed horizontal lines labelled
// with the rule, an alert's interval (while its condition held) shaded, and instants (when it
// began firing, when it resolved) as vertical lines. A Chart.js plugin rather than datasets, so
// that the marks follow the axes as they change (live mode slides the window, a series' scale
// changes) and never show in the legend, the tooltips or the decimation.
//
//   chart.perfhiveMarks = {lines: [{value, label, color}], bands: [{from, to, color}],
//                          instants: [{at, label, color}]}
//
// After each draw, chart.perfhiveMarksDrawn lists the lines drawn, {label, value, y} with y the
// pixel row (null when the value is off the plot), and the bands, {from, to, left, right}: what
// a test needs to know that a line is on the canvas, where its value is.

import {cssVar} from './chart_library.js';

function marksOf(chart) {
  const marks = chart.perfhiveMarks || {};
  return {lines: marks.lines || [], bands: marks.bands || [], instants: marks.instants || []};
}

// The colour a mark is drawn in: its own, else the theme's.
const colorOf = (mark, variable) => mark.color || cssVar(variable);

export const marksPlugin = {
  id: 'perfhiveMarks',
  // Bands under the series' lines.
  beforeDatasetsDraw(chart) {
    const {bands} = marksOf(chart);
    const area = chart.chartArea;
    const x = chart.scales.x;
    const drawn = [];
    const context = chart.ctx;
    context.save();
    for (const band of bands) {
      const left = Math.max(area.left, x.getPixelForValue(band.from));
      const right = Math.min(area.right, x.getPixelForValue(band.to));
      drawn.push({from: band.from, to: band.to, left, right});
      if (!(right > left)) continue;
      context.fillStyle = colorOf(band, '--held-band');
      context.fillRect(left, area.top, right - left, area.bottom - area.top);
    }
    context.restore();
    chart.perfhiveBandsDrawn = drawn;
  },
  // Lines and instants over them, each labelled.
  afterDatasetsDraw(chart) {
    const {lines, instants} = marksOf(chart);
    const area = chart.chartArea;
    const context = chart.ctx;
    const drawn = [];
    context.save();
    context.lineWidth = 1.5;
    context.font = '11px system-ui, sans-serif';
    for (const line of lines) {
      const y = chart.scales.y.getPixelForValue(line.value);
      const inside = Number.isFinite(y) && y >= area.top - 0.5 && y <= area.bottom + 0.5;
      drawn.push({label: line.label, value: line.value, y: inside ? y : null});
      if (!inside) continue;
      const color = colorOf(line, '--threshold');
      context.strokeStyle = color;
      context.setLineDash([6, 4]);
      context.beginPath();
      context.moveTo(area.left, y);
      context.lineTo(area.right, y);
      context.stroke();
      // The label above the line, or below it when the line is at the top of the plot.
      context.setLineDash([]);
      context.fillStyle = color;
      context.textAlign = 'right';
      context.textBaseline = y - area.top < 14 ? 'top' : 'bottom';
      context.fillText(line.label, area.right - 4, y - area.top < 14 ? y + 3 : y - 3);
    }
    for (const instant of instants) {
      const x = chart.scales.x.getPixelForValue(instant.at);
      if (!(x >= area.left && x <= area.right)) continue;
      const color = colorOf(instant, '--threshold');
      context.strokeStyle = color;
      context.setLineDash([2, 3]);
      context.beginPath();
      context.moveTo(x, area.top);
      context.lineTo(x, area.bottom);
      context.stroke();
      context.setLineDash([]);
      context.fillStyle = color;
      context.textAlign = 'left';
      context.textBaseline = 'top';
      context.fillText(instant.label, x + 3, area.top + 2);
    }
    context.restore();
    chart.perfhiveMarksDrawn = {lines: drawn, bands: chart.perfhiveBandsDrawn || []};
  },
};

// Sets a chart's marks, and has its y axis take in every line's value, so that a threshold far
// above the values is still seen (with beginAtZero, a line below them is in view anyway).
export function setMarks(chart, marks) {
  chart.perfhiveMarks = marks;
  const values = (marks.lines || []).map((line) => line.value).filter(Number.isFinite);
  const y = chart.options.scales.y;
  y.suggestedMax = values.length ? Math.max(...values) : undefined;
  y.suggestedMin = values.length ? Math.min(...values) : undefined;
}
