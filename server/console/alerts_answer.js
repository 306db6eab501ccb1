// The server's alerting rules and their alerts (GET /api/v1/alerts, docs/alerts.md) as the alerts
// view and the chart's threshold lines read them: fetched, ordered and put in words the same way
// in both.

import {api} from './api.js';
import {formatSpan} from './format.js';
import {collator} from './sort.js';

// What a server without rules answers; a server older than the rules has no /api/v1/alerts at
// all (404), and means the same.
function noRules() {
  return {rules_file: '', interval_ms: 0, reload_error: '', rules: [], alerts: [], served: false};
}

// The answer, with `served` false when the server has no such call.
export async function fetchAlerts(signal) {
  let answer;
  try {
    answer = await api('/api/v1/alerts', null, signal);
  } catch (error) {
    if (error.status === 404) return noRules();
    throw error;
  }
  const whole = Object.assign(noRules(), answer || {}, {served: true});
  whole.rules = whole.rules || [];
  whole.alerts = whole.alerts || [];
  return whole;
}

// Firing first, then pending, then resolved; then the most severe; then by rule and series.
const STATE_ORDER = {firing: 0, pending: 1, resolved: 2};
const SEVERITY_ORDER = {critical: 0, error: 1, warning: 2, info: 3};
const rankOf = (order, key) => Object.prototype.hasOwnProperty.call(order, key) ? order[key] : Object.keys(order).length;
export function sortAlerts(alerts) {
  return alerts.slice().sort((a, b) =>
    rankOf(STATE_ORDER, a.state) - rankOf(STATE_ORDER, b.state) ||
    rankOf(SEVERITY_ORDER, a.severity) - rankOf(SEVERITY_ORDER, b.severity) ||
    collator.compare(a.rule || '', b.rule || '') || collator.compare(a.series || '', b.series || ''));
}
export const isActive = (alert) => alert.state === 'firing' || alert.state === 'pending';

// "> 90 for 5m"; an aggregate's rule says what it combines: "p95 by role > 90 for 5m". The
// server's condition is the rule's text, which holds its `for` when the file wrote it there or
// in a key of its own.
export function conditionText(rule) {
  const combined = rule.aggregate ? rule.aggregate + (rule.by ? ' by ' + rule.by : '') + ' ' : '';
  const condition = rule.condition || (rule.comparison + ' ' + rule.threshold);
  return combined + condition + (rule.for_ms && !/\bfor\b/.test(condition) ? ' for ' + formatSpan(rule.for_ms) : '');
}
// What a threshold line on a chart is labelled with.
export function thresholdLabel(rule) {
  return rule.name + ': ' + conditionText(rule);
}
// The rule an alert is of.
export function ruleOf(answer, alert) {
  return answer.rules.find((rule) => rule.name === alert.rule) || null;
}
