import { selectOperations, snakeCase, tableOperations, toolServices } from './tool-selection';

describe(snakeCase.name, () => {
  it.each([
    ['listTickets', 'list_tickets'],
    ['chat.postMessage', 'chat_post_message'],
    ['get_folders_id#add_shared_link', 'get_folders_id_add_shared_link'],
    ['getHTTPResponse', 'get_http_response'],
    ['Get-Folder', 'get_folder'],
    ['__odd__', 'odd'],
  ])('%s → %s', (text, expected) => {
    expect(snakeCase(text)).toBe(expected);
  });
});

describe(selectOperations.name, () => {
  const offered = ['get_folders_id', 'get_folders_id_items', 'post_collaborations', 'listTickets'];

  it('gives all of a plain service, and of a curated one those its ids or patterns match, in the service order', () => {
    expect(selectOperations('box', offered)).toEqual({ operations: offered, unmatched: [] });
    expect(selectOperations({ service: 'box', operations: ['post_*', 'get_folders_id'] }, offered)).toEqual({
      operations: ['get_folders_id', 'post_collaborations'],
      unmatched: [],
    });
    expect(selectOperations({ service: 'box', operations: ['get_folders*'] }, offered).operations).toEqual([
      'get_folders_id',
      'get_folders_id_items',
    ]);
  });

  it('matches an id in its snake_case form too, and reports patterns that match nothing', () => {
    expect(selectOperations({ service: 'desk', operations: ['list_tickets', 'delete?'] }, offered)).toEqual({
      operations: ['listTickets'],
      unmatched: ['delete?'],
    });
  });
});

describe(toolServices.name, () => {
  it('names the services of plain and curated entries in order', () => {
    expect(toolServices(['slack', { service: 'box', operations: ['x'] }])).toEqual(['slack', 'box']);
    expect(tableOperations('invoice_lines')).toEqual([
      'list_invoice_lines',
      'insert_invoice_lines',
      'update_invoice_lines',
      'delete_invoice_lines',
    ]);
  });
});
