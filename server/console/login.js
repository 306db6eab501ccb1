// Login and session: asks the server who is logged in, and shows either the views or the login
// form (a plain form: the server answers with a cookie and a redirect to `next`).

import {$} from './dom.js';
import {route, showSection} from './router.js';
import {state} from './state.js';

const LOGIN_NEXT_KEY = 'perfhive.login-next';

// Who is logged in: asked as soon as the console's code runs, before the views are set up.
const sessionRequest = fetch('/api/v1/session', {
  credentials: 'same-origin',
  headers: {Accept: 'application/json'},
}).catch((error) => error);

export function showLogin() {
  state.session = null;
  if (state.currentView) state.currentView.leave();
  state.currentView = null;
  showSection('login');
  $('views-nav').hidden = true;
  $('session-name').hidden = true;
  $('logout-form').hidden = true;
  const query = new URLSearchParams(location.search);
  const error = query.get('login_error');
  const box = $('login-error');
  if (error) {
    box.textContent = error;
    box.hidden = false;
    // The server's redirect after a refusal drops the fragment: take back the view asked for.
    let next = '';
    try {
      next = sessionStorage.getItem(LOGIN_NEXT_KEY) || '';
    } catch (e) {
      next = '';
    }
    history.replaceState(null, '', location.pathname + (location.hash || next));
  } else {
    box.hidden = true;
  }
  $('login-next').value = location.pathname + location.hash;
  const token = $('login-token');
  token.focus();
}

// Remembers the view asked for, which the server's redirect after a refusal would lose.
export function initLoginForm() {
  $('login-form').addEventListener('submit', () => {
    try {
      sessionStorage.setItem(LOGIN_NEXT_KEY, location.hash);
    } catch (e) {
      // nothing to remember it in
    }
    $('login-next').value = location.pathname + location.hash;
  });
}

// Shows the view of the URL when the session is good, else the login form or what went wrong.
export async function start() {
  const response = await sessionRequest;
  if (response instanceof Error || !response) {
    $('loading').textContent = 'The server cannot be reached: ' + (response ? response.message : '');
    return;
  }
  if (response.status === 401 || response.status === 403) {
    showLogin();
    if (response.status === 403 && $('login-error').hidden) {
      try {
        const body = await response.json();
        $('login-error').textContent = (body.error && body.error.message) || 'This token may not read.';
        $('login-error').hidden = false;
      } catch (e) {
        // nothing more to say
      }
    }
    return;
  }
  if (!response.ok) {
    $('loading').textContent = 'The server answered ' + response.status + ' ' + response.statusText;
    return;
  }
  state.session = await response.json();
  if (location.search) history.replaceState(null, '', location.pathname + location.hash);
  const name = $('session-name');
  name.textContent = state.session.login_required ? 'Logged in as ' + state.session.name : 'Open access (no login)';
  name.hidden = false;
  $('logout-form').hidden = !state.session.login_required;
  $('views-nav').hidden = false;
  route();
}
