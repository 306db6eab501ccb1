// Drawing a table's rows: quick for long tables and for refreshes every few seconds, and
// keeping keyboard focus where it was.

// Keeps keyboard focus on the same control of a row when a table is drawn again.
export function focusedKey(container) {
  const active = document.activeElement;
  return active && container.contains(active) ? active.getAttribute('data-focus') : null;
}
export function restoreFocus(container, key) {
  if (!key) return;
  const again = container.querySelector('[data-focus="' + CSS.escape(key) + '"]');
  if (again) again.focus({preventScroll: true});
}

// Draws a table body from rows {key, open: '<tr ...>', cells: ['<td>...</td>', ...]}. When
// the same rows come again in the same order (a refresh), only the cells that changed are
// replaced; otherwise the body is drawn anew, the first rows at once and the rest after the
// next frame (the table is aria-busy meanwhile), so that a long table shows without waiting
// for the layout of all of it.
const FIRST_ROWS = 60;
const drawnRows = new WeakMap();
function rowsHtml(rows) {
  let html = '';
  for (const row of rows) html += row.open + row.cells.join('') + '</tr>';
  return html;
}
export function renderRows(tbody, rows) {
  const focus = focusedKey(tbody);
  const previous = drawnRows.get(tbody);
  const table = tbody.closest('table');
  if (previous && previous.complete && previous.rows.length === rows.length &&
      previous.rows.every((row, i) => row.key === rows[i].key)) {
    const trs = tbody.rows;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const old = previous.rows[i];
      if (old.open !== row.open) {
        trs[i].outerHTML = row.open + row.cells.join('') + '</tr>';
        continue;
      }
      for (let c = 0; c < row.cells.length; c++) {
        if (old.cells[c] !== row.cells[c]) trs[i].cells[c].outerHTML = row.cells[c];
      }
    }
    previous.rows = rows;
  } else {
    const state = {rows, complete: rows.length <= FIRST_ROWS};
    drawnRows.set(tbody, state);
    tbody.innerHTML = rowsHtml(rows.slice(0, FIRST_ROWS));
    if (!state.complete) {
      table.setAttribute('aria-busy', 'true');
      requestAnimationFrame(() => setTimeout(() => {
        if (drawnRows.get(tbody) !== state) return;
        tbody.insertAdjacentHTML('beforeend', rowsHtml(rows.slice(FIRST_ROWS)));
        state.complete = true;
        if (![...table.tBodies].some((body) => drawnRows.get(body) && !drawnRows.get(body).complete)) {
          table.removeAttribute('aria-busy');
        }
        restoreFocus(tbody, focus);
      }, 0));
    } else if (![...table.tBodies].some((body) => drawnRows.get(body) && !drawnRows.get(body).complete)) {
      table.removeAttribute('aria-busy');
    }
  }
  restoreFocus(tbody, focus);
}
