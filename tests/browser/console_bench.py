#!/usr/bin/python3
"""How fast the web console draws, in headless Chromium: run by hand, prints the figures.

    /usr/bin/python3 tests/browser/console_bench.py \\
        --server build/release/server/perfhive-server [--runs 5]

It starts perfhive-server (--insecure, console on a loopback port of its own; no agents) and
measures, with synthetic data:

1. the fleet view with 1,000 hosts from a cold start: the page is loaded with /api/v1/hosts
   answered by a stub in the page (Page.addScriptToEvaluateOnNewDocument) with 1,000 hosts, and
   the time from navigation start to the first frame painted with the 1,000 rows is read (and
   the browser's first-contentful-paint);
2. the fleet view's render of the same answer in a loaded page (window.perfhiveConsole
   .renderFleet): the first rows (shown at once), every row (the rest follow after the next
   frame), and a refresh with new values for the same hosts (only changed cells are replaced);
3. the chart: 20 series of 3,600 points each (one hour at 1 s; a few invalid points) drawn with
   window.perfhiveConsole.renderSeries (building the datasets, Chart.js's update and draw with
   the canvas flushed), and to the next frame; then a redraw of the same chart alone.

Each figure is the median of --runs runs, with the slowest; the first run is also shown
(cold caches). No figure is a pass or fail.
"""

import argparse
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # nothing written beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfhive_cluster  # noqa: E402

HOSTS_STUB = r"""
(() => {
  const now = Date.now();
  const hosts = [];
  for (let i = 0; i < %(hosts)d; i++) {
    const quiet = i %% 37 === 0;
    hosts.push({
      name: (i %% 3 === 0 ? 'web' : i %% 3 === 1 ? 'db' : 'app') + String(i).padStart(4, '0'),
      os: i %% 4 === 0 ? 'Linux' : 'Windows', os_version: i %% 4 === 0 ? '6.1.0-18-amd64' : '10.0.20348',
      source: i %% 10 === 0 ? 'agentless' : 'agent', agent_version: '0.2.0',
      first_seen_ms: now - 86400000, last_seen_ms: now - (quiet ? 600000 : (i %% 10) * 1000),
      last_sample_ms: now - (quiet ? 600000 : (i %% 10) * 1000) - 200,
      snapshots: 8640 + i, stored_bytes: 31457280, refused: i %% 50 === 0 ? 3 : 0,
      last_error: i %% 50 === 0 ? 'snapshot refused: object Process: counter block too short at byte 4120' : '',
      last_error_ms: i %% 50 === 0 ? now - 3600000 : 0, credential: i %% 2 ? 'enrolled' : 'token',
      credential_expires_ms: i %% 2 ? now + 80 * 86400000 : 0,
      plan_revision: '3f2a9c0d1b7e', plan_latest: i %% 20 === 0 ? '4a1b2c3d4e5f' : '3f2a9c0d1b7e', plan_report: ''});
  }
  const answer = JSON.stringify({now_ms: now, hosts});
  const realFetch = window.fetch.bind(window);
  window.fetch = (url, options) => {
    const text = String(url);
    if (text.startsWith('/api/v1/session')) {
      return Promise.resolve(new Response('{"name":"bench","login_required":false}',
          {status: 200, headers: {'Content-Type': 'application/json'}}));
    }
    if (text.startsWith('/api/v1/hosts')) {
      return Promise.resolve(new Response(answer, {status: 200, headers: {'Content-Type': 'application/json'}}));
    }
    return realFetch(url, options);
  };
  // The first frames painted after the table has its first rows, and every row.
  window.__bench = {};
  const watch = new MutationObserver(() => {
    const body = document.querySelector('#fleet-table tbody');
    if (body && body.rows.length > 0 && !window.__bench.firstRows) {
      window.__bench.firstRows = performance.now();
      requestAnimationFrame(() => setTimeout(() => { window.__bench.firstPainted = performance.now(); }, 0));
    }
    if (body && body.rows.length >= %(hosts)d && !window.__bench.rows) {
      window.__bench.rows = performance.now();
      requestAnimationFrame(() => setTimeout(() => { window.__bench.painted = performance.now(); }, 0));
    }
  });
  document.addEventListener('DOMContentLoaded', () => {
    window.__bench.domContentLoaded = performance.now();
    watch.observe(document.getElementById('fleet-table'), {childList: true, subtree: true});
  });
})();
"""

