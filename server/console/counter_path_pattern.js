// A PDH counter path as a pattern over the series the console draws, ignoring the machine: which
// series on the chart a rule's path (docs/alerts.md) is about. It reads paths as the server's
// parser does (docs/counter_paths.md: backtick escapes, balanced parentheses, parent/instance,
// #Index and #*) and matches as PathExpander does: * wildcards, case ignored, a plain instance
// name selecting only the first of its duplicates.

// The path's characters with the backtick escape undone, each {c, literal}: an escaped one is
// neither a separator nor a wildcard.
function characters(text) {
  const out = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '`' && i + 1 < text.length) {
      out.push({c: text[++i], literal: true});
    } else {
      out.push({c: text[i], literal: false});
    }
  }
  return out;
}
const isMark = (chars, k, mark) => k < chars.length && !chars[k].literal && chars[k].c === mark;
const hasWildcard = (chars) => chars.some((one) => !one.literal && one.c === '*');

// A component as a regular expression matching whole names, case ignored (toLowerCase is near
// enough to the server's Unicode simple case folding for drawing a line).
function componentRegExp(chars) {
  let body = '';
  for (const one of chars) {
    body += !one.literal && one.c === '*' ? '.*' : one.c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp('^' + body + '$', 'i');
}

// The instance part "parent/name#index" (chars inside the parentheses).
function instancePattern(chars) {
  let slash = -1;
  let depth = 0;
  for (let k = 0; k < chars.length && slash < 0; k++) {
    if (isMark(chars, k, '(')) depth++;
    if (isMark(chars, k, ')')) depth--;
    if (depth === 0 && isMark(chars, k, '/')) slash = k;
  }
  const parent = slash < 0 ? null : chars.slice(0, slash);
  let name = chars.slice(slash + 1);
  let index = null;
  let anyIndex = false;
  let hash = -1;
  name.forEach((one, k) => {
    if (isMark(name, k, '#')) hash = k;
  });
  if (hash >= 0) {
    const tail = name.slice(hash + 1);
    const text = tail.map((one) => one.c).join('');
    if (tail.length && tail.every((one) => !one.literal) && /^\d+$/.test(text)) {
      index = Number(text);
      name = name.slice(0, hash);
    } else if (tail.length === 1 && !tail[0].literal && text === '*') {
      anyIndex = true;
      name = name.slice(0, hash);
    }
  }
  return {
    parent: parent && componentRegExp(parent),
    name: componentRegExp(name),
    // "(*)" is every instance, children too.
    every: !parent && name.length === 1 && !name[0].literal && name[0].c === '*',
    index,
    // A wildcard in the parent or the name selects every duplicate, as #* does.
    anyIndex: anyIndex || hasWildcard(name) || (parent !== null && hasWildcard(parent)),
  };
}

// {object, instance (null for an object without instances), counter} as patterns, or null when
// the path does not parse (the server says why; nothing is drawn for it here).
export function parsePathPattern(path) {
  const chars = characters(String(path || ''));
  let k = 0;
  if (isMark(chars, 0, '\\') && isMark(chars, 1, '\\')) {
    k = 2;
    while (k < chars.length && !isMark(chars, k, '\\')) k++;
  }
  if (!isMark(chars, k, '\\')) return null;
  const objectStart = ++k;
  while (k < chars.length && !isMark(chars, k, '(') && !isMark(chars, k, '\\')) k++;
  const object = chars.slice(objectStart, k);
  let instance = null;
  if (isMark(chars, k, '(')) {
    const start = ++k;
    let depth = 1;
    for (; k < chars.length; k++) {
      if (isMark(chars, k, '(')) depth++;
      if (isMark(chars, k, ')') && --depth === 0) break;
    }
    if (k >= chars.length) return null;
    instance = instancePattern(chars.slice(start, k++));
  }
  if (!isMark(chars, k, '\\') || !object.length) return null;
  const counter = chars.slice(k + 1);
  if (!counter.length) return null;
  return {object: componentRegExp(object), instance, counter: componentRegExp(counter)};
}

// An instance name as the API gives it ("explorer/0", "svchost#1") in its parts.
function instanceParts(text) {
  const index = /#(\d+)$/.exec(text);
  const body = index ? text.slice(0, index.index) : text;
  const slash = body.indexOf('/');
  return {
    parent: slash < 0 ? null : body.slice(0, slash),
    name: slash < 0 ? body : body.slice(slash + 1),
    index: index ? Number(index[1]) : 0,
  };
}

// Whether a series of an /api/v1/read answer ({object, instance, counter}) is one the pattern
// selects on its host.
export function patternSelects(pattern, series) {
  if (!pattern.object.test(series.object) || !pattern.counter.test(series.counter)) return false;
  const hasInstance = series.instance !== undefined && series.instance !== null;
  if (!pattern.instance || !hasInstance) return !pattern.instance && !hasInstance;
  const wanted = pattern.instance;
  if (wanted.every) return true;
  const parts = instanceParts(series.instance);
  if (wanted.parent ? parts.parent === null || !wanted.parent.test(parts.parent) : parts.parent !== null) return false;
  if (!wanted.name.test(parts.name)) return false;
  if (wanted.index !== null) return parts.index === wanted.index;
  return wanted.anyIndex || parts.index === 0;
}
