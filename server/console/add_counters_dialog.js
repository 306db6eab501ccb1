// Add counters: Performance Monitor's dialog over /api/v1/hosts, objects, counters and
// instances, opened from the chart view; what it adds goes on the chart.

import {api} from './api.js';
import {chartView} from './chart_view.js';
import {counterPath, escapeCounter, escapeInstance, escapeMachine, escapeObject} from './counter_path.js';
import {$, el} from './dom.js';
import {scaleLabel} from './format.js';
import {globRegExp, hasWildcard} from './host_pattern.js';
import {collator} from './sort.js';

export const addDialog = {
  hosts: [],
  objects: [],
  counters: [],
  instances: [],
  browseHost: '',
  controller: null,
  generation: 0,

  init() {
    const dialog = $('add-dialog');
    $('chart-add').addEventListener('click', () => this.open());  // the chart view's button
    $('add-cancel').addEventListener('click', () => dialog.close());
    $('add-ok').addEventListener('click', () => this.add());
    $('add-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.add();
    });
    let hostTimer = 0;
    $('add-host').addEventListener('input', () => {
      clearTimeout(hostTimer);
      hostTimer = setTimeout(() => this.hostChanged(), 300);
      this.preview();
    });
    $('add-host').addEventListener('change', () => {
      clearTimeout(hostTimer);
      this.hostChanged();
    });
    $('add-detail').addEventListener('change', () => this.loadObjects());
    $('add-object').addEventListener('change', () => this.objectChanged());
    const counters = $('add-counters');
    const explain = () => this.explainCounter();
    counters.addEventListener('change', () => {
      explain();
      this.preview();
    });
    counters.addEventListener('keyup', explain);
    counters.addEventListener('click', explain);
    counters.addEventListener('focus', explain);
    $('add-all-counters').addEventListener('change', () => {
      counters.disabled = $('add-all-counters').checked;
      this.preview();
    });
    $('add-instances').addEventListener('change', () => this.preview());
  },

  async open() {
    const dialog = $('add-dialog');
    $('add-error').hidden = true;
    if (!dialog.open) dialog.showModal();
    try {
      const answer = await api('/api/v1/hosts');
      this.hosts = (answer.hosts || []).map((h) => h.name).sort(collator.compare);
    } catch (error) {
      this.hosts = [];
    }
    const list = $('add-host-list');
    list.textContent = '';
    list.append(el('option', {value: '*', text: 'every host'}));
    for (const host of this.hosts) list.append(el('option', {value: host}));
    const input = $('add-host');
    if (!input.value) {
      const first = chartView.series[0];
      input.value = first ? first.host : this.hosts[0] || '';
    }
    this.hostChanged();
    input.focus();
    input.select();
  },

  hostChanged() {
    const typed = $('add-host').value.trim();
    let browse = typed;
    if (hasWildcard(typed)) {
      const pattern = globRegExp(typed);
      browse = this.hosts.find((host) => pattern.test(host)) || '';
    }
    const note = $('add-browse-host');
    if (!typed) {
      note.textContent = '';
    } else if (hasWildcard(typed)) {
      note.textContent = browse ? 'Objects, counters and instances as ' + browse + ' has them; the paths name ' + typed + '.' :
          'No host matches ' + typed + '.';
    } else {
      note.textContent = '';
    }
    if (browse === this.browseHost && this.objects.length) {
      this.preview();
      return;
    }
    this.browseHost = browse;
    this.loadObjects();
  },

  fail(error) {
    if (error.name === 'AbortError') return;
    $('add-error').textContent = error.message;
    $('add-error').hidden = false;
  },

  async loadObjects() {
    const select = $('add-object');
    const previous = select.value;
    select.textContent = '';
    this.objects = [];
    $('add-error').hidden = true;
    if (!this.browseHost) {
      this.objectChanged();
      return;
    }
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    let objects = [];
    try {
      const answer = await api('/api/v1/objects', {host: this.browseHost, detail: $('add-detail').value}, controller.signal);
      objects = (answer.objects || []).slice().sort((a, b) => collator.compare(a.name, b.name));
    } catch (error) {
      this.fail(error);
    }
    if (controller !== this.controller) return;  // a newer host or detail level
    this.objects = objects;
    for (const object of this.objects) {
      select.append(el('option', {value: object.name, text: object.name}));
    }
    const keep = this.objects.find((o) => o.name === previous) || this.objects.find((o) => o.name === 'Processor') || this.objects[0];
    if (keep) select.value = keep.name;
    this.objectChanged();
  },

  currentObject() {
    return this.objects.find((o) => o.name === $('add-object').value) || null;
  },

  async objectChanged() {
    const generation = ++this.generation;
    const object = this.currentObject();
    const help = $('add-object-help');
    help.textContent = object ? object.help || '(no explain text)' : '';
    const counters = $('add-counters');
    const instances = $('add-instances');
    counters.textContent = '';
    instances.textContent = '';
    this.counters = [];
    this.instances = [];
    $('add-counter-help').textContent = '';
    $('add-instances-note').textContent = '';
    if (!object) {
      this.preview();
      return;
    }
    const signal = this.controller ? this.controller.signal : undefined;
    const fields = {host: this.browseHost, object: object.name};
    let counterList = [];
    let instanceList = [];
    try {
      const [counterAnswer, instanceAnswer] = await Promise.all([
        api('/api/v1/counters', Object.assign({detail: $('add-detail').value}, fields), signal),
        object.instances === -1 ? Promise.resolve({instances: []}) : api('/api/v1/instances', fields, signal),
      ]);
      counterList = counterAnswer.counters || [];
      instanceList = instanceAnswer.instances || [];
    } catch (error) {
      this.fail(error);
    }
    if (generation !== this.generation) return;  // another object or detail level since
    this.counters = counterList;
    this.instances = instanceList;
    for (const counter of this.counters) {
      counters.append(el('option', {value: counter.name, text: counter.name}));
    }
    if (counters.options.length) counters.options[0].selected = true;
    if (object.instances === -1) {
      instances.disabled = true;
      $('add-instances-note').textContent = object.name + ' has no instances.';
    } else {
      instances.disabled = false;
      instances.append(el('option', {value: '*', text: '* (all instances)'}));
      for (const instance of this.instances) {
        let text = instance.name;
        if (instance.tid !== undefined) {
          text += '  (PID ' + instance.pid + ', TID ' + instance.tid + ')';
        } else if (instance.pid !== undefined) {
          text += '  (PID ' + instance.pid + ')';
        }
        instances.append(el('option', {value: instance.name, text}));
      }
      instances.options[0].selected = true;
      $('add-instances-note').textContent = this.instances.length + ' instances now' +
          (object.name === 'Process' || object.name === 'Thread' ? '; a path names one by its name, PIDs are shown for reference.' : '.');
    }
    this.explainCounter();
    this.preview();
  },

  explainCounter() {
    const select = $('add-counters');
    const chosen = select.selectedOptions.length ? select.selectedOptions[select.selectedOptions.length - 1] : null;
    const counter = chosen && this.counters.find((c) => c.name === chosen.value);
    const box = $('add-counter-help');
    box.textContent = '';
    if (!counter) return;
    const meta = [counter.type_name || counter.type, counter.unit ? 'unit ' + counter.unit : '',
      'detail ' + counter.detail, 'default scale ' + (counter.default_scale || 0) + ' (×' + scaleLabel(counter.default_scale || 0) + ')'].filter(Boolean).join(' · ');
    box.append(el('strong', {text: counter.name}), el('span', {className: 'meta', text: meta}),
        document.createTextNode(counter.help || '(no explain text)'));
  },

  paths() {
    const typed = $('add-host').value.trim();
    const object = this.currentObject();
    if (!typed || !object) return [];
    const machine = hasWildcard(typed) ? typed : escapeMachine(typed);
    const counters = $('add-all-counters').checked ? ['*'] :
        [...$('add-counters').selectedOptions].map((o) => escapeCounter(o.value));
    let instances = [null];
    if (object.instances !== -1) {
      const chosen = [...$('add-instances').selectedOptions].map((o) => o.value);
      instances = chosen.includes('*') ? ['*'] : chosen.map(escapeInstance);
    }
    const paths = [];
    for (const instance of instances) {
      for (const counter of counters) paths.push(counterPath(machine, escapeObject(object.name), instance, counter));
    }
    return paths;
  },

  preview() {
    const paths = this.paths();
    $('add-preview').textContent = paths.length ? (paths.length > 4 ? paths.slice(0, 4).join('   ') + '   … (' + paths.length + ')' : paths.join('   ')) : '—';
    $('add-ok').disabled = !paths.length;
  },

  async add() {
    const paths = this.paths();
    if (!paths.length) return;
    $('add-error').hidden = true;
    const ok = await chartView.addPaths(paths, null);
    if (ok) {
      $('add-dialog').close();
      $('chart-add').focus();
    } else {
      $('add-error').textContent = $('chart-error').textContent;
      $('add-error').hidden = !$('add-error').textContent;
    }
  },
};
