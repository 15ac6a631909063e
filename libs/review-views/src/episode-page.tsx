import type { ReactNode } from 'react';

import type { EpisodeView, VerdictView } from '@libs/review-models';

import { decimal, instant, jsonText, shortId } from './format';
import { HighlightedText } from './highlighted-text';
import type { ReviewLinks } from './review-links';

/** The failed verdicts' evidence by the anchor it sits at: what to highlight, and which rules point there. */
const evidenceByAnchor = (verdicts: readonly VerdictView[]) => {
  const byAnchor = new Map<string, { rules: string[]; excerpts: string[] }>();
  for (const verdict of verdicts.filter((v) => v.status === 'fail')) {
    for (const evidence of verdict.evidence) {
      if (evidence.anchor) {
        const entry = byAnchor.get(evidence.anchor) ?? { rules: [], excerpts: [] };
        if (!entry.rules.includes(verdict.rule)) {
          entry.rules.push(verdict.rule);
        }
        entry.excerpts.push(evidence.excerpt);
        byAnchor.set(evidence.anchor, entry);
      }
    }
  }
  return byAnchor;
};

type Highlights = ReturnType<typeof evidenceByAnchor>;

const Flags = ({ anchor, highlights }: { anchor: string; highlights: Highlights }) => {
  const entry = highlights.get(anchor);
  return entry ? (
    <span className="evidence-flag">
      {entry.rules.map((rule) => (
        <span key={rule} className="badge severity-fail">
          evidence: {rule}
        </span>
      ))}
    </span>
  ) : null;
};

const evidenceClass = (anchor: string, highlights: Highlights) => (highlights.has(anchor) ? ' evidence' : '');

const Verdict = ({ verdict, annotationForm }: { verdict: VerdictView; annotationForm?: ReactNode }) => (
  <li className={`verdict verdict-${verdict.status}${verdict.milestone ? ' milestone' : ''}`} id={`v-${verdict.rule}`}>
    <div className="verdict-head">
      <span className={`badge status-${verdict.status}`}>{verdict.status}</span> <code>{verdict.rule}</code>{' '}
      <span className={`badge severity-${verdict.severity}`}>{verdict.severity}</span>{' '}
      <span className="clause">{verdict.clause}</span>
      {verdict.milestone && <span className="badge">milestone</span>}
    </div>
    {verdict.description && <p className="description">{verdict.description}</p>}
    {verdict.evidence.length > 0 && (
      <ul className="evidence-list">
        {verdict.evidence.map((e) => (
          <li key={`${e.seq}-${e.excerpt}`}>
            event #{e.seq} <code>{e.event}</code> ({e.place}
            {e.anchor ? (
              <>
                ,{' '}
                <a href={`#${e.anchor}`}>
                  {e.place === 'conversation' ? 'the message' : e.place === 'call' ? 'the call' : 'the record'}
                </a>
              </>
            ) : null}
            ): <mark>{e.excerpt}</mark>
          </li>
        ))}
      </ul>
    )}
    {verdict.annotations.length > 0 && (
      <ul className="annotations">
        {verdict.annotations.map((a) => (
          <li key={a.id} className={`annotation ${a.stance}`}>
            <strong>{a.stance === 'agree' ? 'Agreed' : 'Disputed'}</strong> by {a.reviewer} ({a.role}) on{' '}
            {instant(a.createdAt)} (evidence entry #{a.auditSeq}){a.onOtherGrade ? ', on an earlier grade' : ''}:{' '}
            {a.comment}
          </li>
        ))}
      </ul>
    )}
    {annotationForm}
  </li>
);

/**
 * One episode as the people in it saw it, with the grade's verdicts and their evidence highlighted in place: the
 * message it quotes, the call that wrote it, the record it changed.
 */
