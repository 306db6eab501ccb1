// PDH counter paths (docs/counter_paths.md) as the console writes them: names are escaped with a
// backtick where the plain form would be misread or read as a wildcard.

export function escapeMachine(name) {
  return name.replace(/[`*\\]/g, '`$&');
}
export function escapeObject(name) {
  return name.replace(/[`*(\\]/g, '`$&');
}
export function escapeCounter(name) {
  return name.replace(/[`*]/g, '`$&');
}
function parenthesesBalance(text) {
  let depth = 0;
  for (const c of text) {
    if (c === '(') depth++;
    if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}
export function escapeInstancePart(text) {
  let escaped = text.replace(/[`*]/g, '`$&');
  if (!parenthesesBalance(text)) escaped = escaped.replace(/[()]/g, '`$&');
  return escaped;
}
// An instance name as the API gives it ("parent/name#n") as a path's instance part.
export function escapeInstance(name) {
  const index = /#\d+$/.exec(name);
  const body = index ? name.slice(0, index.index) : name;
  const slash = body.indexOf('/');
  const text = slash < 0 ? escapeInstancePart(body) :
      escapeInstancePart(body.slice(0, slash)) + '/' + escapeInstancePart(body.slice(slash + 1));
  return text + (index ? index[0] : '');
}
export function counterPath(machine, object, instance, counter) {
  return '\\\\' + machine + '\\' + object + (instance === null ? '' : '(' + instance + ')') + '\\' + counter;
}
