// The health view (#/health?pattern=P&select=S&since=24h&peers_by=K): the fleet's counter health,
// the findings `perfhive health` lists (docs/console.md), in the server's order (those on the most
// hosts first). Each finding is a heading row (its kind, subject, how many of its peers have what
// it lacks, and whether it is new since the span asked for) followed by a row per host: since when,
// its last sample with it, the likely cause, what to do, and when it went and came back. Read
// again every 30 s while shown.

import {$, el, escapeHtml} from './dom.js';
import {formatAgo, formatFullTime, formatTime} from './format.js';
import {fetchHealth, headlineText, isNew, secondsText, subjectText} from './health_answer.js';
import {pollRead} from './polled_read.js';
import {hashFor, replaceHash} from './router.js';
import {renderRows} from './table_rows.js';

const POLL_MS = 30000;
const DEFAULT_SINCE = '24h';
const COLUMNS = 6;
// The form's fields, each named as the URL names it.
const FIELDS = ['pattern', 'select', 'since', 'peers_by'];
const fieldId = (name) => 'health-' + name.replace('_', '-');

const keyOf = (finding) => [finding.kind, finding.object, finding.counter].join('\u0000');
// A link's focus key, without the row key's NUL (which HTML turns into U+FFFD).
const focusOf = (finding, host) => 'h:' + [finding.kind, finding.object, finding.counter, host]
    .map(encodeURIComponent).join(' ');
// Colours: lacking something, unsteady, or failing; the kind is always said in words.
const TONES = {
  'object-missing': 'lacking', 'counter-missing': 'lacking', 'object-lost': 'lacking', 'counter-lost': 'lacking',
  'object-not-returned': 'lacking',
  'object-came-and-went': 'unsteady', 'instance-came-and-went': 'unsteady',
  'unnamed-index': 'unsteady', 'titles-differ': 'unsteady',
  'names-changed': 'unsteady', 'name-duplicated': 'unsteady',
  'collection-error': 'failing', 'provider-disabled': 'failing', 'collection-losses': 'failing',
  'counter-invalid': 'failing', 'slow-object': 'failing',
};

// A time as the table shows it: the time, and how long before the report's time.
function timeCell(ms, at) {
  if (ms === null || ms === undefined) return '<td>—</td>';
  return '<td title="' + escapeHtml(formatFullTime(ms)) + '">' + formatTime(ms) + ' <span class="muted">(' +
      formatAgo(ms, at) + ')</span></td>';
}

