// The remembered theme, applied before the first paint. A classic script, not a module, on
// purpose: modules run only once the page is parsed, which would show the page in the other
// theme for a moment. The toggle itself is theme.js; both use the key 'perfhive.theme'.

'use strict';

(function () {
  let theme = null;
  try {
    theme = localStorage.getItem('perfhive.theme');
  } catch (e) {
    theme = null;
  }
  if (theme === 'dark' || theme === 'light') {
    document.documentElement.dataset.theme = theme;
  } else {
    delete document.documentElement.dataset.theme;
  }
})();
