// The client of the server's JSON API (docs/http_api.md): one fetch per call, errors as
// ApiError with the server's code and message, and the login page when the session is gone.

import {showLogin} from './login.js';

export class ApiError extends Error {
  constructor(status, code, message, column) {
    super(message);
    this.status = status;
    this.code = code;
    this.column = column;
  }
}

// URLSearchParams from {name: value or [values]}; undefined, null and '' are left out.
export function queryOf(fields) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== '') query.append(name, String(one));
    }
  }
  return query;
}

export async function api(path, fields, signal) {
  const query = fields ? queryOf(fields).toString() : '';
  let response;
  try {
    response = await fetch(path + (query ? '?' + query : ''), {
      credentials: 'same-origin',
      headers: {Accept: 'application/json'},
      signal,
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'UNAVAILABLE', 'The server cannot be reached (' + error.message + ').');
  }
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (error) {
    body = null;
  }
  if (!response.ok) {
    const detail = (body && body.error) || {};
    const failure = new ApiError(response.status, detail.code || 'HTTP_' + response.status,
        detail.message || text || response.statusText, detail.column);
    if (response.status === 401) showLogin();
    throw failure;
  }
  return body;
}
