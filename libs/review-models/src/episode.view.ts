import type { Grade } from '@libs/graders';
import type {
  AnnotationRow,
  EpisodeCallRow,
  ReviewedEpisodeRow,
  StoredGrade,
  TrajectoryStepRow,
} from '@libs/persistence';
import type { World } from '@libs/synthetic-data';
import type { LoggedEvent } from '@libs/twin-engine';

import { apiCalls, quietCalls, toolCalls } from './episode-calls';
import { chatThreads, mailConversations } from './episode-conversation';
import type { PolicyRuleText } from './policy-rules';
import { nameDirectory } from './record-names';
import type { ApiCall, EpisodeView, EvidenceLocation, RecordDiff, VerdictView } from './review-view-models';
import { stateDiff } from './state-diff';

export interface EpisodeMaterial {
  episode: ReviewedEpisodeRow;
  log: readonly LoggedEvent[];
  grades: readonly StoredGrade<Grade>[];
  trajectory: readonly TrajectoryStepRow[];
  /** Calls that changed nothing, the first of them, and how many there are in all. */
  quiet?: { calls: readonly EpisodeCallRow[]; count: number };
  annotations: readonly AnnotationRow[];
  rules: ReadonlyMap<string, PolicyRuleText>;
  /** The world the episode started from, rebuilt from its seed: names of ids, seeded records' values before it. */
  world?: World;
}

/** Where a verdict's evidence sits: the message it quotes, the call that wrote it, or the record it changed. */
const locate = (
  evidence: { seq: number; event: string; excerpt: string },
  messages: ReadonlyMap<number, string>,
  calls: readonly ApiCall[],
  diff: readonly RecordDiff[],
): EvidenceLocation => {
  const message = messages.get(evidence.seq);
  if (message) {
    return { ...evidence, anchor: message, place: 'conversation' };
  }
  const call = calls.find((c) => c.seqs.includes(evidence.seq));
  if (call) {
    return { ...evidence, anchor: call.anchor, place: 'call' };
  }
  const record = diff.find((r) => r.seqs.includes(evidence.seq));
  return record ? { ...evidence, anchor: record.anchor, place: 'state' } : { ...evidence, anchor: null, place: 'log' };
};

const outcomeOf = (value: unknown): { status: string; reason: string } | null => {
  const outcome = value as { status?: unknown; reason?: unknown } | null | undefined;
  return typeof outcome?.status === 'string'
    ? { status: outcome.status, reason: typeof outcome.reason === 'string' ? outcome.reason : '' }
    : null;
};

/**
 * An episode as a reviewer reads it: the conversation as the people in it saw it, every call that wrote to the
 * twins (and an outside agent's every tool call), what the twins' state became, and each verdict of the latest grade
 * with its evidence located in those, and the reviewers' annotations beside it.
 */
export const episodeView = ({
  episode,
  log,
  grades,
  trajectory,
  quiet = { calls: [], count: 0 },
  annotations,
  rules,
  world,
}: EpisodeMaterial): EpisodeView => {
  const chat = chatThreads(log, nameDirectory(world, log));
  const mail = mailConversations(log);
  const calls = apiCalls(log);
  const diff = stateDiff(log, world && ((table, id) => world.tables.get(table)?.records.get(id)));
  const messages = new Map<number, string>([
    ...chat.flatMap((t) => t.messages.map((m) => [m.seq, m.anchor] as const)),
    ...mail.flatMap((c) => c.messages.map((m) => [m.seq, m.anchor] as const)),
  ]);
  const latest = grades[grades.length - 1];
  const verdicts: VerdictView[] = (latest?.grade.verdicts ?? []).map((v) => ({
    rule: v.rule,
    kind: v.kind,
    clause: v.clause,
    description: rules.get(v.rule)?.description ?? null,
    severity: v.severity,
    status: v.status,
    milestone: v.milestone ?? false,
    evidence: v.evidence.map((e) => locate(e, messages, calls, diff)),
    annotations: annotations
      .filter((a) => a.rule === v.rule)
      .map((a) => ({
        id: a.id,
        rule: a.rule,
        stance: a.stance,
        comment: a.comment,
        reviewer: a.reviewer,
        role: a.role,
        auditSeq: a.auditSeq,
        createdAt: a.createdAt,
        onOtherGrade: a.policies !== latest.policies || a.graderVersion !== latest.graderVersion,
      })),
  }));
  const grade = latest?.grade;
  return {
    id: episode.id,
    stackVersion: episode.stackVersion,
    seed: episode.seed,
    createdAt: episode.createdAt,
    scenario: episode.run?.scenarioId ?? episode.scenario?.id ?? episode.live?.task ?? null,
    agent: episode.run?.agent ?? null,
    rollout: episode.rollout,
    live: episode.live
      ? {
          environment: episode.live.environment,
          task: episode.live.task,
          status: episode.live.status,
          steps: episode.live.steps,
        }
      : null,
    outcome: outcomeOf(episode.run?.outcome) ?? outcomeOf(episode.live?.result),
    grade:
      latest && grade
        ? {
            policies: latest.policies,
            graderVersion: latest.graderVersion,
            gradedAt: latest.gradedAt,
            status: grade.status,
            reward: grade.reward,
            passed: grade.passed,
            breakdown: { ...grade.breakdown },
            violations: { ...grade.violations },
          }
        : null,
    otherGrades: Math.max(0, grades.length - 1),
    chat,
    mail,
    calls,
    quietCalls: quietCalls(quiet.calls),
    quietCallCount: quiet.count,
    toolCalls: toolCalls(trajectory),
    stateDiff: diff,
    verdicts,
    events: log.length,
  };
};
