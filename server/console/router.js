// Routing: every view is a URL, "#/view?params", so that it can be bookmarked and shared. Turns
// the location's fragment into a view and its parameters, and writes them back.

import {$} from './dom.js';
import {state} from './state.js';

// The views by name, each {name, init(), enter(params), leave()}; console.js fills it.
export const views = {};

function parseHash() {
  let hash = location.hash.replace(/^#/, '');
  if (!hash || hash === '/') hash = '/fleet';
  const at = hash.indexOf('?');
  const path = at < 0 ? hash : hash.slice(0, at);
  return {
    view: path.replace(/^\/+/, '').split('/')[0] || 'fleet',
    params: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)),
  };
}
// Readable URLs: PDH paths keep their backslashes, stars and parentheses.
export function encodeParam(text) {
  return encodeURIComponent(text).replace(/%5C/gi, '\\').replace(/%2C/gi, ',').replace(/%3A/gi, ':');
}
export function hashFor(view, fields) {
  const parts = [];
  const entries = fields instanceof URLSearchParams ? [...fields.entries()] :
      Object.entries(fields || {}).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((one) => [name, one]));
  for (const [name, value] of entries) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    parts.push(name + '=' + encodeParam(String(value)));
  }
  return '#/' + view + (parts.length ? '?' + parts.join('&') : '');
}
export function replaceHash(view, fields) {
  const hash = hashFor(view, fields);
  if (hash !== location.hash) history.replaceState(null, '', hash);
}

export function showSection(name) {
  for (const section of document.querySelectorAll('main > .view')) {
    section.hidden = section.id !== 'view-' + name;
  }
  $('loading').hidden = true;
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === name) {
      link.setAttribute('aria-current', 'page');
    } else {
      link.removeAttribute('aria-current');
    }
  }
}

export function route() {
  if (!state.session) return;
  const {view, params} = parseHash();
  const name = Object.prototype.hasOwnProperty.call(views, view) ? view : 'fleet';
  $('toast').classList.remove('shown');
  const changed = !state.currentView || state.currentView.name !== name;
  if (state.currentView) state.currentView.leave();
  state.currentView = views[name];
  showSection(name);
  state.currentView.enter(params);
  if (changed && document.readyState === 'complete') {
    const heading = document.querySelector('#view-' + name + ' h1');
    if (heading && !document.querySelector('dialog[open]')) heading.focus({preventScroll: true});
  }
}