export const EpisodePage = ({
  view,
  links = {},
  annotationForm,
}: {
  view: EpisodeView;
  links?: ReviewLinks;
  annotationForm?: (verdict: VerdictView) => ReactNode;
}) => {
  const highlights = evidenceByAnchor(view.verdicts);
  const failed = view.verdicts.filter((v) => v.status === 'fail');
  const others = view.verdicts.filter((v) => v.status !== 'fail');
  return (
    <article className="episode-page">
      <header>
        <h1>
          Episode <code>{shortId(view.id)}</code> · {view.scenario ?? 'no scenario'}
        </h1>
        <p className="meta">
          Agent <strong>{view.agent ?? view.live?.environment ?? 'unknown'}</strong> · seed {view.seed} · started{' '}
          {instant(view.createdAt)} · {view.events} logged events · stack <code>{view.stackVersion.slice(0, 12)}</code>
          {view.rollout && (
            <>
              {' '}
              · rollout{' '}
              {links.rollout ? (
                <a href={links.rollout(view.rollout.id)}>{shortId(view.rollout.id)}</a>
              ) : (
                <code>{view.rollout.id}</code>
              )}{' '}
              ({view.rollout.task}, trial {view.rollout.trial})
            </>
          )}
        </p>
        <p className="meta">
          Episode id <code>{view.id}</code>
        </p>
        {view.outcome && (
          <p className={`outcome outcome-${view.outcome.status}`}>
            Outcome <strong>{view.outcome.status}</strong>: {view.outcome.reason}
          </p>
        )}
      </header>
      <section className="summary">
        {view.grade ? (
          <>
            <div className="stat">
              <span className="stat-value">{decimal(view.grade.reward)}</span>
              <span className="stat-label">reward</span>
            </div>
            <div className="stat">
              <span className={`stat-value ${view.grade.passed ? 'ok' : 'bad'}`}>
                {view.grade.passed === null ? '–' : view.grade.passed ? 'passed' : 'failed'}
              </span>
              <span className="stat-label">
                graded {instant(view.grade.gradedAt)} · {view.grade.policies} · grader {view.grade.graderVersion}
              </span>
            </div>
            <div className="stat">
              <span className="stat-value">{failed.length}</span>
              <span className="stat-label">
                failed verdicts (
                {Object.entries(view.grade.violations)
                  .filter(([, n]) => n > 0)
                  .map(([severity, n]) => `${n} ${severity}`)
                  .join(', ') || 'no violations'}
                )
              </span>
            </div>
          </>
        ) : (
          <p>Not graded.</p>
        )}
      </section>
      <section className="verdicts">
        <h2>Verdicts</h2>
        <ul>
          {failed.map((v) => (
            <Verdict key={v.rule} verdict={v} annotationForm={annotationForm?.(v)} />
          ))}
        </ul>
        {others.length > 0 && (
          <details open={failed.length === 0}>
            <summary>{others.length} verdicts passed or not applicable</summary>
            <ul>
              {others.map((v) => (
                <Verdict key={v.rule} verdict={v} annotationForm={annotationForm?.(v)} />
              ))}
            </ul>
          </details>
        )}
      </section>
      <section className="conversation">
        <h2>Conversation</h2>
        {view.chat.length === 0 && view.mail.length === 0 && <p>No chat or mail in this episode.</p>}
        {view.chat.map((thread) => (
          <div key={`${thread.channel}-${thread.threadTs}`} className="chat-thread">
            <div className="thread-head" title={thread.channel}>
              # {thread.channelName ?? thread.channel}
            </div>
            {thread.messages.map((m, i) => (
              <div
                key={m.anchor}
                id={m.anchor}
                className={`chat-message${i > 0 ? ' reply' : ''}${evidenceClass(m.anchor, highlights)}`}
              >
                <span className="author" title={m.userId}>
                  {m.user}
                </span>{' '}
                <span className="time">{instant(m.at)}</span> <Flags anchor={m.anchor} highlights={highlights} />
                <div className="text">
                  <HighlightedText text={m.text} excerpts={highlights.get(m.anchor)?.excerpts ?? []} />
                </div>
                {m.edits.length > 0 && <div className="edited">edited; before: {m.edits.join(' → ')}</div>}
                {m.deleted && <div className="deleted">deleted later (text kept above)</div>}
                {m.files.length > 0 && <div className="files">files: {m.files.join(', ')}</div>}
              </div>
            ))}
          </div>
        ))}
        {view.mail.map((conversation) => (
          <div key={conversation.conversationId} className="mail-conversation">
            <div className="thread-head">✉ {conversation.subject || '(no subject)'}</div>
            {conversation.messages.map((m) => (
              <div key={m.anchor} id={m.anchor} className={`mail-message${evidenceClass(m.anchor, highlights)}`}>
                <div className="mail-head">
                  <div>
                    <strong>From</strong> {m.from} · <span className="time">{instant(m.at)}</span>{' '}
                    <Flags anchor={m.anchor} highlights={highlights} />
                  </div>
                  <div>
                    <strong>To</strong> {m.to.join(', ')}
                    {m.cc.length > 0 && ` · Cc ${m.cc.join(', ')}`}
                    {m.bcc.length > 0 && ` · Bcc ${m.bcc.join(', ')}`}
                  </div>
                  <div>
                    <strong>Subject</strong> {m.subject}
                  </div>
                  {m.external.length > 0 && <div className="external">left the company: {m.external.join(', ')}</div>}
                </div>
                <pre className="mail-body">
                  <HighlightedText text={m.body} excerpts={highlights.get(m.anchor)?.excerpts ?? []} />
                </pre>
                {m.attachments.length > 0 && <div className="files">attachments: {m.attachments.join(', ')}</div>}
              </div>
            ))}
          </div>
        ))}
      </section>
      <section className="calls">
        <h2>API calls that changed the twins</h2>
        <table>
          <thead>
            <tr>
              <th className="number">#</th>
              <th>time</th>
              <th>caller</th>
              <th>operation</th>
              <th>result</th>
              <th>changes and events</th>
            </tr>
          </thead>
          <tbody>
            {view.calls.map((c) => (
              <tr
                key={c.anchor}
                id={c.anchor}
                className={`call${evidenceClass(c.anchor, highlights)}${c.refused ? ' refused' : ''}`}
              >
                <td className="number">{c.seqs.join(', ')}</td>
                <td>{instant(c.at)}</td>
                <td>{c.actor ?? 'setup'}</td>
                <td>
                  <code>
                    {c.service ? `${c.service}.` : ''}
                    {c.operationId}
                  </code>{' '}
                  <Flags anchor={c.anchor} highlights={highlights} />
                </td>
                <td>{c.refused ? `refused ${c.status ?? ''}: ${c.refused}` : (c.status ?? 'ok')}</td>
                <td>
                  {c.changes.map((ch) => (
                    <div key={`${ch.table}/${ch.id}`}>
                      {ch.change}{' '}
                      <a href={`#${ch.anchor}`}>
                        {ch.table}/{ch.id}
                      </a>
                    </div>
                  ))}
                  {c.events.map((name, i) => (
                    <div key={`${name}-${i}`} className="event-name">
                      {name}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="quiet-calls">
        <h2>Calls that changed nothing</h2>
        <p className="note">
          Reads, and calls the twins answered without a change or an attempt on record (malformed, faulted, replayed),
          by every caller, built-in agents and people included; recorded beside the log, which holds only changes.
          {view.quietCallCount > view.quietCalls.length &&
            ` The first ${view.quietCalls.length} of ${view.quietCallCount} are shown.`}
        </p>
        {view.quietCalls.length === 0 ? (
          <p>None recorded.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th className="number">after #</th>
                <th>time</th>
                <th>caller</th>
                <th>operation</th>
                <th>request</th>
                <th>result</th>
              </tr>
            </thead>
            <tbody>
              {view.quietCalls.map((c) => (
                <tr key={c.anchor} id={c.anchor} className="quiet-call">
                  <td className="number">{c.afterSeq}</td>
                  <td>{instant(c.at)}</td>
                  <td>{c.actor ?? 'unknown'}</td>
                  <td>
                    <code>
                      {c.service}.{c.operationId ?? '(no operation)'}
                    </code>
                  </td>
                  <td>
                    <code>
                      {c.method} {c.path}
                    </code>
                  </td>
                  <td>{c.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {view.toolCalls.length > 0 && (
        <section className="tool-calls">
          <h2>Tool calls of the agent</h2>
          <ol>
            {view.toolCalls.map((t) => (
              <li key={t.anchor} id={t.anchor} className={t.isError ? 'tool-error' : ''}>
                <code>{t.name}</code>({jsonText(t.arguments)}) → {jsonText(t.observation, 400)}
              </li>
            ))}
          </ol>
        </section>
      )}
      <section className="state-diff">
        <h2>State diff of the twins</h2>
        {view.stateDiff.map((r) => (
          <details
            key={r.anchor}
            id={r.anchor}
            className={`record record-${r.change}${evidenceClass(r.anchor, highlights)}`}
            open={highlights.has(r.anchor)}
          >
            <summary>
              <span className={`badge change-${r.change}`}>{r.change}</span>{' '}
              <code>
                {r.table}/{r.id}
              </code>{' '}
              (events {r.seqs.join(', ')})
              {r.seeded
                ? r.beforeKnown
                  ? ' · seeded record: before as its world seed builds it'
                  : ' · seeded record: its state before the episode is unknown (its world could not be rebuilt)'
                : ''}
            </summary>
            <table>
              <tbody>
                {r.fields.map((f) => (
                  <tr key={f.field}>
                    <th>{f.field}</th>
                    {r.change === 'deleted' ? (
                      <td className="before">{jsonText(f.before)}</td>
                    ) : r.change === 'updated' && r.beforeKnown ? (
                      <>
                        <td className="before">{jsonText(f.before)}</td>
                        <td className="after">{jsonText(f.after)}</td>
                      </>
                    ) : (
                      <td>{jsonText(f.after)}</td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        ))}
      </section>
    </article>
  );
};
