// Sortable tables: each header cell with data-key gets a button; the view keeps the order (in
// its URL) and says which column is sorted with aria-sort.

import {el} from './dom.js';

export class SortableHead {
  constructor(table, onSort) {
    this.table = table;
    this.cells = [...table.querySelectorAll('thead th[data-key]')];
    for (const cell of this.cells) {
      const label = cell.textContent;
      const button = el('button', {type: 'button', className: 'sort', 'data-key': cell.dataset.key});
      button.textContent = label;
      button.addEventListener('click', () => onSort(cell.dataset.key, cell.hasAttribute('data-numeric')));
      cell.textContent = '';
      cell.append(button);
    }
  }
  show(key, descending) {
    for (const cell of this.cells) {
      if (cell.dataset.key === key) {
        cell.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      } else {
        cell.removeAttribute('aria-sort');
      }
    }
  }
  isNumeric(key) {
    const cell = this.cells.find((c) => c.dataset.key === key);
    return !!cell && cell.hasAttribute('data-numeric');
  }
}

// The next order after a click: the same column flips; a new one starts descending for
// numbers and times (largest, newest first), ascending for text.
export function nextSort(current, key, numeric) {
  if (current.key === key) return {key, descending: !current.descending};
  return {key, descending: numeric};
}