export const healthView = {
  name: 'health',
  fields: {pattern: '', select: '', since: DEFAULT_SINCE, peers_by: ''},
  answer: null,
  // The fields the answer shown was asked with.
  shownFields: '',
  timer: 0,
  controller: null,
  frozen: false,

  init() {
    $('health-form').addEventListener('submit', (event) => {
      event.preventDefault();
      for (const name of FIELDS) this.fields[name] = $(fieldId(name)).value.trim();
      if (!this.fields.since) this.fields.since = DEFAULT_SINCE;
      $(fieldId('since')).value = this.fields.since;
      replaceHash('health', this.fields);
      this.frozen = false;
      this.load();
    });
  },
  enter(params) {
    this.frozen = false;
    for (const name of FIELDS) this.fields[name] = params.get(name) || '';
    if (!this.fields.since) this.fields.since = DEFAULT_SINCE;
    for (const name of FIELDS) $(fieldId(name)).value = this.fields[name];
    // Findings asked for with other fields are not shown meanwhile.
    if (this.answer && this.shownFields !== JSON.stringify(this.fields)) this.show(null, this.fields);
    this.load();
  },
  leave() {
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
  },

  load() {
    const fields = {...this.fields};
    return pollRead(this, {
      read: (signal) => fetchHealth(fields, signal),
      shown: (answer) => {
        $('health-error').hidden = true;
        this.show(answer, fields);
      },
      failed: (error) => {
        $('health-error').textContent = 'Cannot report the counter health: ' + error.message;
        $('health-error').hidden = false;
        // Findings for other fields would pass for these: only a failed refresh keeps them.
        if (this.shownFields !== JSON.stringify(fields)) this.show(null, fields);
      },
      pollMs: POLL_MS,
    });
  },

  // Shows an /api/v1/health answer (null: none, after an error) asked with `fields`.
  show(answer, fields) {
    this.answer = answer;
    this.shownFields = JSON.stringify(fields);
    const view = $('view-health');
    const findings = answer ? answer.findings : [];
    const checked = answer ? answer.hosts.length : 0;
    const fresh = answer ? findings.filter((finding) => isNew(finding, answer)).length : 0;
    // What the test compares with `perfhive health` run for the same time and span.
    view.dataset.atMs = answer ? answer.at_ms : '';
    view.dataset.fromMs = answer ? answer.from_ms : '';
    view.dataset.hosts = answer ? JSON.stringify(answer.hosts) : '';
    $('health-count').textContent = !answer ? '' :
        findings.length + (findings.length === 1 ? ' finding' : ' findings') + ' on ' + checked +
        (checked === 1 ? ' host' : ' hosts') + ' checked, ' + fresh + ' new';
    const source = $('health-source');
    source.textContent = '';
    if (answer) {
      source.append('As of ', el('time', {title: formatFullTime(answer.at_ms), text: formatTime(answer.at_ms)}),
          '; new since ', el('time', {title: formatFullTime(answer.from_ms), text: formatTime(answer.from_ms)}),
          ' (' + fields.since + ').');
    }
    const empty = $('health-empty');
    empty.textContent = !answer || findings.length ? '' : checked ?
        'The fleet is healthy: nothing missing, lost, unnamed or failing on the ' + checked +
            (checked === 1 ? ' host' : ' hosts') + ' checked.' :
        'No host has recorded what its snapshots hold yet: nothing to check.';
    empty.hidden = !empty.textContent;
    $('health-table').hidden = !findings.length;
    const rows = [];
    for (const finding of findings) {
      rows.push(this.findingRow(finding, answer));
      for (const host of finding.hosts) rows.push(this.hostRow(finding, host, answer.at_ms));
    }
    renderRows($('health-table').tBodies[0], rows);
    const slowest = answer ? answer.slowest_objects || [] : [];
    $('health-slowest-part').hidden = !slowest.length;
    renderRows($('health-slowest').tBodies[0], slowest.map((host) => this.slowestRow(host)));
  },

  // A host's slowest objects, each with how long it took alone.
  slowestRow(host) {
    return {
      key: host.host,
      open: '<tr data-host="' + escapeHtml(host.host) + '">',
      cells: [
        '<td><a href="' + escapeHtml(hashFor('fleet', {filter: 'host=' + host.host})) + '" data-focus="slowest\u0000' +
            escapeHtml(host.host) + '">' + escapeHtml(host.host) + '</a></td>',
        '<td>' + host.objects.map((object) => '<span class="slow-object" data-object="' + escapeHtml(object.object) +
            '" data-seconds="' + object.seconds + '">' + escapeHtml(object.object) + ' ' +
            secondsText(object.seconds) + '</span>').join(', ') + '</td>',
      ],
    };
  },

  // A finding's heading: its kind, subject, peers or hosts, and whether it is new.
  findingRow(finding, answer) {
    const fresh = isNew(finding, answer);
    const tone = TONES[finding.kind] || 'failing';
    return {
      key: keyOf(finding),
      open: '<tr class="finding-head" data-kind="' + escapeHtml(finding.kind) + '" data-object="' +
          escapeHtml(finding.object) + '" data-counter="' + escapeHtml(finding.counter) + '" data-peers="' +
          escapeHtml(finding.peers) + '" data-peers-with="' + finding.peers_with + '" data-peer-hosts="' +
          finding.peer_hosts + '" data-newest="' + (finding.newest_ms ?? '') + '" data-new="' + (fresh ? '1' : '') + '">',
      cells: ['<th colspan="' + COLUMNS + '"><span class="state-badge kind-' + tone + '">' +
          escapeHtml(finding.kind) + '</span> <span class="subject mono">' + escapeHtml(subjectText(finding)) +
          '</span> <span class="headline muted">' + escapeHtml(headlineText(finding)) + '</span>' +
          (fresh ? ' <span class="new-badge" title="A host has it since ' + escapeHtml(formatFullTime(finding.newest_ms)) +
              ', after ' + escapeHtml(formatFullTime(answer.from_ms)) + '">new</span>' : '') + '</th>'],
    };
  },

  // One host of a finding; its name opens its row in the fleet.
  hostRow(finding, host, at) {
    const gaps = host.gaps || [];
    return {
      key: keyOf(finding) + '\u0000' + host.host,
      open: '<tr class="finding-host" data-host="' + escapeHtml(host.host) + '" data-since="' + (host.since_ms ?? '') +
          '" data-last-with="' + (host.last_with_ms ?? '') + '" data-gaps="' +
          escapeHtml(JSON.stringify(gaps.map((gap) => [gap.gone_ms, gap.back_ms]))) + '">',
      cells: [
        '<td><a href="' + escapeHtml(hashFor('fleet', {filter: 'host=' + host.host})) + '" data-focus="' +
            escapeHtml(focusOf(finding, host.host)) + '" title="' + escapeHtml(host.host) + ' in the fleet">' +
            escapeHtml(host.host) + '</a></td>',
        timeCell(host.since_ms, at),
        timeCell(host.last_with_ms, at),
        '<td class="cause">' + escapeHtml(host.cause) + '</td>',
        '<td class="action">' + escapeHtml(host.action) + '</td>',
        '<td>' + (gaps.length ? '<ul class="gaps">' + gaps.map((gap) => '<li title="' +
            escapeHtml(formatFullTime(gap.gone_ms) + ' to ' + formatFullTime(gap.back_ms)) + '">gone ' +
            formatTime(gap.gone_ms) + ', back ' + formatTime(gap.back_ms) + '</li>').join('') + '</ul>' : '') + '</td>',
      ],
    };
  },

  // The tests' hook: shows an answer as if the server had given it for the form's fields, and
  // stops polling.
  render(answer) {
    this.frozen = true;
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
    $('health-error').hidden = true;
    this.show(Object.assign({at_ms: Date.now(), from_ms: Date.now() - 86400000, hosts: [], findings: []}, answer),
        {...this.fields});
  },
};
