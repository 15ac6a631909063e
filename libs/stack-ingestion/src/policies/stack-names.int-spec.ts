import * as path from 'node:path';

import { ingestStack } from '../ingest-stack';
import { stackNames } from './stack-names';

const desk = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'invoice-desk');

/** Real: a bundle with a client's own spec beside the packs. */
describe(stackNames.name, () => {
  it('knows the events a client’s own service tells for its records, beside the packs’, and no others', async () => {
    const { model } = await ingestStack({ kind: 'path', path: desk });
    const events = stackNames(model.services, []).events;
    expect(events).toBeDefined();
    expect([...events!].filter((e) => e.startsWith('helpdesk.')).sort()).toEqual([
      'helpdesk.refunds.created',
      'helpdesk.refunds.deleted',
      'helpdesk.refunds.replaced',
      'helpdesk.refunds.updated',
    ]);
    expect(events!.has('slack.message.posted')).toBe(true);
  });
});
