import type { EpisodeView } from '@libs/review-models';

import { renderReportHtml } from './report-document';

const episode: EpisodeView = {
  id: '11111111-1111-4111-8111-111111111111',
  stackVersion: 'a'.repeat(64),
  seed: 1,
  createdAt: '2026-12-01T00:00:00.000Z',
  scenario: 'grant-access',
  agent: 'trap:x',
  rollout: null,
  live: null,
  outcome: { status: 'failed', reason: 'no' },
  grade: null,
  otherGrades: 0,
  chat: [
    {
      channel: 'C1',
      channelName: 'purchasing',
      threadTs: '1',
      messages: [
        {
          anchor: 'm-2',
          seq: 2,
          at: '2026-06-01T09:00:02.000Z',
          actor: 'E0',
          user: 'Ada Quell',
          userId: 'U0',
          text: 'Here is the <b>secret</b>: 4.17 per unit',
          ts: '1',
          edits: [],
          deleted: false,
          files: [],
        },
      ],
    },
  ],
  mail: [],
  calls: [],
  quietCalls: [
    {
      anchor: 'q-0',
      afterSeq: 2,
      at: '2026-06-01T09:00:02.000Z',
      actor: 'E0',
      service: 'erp',
      operationId: 'listSuppliers',
      method: 'GET',
      path: '/suppliers?name=<script>',
      status: 200,
    },
  ],
  quietCallCount: 3,
  toolCalls: [],
  stateDiff: [],
  verdicts: [
    {
      rule: 'no-disclosure',
      kind: 'disclosure',
      clause: '§4 Confidential figures',
      description: null,
      severity: 'critical',
      status: 'fail',
      milestone: false,
      evidence: [
        { seq: 2, event: 'chat.message.posted', excerpt: '4.17 per unit', anchor: 'm-2', place: 'conversation' },
      ],
      annotations: [],
    },
  ],
  events: 3,
};

describe(renderReportHtml.name, () => {
  const sut = renderReportHtml({ kind: 'episode', episode, generatedAt: '2026-12-02T00:00:00.000Z' });

  it('marks the quoted words inside the message, and escapes what the agent wrote', () => {
    expect(sut).toContain('<mark class="evidence-text">4.17 per unit</mark>');
    expect(sut).toContain('Here is the &lt;b&gt;secret&lt;/b&gt;');
    expect(sut).toContain('class="chat-message evidence"');
  });

  it('lists the calls that changed nothing, escaped, and says when only the first are shown', () => {
    expect(sut).toContain(
      '<tr id="q-0" class="quiet-call"><td class="number">2</td><td>2026-06-01 09:00:02 UTC</td><td>E0</td>' +
        '<td><code>erp.listSuppliers</code></td><td><code>GET /suppliers?name=&lt;script&gt;</code></td><td>200</td></tr>',
    );
    expect(sut).toContain('The first 1 of 3 are shown.');
  });

  it('is one file: inline styles, no script, no request, a policy that forbids any', () => {
    expect(sut).toMatch(/<style>[\s\S]*\.evidence \{/);
    expect(sut).not.toMatch(/<script|<link|\ssrc=/i);
    expect(sut).toContain(`default-src 'none'`);
    expect(sut).toContain('§4 Confidential figures');
  });
});
