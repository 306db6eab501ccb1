// perfhive's web console: Performance Monitor for the whole fleet. This module starts it.
//
// One page, plain JavaScript modules, no build step. perfhive-server serves them (with Debian's
// Chart.js at /chart.min.js) and the JSON API they read (docs/http_api.md). Every view is a
// URL, so it can be bookmarked and shared:
//
//   #/fleet?filter=role=web&group=site&sort=last_seen&desc=1
//                                                   every host and its health, by selector,
//                                                   pattern or text, grouped by a label
//                                                   (fleet_view.js)
//   #/chart?path=P&path=P2&range=5m|1h|24h|custom&from=MS&to=MS&live=1&scale=N,N,...&fit=1
//                                                   a line chart of what the paths select
//                                                   (chart_view.js, add_counters_dialog.js)
//   #/groups?path=P&select=S&by=K&range=1h&stat=mean&group=G
//                                                   a counter across hosts, grouped, combined per
//                                                   step and ranked (groups_view.js)
//   #/processes?host=H&sort=cpu&desc=1             one host's processes, as Task Manager shows
//                                                   them (processes_view.js)
//   #/threads?host=H&pid=N&name=INSTANCE           one process's threads (threads_view.js)
//   #/alerts?rule=R&series=S                       what the server's rules found, firing first,
//                                                   an alert's chart, and the rules
//                                                   (alerts_view.js)
//   #/health?pattern=P&select=S&since=24h&peers_by=K
//                                                   the fleet's counter health: what hosts lack,
//                                                   lost or fail to collect, as `perfhive health`
//                                                   lists it (health_view.js)
//
// The shared parts: api.js (the JSON API), router.js (URLs and views), state.js (the session
// and the view shown), login.js, theme.js (theme_early.js applies it before the first paint),
// dom.js, format.js, sort.js, sortable_head.js, table_rows.js, counter_path.js,
// host_pattern.js, pdh_status.js, latest_values.js, chart_library.js, chart_series.js,
// chart_marks.js (thresholds and intervals drawn over a chart), chart_thresholds.js (the rules'
// thresholds on the chart view), counter_path_pattern.js, alerts_answer.js, health_answer.js.
//
// Hook for benchmarks and tests (tests/browser/console_bench.py):
//   window.perfhiveConsole.renderSeries(readAnswer)  draws an /api/v1/read answer on the chart
//       view (open #/chart first) and returns {ms, datasets, points}: the time to build the
//       datasets and draw them, with the canvas flushed (getImageData), by performance.now().
//   window.perfhiveConsole.renderFleet(hostsAnswer)  shows an /api/v1/hosts answer in the fleet
//       view (open #/fleet first; polling stops) and returns the time to build the table and
//       lay it out, in ms.
//   window.perfhiveConsole.chart()                    the Chart.js chart, or null.
//   window.perfhiveConsole.renderAlerts(alertsAnswer) shows an /api/v1/alerts answer in the alerts
//       view (open #/alerts first; polling stops).
//   window.perfhiveConsole.renderHealth(healthAnswer) shows an /api/v1/health answer in the health
//       view (open #/health first; polling stops).

import {addDialog} from './add_counters_dialog.js';
import {alertsView} from './alerts_view.js';
import {chartView} from './chart_view.js';
import {fleet} from './fleet_view.js';
import {groupsView} from './groups_view.js';
import {healthView} from './health_view.js';
import {initLoginForm, start} from './login.js';
import {processes} from './processes_view.js';
import {route, views} from './router.js';
import {initTheme} from './theme.js';
import {threads} from './threads_view.js';

views.fleet = fleet;
views.chart = chartView;
views.groups = groupsView;
views.processes = processes;
views.threads = threads;
views.alerts = alertsView;
views.health = healthView;

// A module runs once the page is parsed, before DOMContentLoaded: the listener keeps the order
// the console has always started in, whichever way this file is loaded.
document.addEventListener('DOMContentLoaded', () => {
  initTheme(() => {
    chartView.applyTheme();
    alertsView.applyTheme();
  });
  fleet.init();
  chartView.init();
  groupsView.init();
  addDialog.init();
  processes.init();
  threads.init();
  alertsView.init();
  healthView.init();
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
  renderAlerts: (answer) => alertsView.render(answer),
  renderHealth: (answer) => healthView.render(answer),
};
