// Chart.js (Debian's, served by perfhive-server at /chart.min.js) and what the chart view adds to
// it: the loader, the theme's colours for the canvas, and the background plugin.

// Chart.js, loaded the first time a chart is shown: the other views do without its 200 KB.
let chartJs = null;
export function loadChartJs() {
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
export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
// Keeps a dataset's points assignable however the decimation plugin left its `data`.
export function setDatasetData(dataset, points) {
  const descriptor = Object.getOwnPropertyDescriptor(dataset, 'data');
  if (descriptor && descriptor.set) {
    dataset.data = points;
  } else {
    Object.defineProperty(dataset, 'data', {value: points, writable: true, configurable: true, enumerable: true});
  }
}

// The options the console's small line charts share (the groups' and an alert's): no animation,
// points given parsed, a linear time axis from `from` to `to` whose ticks `xTicks` adds to (given
// the theme's text colour), the theme's colours, no legend, and a tooltip naming the exact time
// and the dataset's value as `formatY` writes it.
export function lineChartOptions(from, to, xTicks, formatY, formatTitle) {
  const text = cssVar('--chart-text');
  const grid = cssVar('--chart-grid');
  return {
    animation: false,
    parsing: false,
    responsive: true,
    maintainAspectRatio: false,
    interaction: {mode: 'nearest', intersect: false},
    elements: {point: {radius: 0}, line: {borderWidth: 1, tension: 0}},
    scales: {
      x: Object.assign({type: 'linear', min: from, max: to, grid: {color: grid}}, xTicks(text)),
      y: {beginAtZero: true, grid: {color: grid}, ticks: {color: text}},
    },
    plugins: {
      legend: {display: false},
      tooltip: {callbacks: {title: (items) => items.length ? formatTitle(items[0].parsed.x) : '',
        label: (item) => item.dataset.label + ': ' + formatY(item.parsed.y)}},
    },
  };
}

// Paints the canvas with the page's background first, so a PNG looks as the page does.
export const backgroundPlugin = {
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