SERIES_SCRIPT = r"""
const seriesCount = arguments[0], points = arguments[1];
const end = Date.now();
const series = [];
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) %% 2147483648) / 2147483648;
for (let s = 0; s < seriesCount; s++) {
  const times = new Array(points), values = new Array(points), statuses = new Array(points);
  let v = 50;
  for (let i = 0; i < points; i++) {
    times[i] = end - (points - 1 - i) * 1000;
    v = Math.max(0, Math.min(100, v + (random() - 0.5) * 8));
    const invalid = i === 0 || (i %% 997 === 0 && s %% 3 === 0);
    values[i] = invalid ? null : v;
    statuses[i] = invalid ? 3221228474 : 0;
  }
  series.push({host: 'web' + String(s %% 5).padStart(2, '0'), object: 'Processor', counter: '%% Processor Time',
    instance: String(s), identity: '', path: '\\\\web' + String(s %% 5).padStart(2, '0') + '\\Processor(' + s + ')\\%% Processor Time',
    counter_type: 558957824, times, values, statuses, last_status: 'PDH_CSTATUS_VALID_DATA'});
}
window.__benchSeries = {series, warnings: []};
"""


def median_line(name, values, unit="ms"):
    return "%-58s median %7.1f %s  (first %.1f, slowest %.1f, %d runs)" % (
        name, statistics.median(values), unit, values[0], max(values), len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--series", type=int, default=20)
    parser.add_argument("--points", type=int, default=3600)
    args = parser.parse_args()

    cluster = perfhive_cluster.Cluster(args.server, None, None, name="bench")
    driver = None
    try:
        cluster.start_server()
        url = cluster.console_url
        driver = perfhive_cluster.start_browser(cluster.scratch)
        driver.set_script_timeout(60)
        version = driver.capabilities.get("browserVersion", "?")
        print("Chromium %s, headless, 1400x900, %d CPUs; perfhive-server at %s" % (
            version, os.cpu_count(), url))

        # 1. Cold start of the fleet view with the stubbed 1,000 hosts.
        stub = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                      {"source": HOSTS_STUB % {"hosts": args.hosts}})
        painted, rows, fcp, dcl, first = [], [], [], [], []
        for _ in range(args.runs):
            driver.get(url + "#/fleet")
            deadline = time.time() + 30
            bench = {}
            while time.time() < deadline:
                bench = driver.execute_script("return window.__bench") or {}
                if bench.get("painted"):
                    break
                time.sleep(0.02)
            if not bench.get("painted"):
                raise SystemExit("the fleet view did not show %d rows" % args.hosts)
            painted.append(bench["painted"])
            first.append(bench["firstPainted"])
            rows.append(bench["rows"])
            dcl.append(bench["domContentLoaded"])
            fcp.append(driver.execute_script(
                "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                "return p ? p.startTime : 0;"))
            driver.get("about:blank")
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                               {"identifier": stub["identifier"]})
        print()
        print("Fleet view, %d hosts, cold page load (ms after navigation start):" % args.hosts)
        print(median_line("  DOMContentLoaded", dcl))
        print(median_line("  first contentful paint", fcp))
        print(median_line("  first frame painted with the first rows", first))
        print(median_line("  table with every row in the DOM", rows))
        print(median_line("  first frame painted with every row", painted))

        # 2. The fleet render alone, in a loaded page.
        driver.get(url + "#/fleet")
        time.sleep(1)
        answer = driver.execute_script(
            "const now = Date.now(); const hosts = [];"
            "for (let i = 0; i < arguments[0]; i++) hosts.push({name: 'web' + String(i).padStart(4, '0'),"
            " os: 'Windows', os_version: '10.0.20348', source: 'agent', agent_version: '0.2.0',"
            " first_seen_ms: now - 86400000, last_seen_ms: now - (i % 37 ? 1000 : 600000),"
            " last_sample_ms: now - 1200, snapshots: 8640 + i, stored_bytes: 1, refused: 0, last_error: '',"
            " last_error_ms: 0, credential: 'enrolled', credential_expires_ms: now + 1e9, plan_revision: 'abc',"
            " plan_latest: 'abc', plan_report: ''});"
            "window.__benchHosts = {now_ms: now, hosts}; return hosts.length;", args.hosts)
        first, first_frame, whole, whole_frame, refresh, refresh_frame = [], [], [], [], [], []
        for _ in range(args.runs):
            result = driver.execute_async_script("""
              const done = arguments[arguments.length - 1];
              const console_ = window.perfhiveConsole;
              const table = document.getElementById('fleet-table');
              const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
              (async () => {
                console_.renderFleet({now_ms: Date.now(), hosts: []});
                await frame();
                const r = {};
                let start = performance.now();
                r.first = console_.renderFleet(window.__benchHosts);
                await frame();
                r.firstFrame = performance.now() - start;
                while (table.getAttribute('aria-busy')) await new Promise((resolve) => setTimeout(resolve, 1));
                void document.body.offsetHeight;
                r.whole = performance.now() - start;
                await frame();
                r.wholeFrame = performance.now() - start;
                // A refresh: the same hosts, each with a new snapshot.
                for (const host of window.__benchHosts.hosts) { host.snapshots++; host.last_seen_ms += 1000; }
                start = performance.now();
                r.refresh = console_.renderFleet(window.__benchHosts);
                await frame();
                r.refreshFrame = performance.now() - start;
                done(r);
              })();""")
            first.append(result["first"])
            first_frame.append(result["firstFrame"])
            whole.append(result["whole"])
            whole_frame.append(result["wholeFrame"])
            refresh.append(result["refresh"])
            refresh_frame.append(result["refreshFrame"])
        print()
        print("Fleet view, %d hosts, in a loaded page (perfhiveConsole.renderFleet; ms from the call):" % answer)
        print(median_line("  first rows built and laid out", first))
        print(median_line("  first frame painted with them", first_frame))
        print(median_line("  every row in and laid out", whole))
        print(median_line("  frame painted with every row", whole_frame))
        print(median_line("  a refresh (new values, same hosts) laid out", refresh))
        print(median_line("  frame painted after the refresh", refresh_frame))

        # 3. The chart.
        driver.get(url + "#/chart")
        time.sleep(1)
        driver.execute_script(SERIES_SCRIPT % {}, args.series, args.points)
        draw, frame, redraw = [], [], []
        info = None
        for _ in range(args.runs):
            info = driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "const start = performance.now();"
                "const r = window.perfhiveConsole.renderSeries(window.__benchSeries);"
                "requestAnimationFrame(() => setTimeout(() => {"
                "  r.frame = performance.now() - start;"
                "  const chart = window.perfhiveConsole.chart();"
                "  const t = performance.now(); chart.update('none'); chart.ctx.getImageData(0, 0, 1, 1);"
                "  r.redraw = performance.now() - t;"
                "  r.drawn = chart.data.datasets.reduce((n, d) => n + d.data.length, 0);"
                "  r.width = chart.width;"
                "  done(r); }, 0));")
            draw.append(info["ms"])
            frame.append(info["frame"])
            redraw.append(info["redraw"])
        print()
        print("Chart, %d series x %d points = %d points (%d drawn after decimation, canvas %d px wide):" % (
            info["datasets"], args.points, info["points"], info["drawn"], info["width"]))
        print(median_line("  datasets built, updated and drawn (renderSeries)", draw))
        print(median_line("  to the next frame painted", frame))
        print(median_line("  redraw alone (chart.update('none'))", redraw))
        driver.get(url + "#/chart")
        driver.save_screenshot(os.path.join(cluster.scratch, "bench.png"))
    finally:
        if driver is not None:
            driver.quit()
        cluster.stop_all()
        cluster.remove()


if __name__ == "__main__":
    main()
