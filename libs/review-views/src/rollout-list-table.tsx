import type { RolloutListView } from '@libs/review-models';

import { instant, shortId } from './format';
import type { ReviewLinks } from './review-links';

/** The rollouts the filters kept, newest first. */
export const RolloutListTable = ({ view, links = {} }: { view: RolloutListView; links?: ReviewLinks }) =>
  view.rollouts.length === 0 ? (
    <p className="empty">No rollout matches these filters (of the {view.scanned} newest).</p>
  ) : (
    <table className="rollout-list">
      <thead>
        <tr>
          <th>rollout</th>
          <th>started</th>
          <th>bundle</th>
          <th>agent</th>
          <th>scenarios</th>
          <th className="number">passed</th>
          <th>outcome</th>
          <th>violations</th>
          <th>sign-offs</th>
        </tr>
      </thead>
      <tbody>
        {view.rollouts.map((r) => (
          <tr key={r.id} className={r.outcome}>
            <td>{links.rollout ? <a href={links.rollout(r.id)}>{shortId(r.id)}</a> : <code>{r.id}</code>}</td>
            <td>{instant(r.createdAt)}</td>
            <td>{r.bundle}</td>
            <td>{r.agent}</td>
            <td>{r.scenarios.join(', ')}</td>
            <td className="number">
              {r.passed}/{r.graded}
            </td>
            <td>
              <span className={`badge outcome-${r.outcome}`}>{r.outcome}</span>
            </td>
            <td>
              {r.violations.map((v) => (
                <span key={v.rule} className={`badge severity-${v.severity ?? 'unknown'}`}>
                  {v.rule} ×{v.episodes}
                </span>
              ))}
            </td>
            <td className="number">{r.signOffs}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
