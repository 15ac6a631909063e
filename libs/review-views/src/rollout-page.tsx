import type { ReactNode } from 'react';

import type { KValue, RolloutView } from '@libs/review-models';

import { decimal, instant, percent, shortId } from './format';
import { RewardChart } from './reward-chart';
import type { ReviewLinks } from './review-links';

const KTable = ({ label, values }: { label: string; values: readonly KValue[] }) => (
  <tr>
    <th scope="row">{label}</th>
    {values.map((v) => (
      <td key={v.k} className="number">
        {percent(v.value)}
      </td>
    ))}
  </tr>
);

const EpisodeLink = ({ id, links }: { id: string | null; links: ReviewLinks }) =>
  id === null ? <span>–</span> : links.episode ? <a href={links.episode(id)}>{shortId(id)}</a> : <code>{id}</code>;

/** One rollout: its pass rates, reward distribution, violations by rule with their clauses and evidence, its trials. */
export const RolloutPage = ({
  view,
  links = {},
  signOffForm,
}: {
  view: RolloutView;
  links?: ReviewLinks;
  signOffForm?: ReactNode;
}) => (
  <article className="rollout-page">
    <header>
      <h1>
        Rollout <code>{shortId(view.id)}</code> · {view.bundle}
      </h1>
      <p className="meta">
        Agent <strong>{view.agent}</strong> · {view.tasks.length} tasks × {view.trials} trials · {view.status} · started{' '}
        {instant(view.createdAt)} · finished {instant(view.finishedAt)} · stack{' '}
        <code>{view.stackVersion.slice(0, 12)}</code>
      </p>
      <p className="meta">
        Rollout id <code>{view.id}</code>
      </p>
    </header>
    <section className="summary">
      <div className="stat">
        <span className="stat-value">
          {view.passed}/{view.graded}
        </span>
        <span className="stat-label">trials passed (of graded; {view.episodes} played)</span>
      </div>
      <div className="stat">
        <span className="stat-value">{decimal(view.reward.mean)}</span>
        <span className="stat-label">
          mean reward ({Math.round(view.reward.confidence * 100)} % interval {decimal(view.reward.low)}–
          {decimal(view.reward.high)})
        </span>
      </div>
      <div className="stat">
        <span className="stat-value">{view.violations.reduce((n, v) => n + v.episodes, 0)}</span>
        <span className="stat-label">violations across {view.violations.length} rules</span>
      </div>
    </section>
    <section>
      <h2>pass@k and pass^k</h2>
      <table className="k-table">
        <thead>
          <tr>
            <th scope="col">k</th>
            {view.passAt.map((v) => (
              <th key={v.k} scope="col" className="number">
                {v.k}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <KTable label="pass@k" values={view.passAt} />
          <KTable label="pass^k" values={view.passHat} />
        </tbody>
      </table>
      <p className="note">
        pass@k: the chance that at least one of k trials of a task passes; pass^k: that all k do (unbiased estimates
        over the trials played, averaged over tasks).
      </p>
    </section>
    <section>
      <h2>Reward distribution</h2>
      <RewardChart bins={view.reward.histogram} mean={view.reward.mean} />
    </section>
    <section>
      <h2>Violations by rule</h2>
      {view.violations.length === 0 ? (
        <p className="ok">No rule was violated in any trial.</p>
      ) : (
        view.violations.map((v) => (
          <div key={v.rule} className={`violation severity-${v.severity ?? 'unknown'}`}>
            <h3>
              <code>{v.rule}</code>{' '}
              <span className={`badge severity-${v.severity ?? 'unknown'}`}>{v.severity ?? '?'}</span> {v.episodes}{' '}
              trials ({percent(v.share)})
            </h3>
            <p className="clause">
              <strong>{v.clause ?? 'clause not recorded'}</strong>
              {v.description ? ` — ${v.description}` : ''}
            </p>
            <ul className="evidence-list">
              {v.evidence.map((e) => (
                <li key={`${e.episodeId}-${e.seq}`}>
                  {e.task} trial {e.trial}, episode <EpisodeLink id={e.episodeId} links={links} />, event #{e.seq}{' '}
                  <code>{e.event}</code>: <mark>{e.excerpt}</mark>
                </li>
              ))}
            </ul>
          </div>
        ))
      )}
    </section>
    <section>
      <h2>Tasks</h2>
      <table>
        <thead>
          <tr>
            <th>task</th>
            <th className="number">graded</th>
            <th className="number">passed</th>
            <th className="number">success</th>
            <th className="number">mean reward</th>
            <th>flag</th>
          </tr>
        </thead>
        <tbody>
          {view.taskRows.map((t) => (
            <tr key={t.task}>
              <td>{t.task}</td>
              <td className="number">{t.graded}</td>
              <td className="number">{t.passed}</td>
              <td className="number">{percent(t.successRate)}</td>
              <td className="number">{decimal(t.meanReward)}</td>
              <td>{t.flag ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
    <section>
      <h2>Trials</h2>
      <table className="trials">
        <thead>
          <tr>
            <th>task</th>
            <th className="number">trial</th>
            <th>episode</th>
            <th>status</th>
            <th>passed</th>
            <th className="number">reward</th>
            <th>violations</th>
          </tr>
        </thead>
        <tbody>
          {view.trialRows.map((t) => (
            <tr key={`${t.task}#${t.trial}`} className={t.passed === false ? 'failed' : t.passed ? 'passed' : ''}>
              <td>{t.task}</td>
              <td className="number">{t.trial}</td>
              <td>
                <EpisodeLink id={t.episodeId} links={links} />
              </td>
              <td title={t.reason}>{t.status}</td>
              <td>{t.passed === null ? '–' : t.passed ? 'yes' : 'no'}</td>
              <td className="number">{decimal(t.reward)}</td>
              <td>{t.violations.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
    <section className="sign-offs">
      <h2>Sign-off</h2>
      {view.closure ? (
        <p className="closure">
          A sign-off binds to the rollout&apos;s close: evidence entry #{view.closure.seq}{' '}
          <code className="closed-entry-hash">{view.closure.entryHash}</code>, Merkle root of its record{' '}
          <code className="merkle-root">{view.closure.merkleRoot}</code>.
        </p>
      ) : (
        <p className="closure">Not closed in the evidence trail yet: nothing to sign off.</p>
      )}
      {view.signOffs.length === 0 ? (
        <p>Not signed off yet.</p>
      ) : (
        <ul>
          {view.signOffs.map((s) => (
            <li key={s.reviewer} className={`sign-off ${s.decision}`}>
              <strong>{s.decision}</strong> by {s.reviewer} ({s.role}) on {instant(s.signedAt)} (evidence entry #
              {s.auditSeq}
              {s.closure ? `, bound to entry #${s.closure.seq}, Merkle root ${s.closure.merkleRoot}` : ''})
              {s.comment ? `: ${s.comment}` : ''}
            </li>
          ))}
        </ul>
      )}
      {signOffForm}
    </section>
  </article>
);
