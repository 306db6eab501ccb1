// DOM helpers shared by every view: element lookup, building elements, escaping text for HTML,
// the toast and the warning lists.

export const $ = (id) => document.getElementById(id);

export function escapeHtml(text) {
  return String(text)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
}

export function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  if (attributes) {
    for (const [name, value] of Object.entries(attributes)) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'text') {
        node.textContent = value;
      } else if (name === 'className') {
        node.className = value;
      } else if (name.startsWith('on')) {
        node.addEventListener(name.slice(2), value);
      } else {
        node.setAttribute(name, value === true ? '' : value);
      }
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child);
    }
  }
  return node;
}

let toastTimer = 0;
export function toast(message) {
  const box = $('toast');
  box.textContent = message;
  box.classList.add('shown');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove('shown'), 2500);
}

// Fills a view's list of warnings from an answer; the list hides when there are none.
export function showWarningsIn(list, warnings) {
  list.textContent = '';
  for (const warning of warnings || []) list.append(el('li', {text: warning}));
  list.hidden = !list.childElementCount;
}
