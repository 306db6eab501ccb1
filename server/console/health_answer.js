// The fleet's counter health (GET /api/v1/health, the answer of `perfhive health --format json`)
// as the health view reads it: asked for, and each finding put in the words `perfhive health`
// prints it with (cli/health_command.cc), so that the page and the terminal say the same.

import {api} from './api.js';

// The answer for the form's fields: `since` is how far back findings are new ("24h"); an empty
// `peers_by` leaves the server's default (role).
export function fetchHealth({pattern, select, since, peers_by: peersBy}, signal) {
  return api('/api/v1/health', {pattern, select, from: since ? '-' + since : '', peers_by: peersBy}, signal);
}

// "\Process", "\Process\Handle Count", "index 2345", "indexes 6, 1234-1320", "title database of
// Windows 10.0.20348", or the error's message, quoted.
export function subjectText(finding) {
  if (finding.kind === 'collection-error') return '"' + finding.counter + '"';
  if (finding.kind === 'provider-disabled') return 'provider of service ' + finding.counter;
  if (finding.kind === 'names-changed') return 'names of indexes ' + finding.counter;
  if (finding.kind === 'collection-losses') return 'data lost in collection';
  if (finding.kind === 'unnamed-index') {
    return (/[,-]/.test(finding.counter) ? 'indexes ' : 'index ') + finding.counter;
  }
  if (finding.kind === 'titles-differ') return 'title database of ' + finding.counter;
  if (finding.kind === 'instance-came-and-went') return '\\' + finding.object + '(' + finding.counter + ')';
  return '\\' + finding.object + (finding.counter ? '\\' + finding.counter : '');
}

const plural = (count, one) => count + ' ' + one + (count === 1 ? '' : 's');

// Whether the finding is about hosts lacking what their peers have.
const isMissing = (finding) => finding.kind === 'object-missing' || finding.kind === 'counter-missing';

// "lacked by 1 host; 2 of 3 peers (Windows role=web) have it", or "on 2 hosts".
export function headlineText(finding) {
  const hosts = plural(finding.hosts.length, 'host');
  if (!isMissing(finding)) return 'on ' + hosts;
  return 'lacked by ' + hosts + '; ' + finding.peers_with + ' of ' + finding.peer_hosts + ' peers (' +
      finding.peers + ') have it';
}

// A finding with a host from the report's start on is new (what makes `perfhive health` exit 6).
export const isNew = (finding, answer) => finding.newest_ms !== null && finding.newest_ms >= answer.from_ms;

// How long an object took alone: "2.35 s", "120 ms", "0.73 ms".
export function secondsText(seconds) {
  if (seconds >= 1) return seconds.toFixed(2) + ' s';
  const ms = seconds * 1000;
  return (ms >= 10 ? ms.toFixed(0) : ms.toFixed(2)) + ' ms';
}
