// The light and the dark theme: the toggle in the top bar, remembered in this browser. The
// remembered choice is applied before the first paint by theme_early.js.

import {$} from './dom.js';

const THEME_KEY = 'perfhive.theme';  // theme_early.js reads the same key
const root = document.documentElement;
const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');

function isDark() {
  return root.dataset.theme ? root.dataset.theme === 'dark' : darkQuery.matches;
}

// Wires the toggle; `onChange` runs after the theme changed (the chart redraws its colours).
export function initTheme(onChange) {
  const button = $('theme-toggle');
  const show = () => {
    button.setAttribute('aria-pressed', String(isDark()));
  };
  show();
  button.addEventListener('click', () => {
    const next = isDark() ? 'light' : 'dark';
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch (e) {
      // private mode: the theme holds for this page only
    }
    root.dataset.theme = next;
    show();
    onChange();
  });
  darkQuery.addEventListener('change', () => {
    show();
    onChange();
  });
}
