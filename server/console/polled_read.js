// How a view that shows one answer reads it: each read aborts the one before, an answer that
// arrives after another read began (or once the view was frozen by a test) is dropped, and while
// the view is shown it reads again every `pollMs`. The view keeps `timer`, `controller` and
// `frozen`, and its `load()` calls this.

import {state} from './state.js';

// `read(signal)` gets the answer; `shown(answer)` shows it; `failed(error)` says why there is
// none (an abort is not a failure).
export async function pollRead(view, {read, shown, failed, pollMs}) {
  clearTimeout(view.timer);
  if (view.frozen) return;
  if (view.controller) view.controller.abort();
  const controller = new AbortController();
  view.controller = controller;
  try {
    const answer = await read(controller.signal);
    if (view.frozen || controller !== view.controller) return;
    shown(answer);
  } catch (error) {
    if (error.name === 'AbortError') return;
    failed(error);
  }
  if (state.currentView === view && !view.frozen) view.timer = setTimeout(() => view.load(), pollMs);
}
