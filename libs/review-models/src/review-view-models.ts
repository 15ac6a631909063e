import type { RolloutFilters, Severity } from './rollout-filters';

/*
 * The shapes the console and the reports render: plain JSON, built on the server from what is stored, so the browser
 * imports these types only and no server code.
 */

export interface RuleTally {
  rule: string;
  severity: Severity | null;
  /** Trials that violated it. */
  episodes: number;
}

export interface RolloutListItem {
  id: string;
  bundle: string;
  agent: string;
  /** The scenarios its tasks are instances of. */
  scenarios: string[];
  trials: number;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  episodes: number;
  graded: number;
  passed: number;
  /** `passed` when every graded trial passed, `failed` when one did not, `ungraded` when none was graded. */
  outcome: 'passed' | 'failed' | 'ungraded';
  violations: RuleTally[];
  signOffs: number;
}

export interface RolloutListView {
  filters: RolloutFilters;
  rollouts: RolloutListItem[];
  /** Of the newest `scanned` rollouts, those the filters kept. */
  matched: number;
  scanned: number;
  /** Values the filters can take, from the rollouts scanned. */
  choices: { scenarios: string[]; agents: string[]; rules: string[] };
}

export interface KValue {
  k: number;
  value: number | null;
}

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

export interface EvidenceRef {
  episodeId: string | null;
  task: string;
  trial: number;
  seq: number;
  event: string;
  excerpt: string;
}

export interface RuleViolations extends RuleTally {
  clause: string | null;
  description: string | null;
  /** Of the graded trials. */
  share: number | null;
  /** The first few pieces of evidence, across trials. */
  evidence: EvidenceRef[];
}

export interface SignOff {
  reviewer: string;
  /** The role the reviewer acted in (`reviewer`, `admin`), from the evidence trail. */
  role: string;
  decision: 'approved' | 'rejected';
  comment: string;
  auditSeq: number;
  signedAt: string;
  /** The rollout's close this sign-off is bound to (null: made before sign-offs were bound). */
  closure: RolloutClosure | null;
}

/** A rollout's `rollout.closed` entry: its place and hash, and the Merkle root it committed to over the record. */
export interface RolloutClosure {
  seq: number;
  entryHash: string;
  merkleRoot: string;
}

export interface RolloutView {
  id: string;
  bundle: string;
  agent: string;
  stackVersion: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  trials: number;
  tasks: string[];
  episodes: number;
  graded: number;
  passed: number;
  passAt: KValue[];
  passHat: KValue[];
  reward: {
    mean: number | null;
    low: number | null;
    high: number | null;
    confidence: number;
    histogram: HistogramBin[];
  };
  violations: RuleViolations[];
  taskRows: {
    task: string;
    episodes: number;
    graded: number;
    passed: number;
    successRate: number | null;
    meanReward: number | null;
    flag: string | null;
  }[];
  trialRows: {
    task: string;
    trial: number;
    episodeId: string | null;
    status: string;
    passed: boolean | null;
    reward: number | null;
    violations: string[];
    reason: string;
  }[];
  signOffs: SignOff[];
  /** What a sign-off binds to; null until the rollout is closed in the evidence trail. */
  closure: RolloutClosure | null;
}

/** Where a piece of evidence sits in the episode page: a message, an API call, or a state change. */
export interface EvidenceLocation {
  seq: number;
  event: string;
  excerpt: string;
  anchor: string | null;
  place: 'conversation' | 'call' | 'state' | 'log';
}

export interface ChatMessage {
  anchor: string;
  seq: number;
  at: string;
  actor: string | null;
  /** Who posted it, by name when the episode's records name them (else their id). */
  user: string;
  /** The poster's id as the chat twin knows them. */
  userId: string;
  text: string;
  ts: string;
  /** The text it had before an edit, and whether it was later deleted (with its text kept). */
  edits: string[];
  deleted: boolean;
  files: string[];
}

export interface ChatThread {
  channel: string;
  /** The channel's name, when the episode's records hold it. */
  channelName: string | null;
  /** The root message's ts; a message outside a thread is its own thread. */
  threadTs: string;
  messages: ChatMessage[];
}

export interface MailMessage {
  anchor: string;
  seq: number;
  at: string;
  actor: string | null;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  attachments: string[];
  /** Recipients outside the simulated company's mailboxes. */
  external: string[];
}

export interface MailConversation {
  conversationId: string;
  subject: string;
  messages: MailMessage[];
}

export interface ApiCall {
  anchor: string;
  /** The log positions this call wrote. */
  seqs: number[];
  at: string;
  actor: string | null;
  service: string | null;
  operationId: string;
  status: number | null;
  refused: string | null;
  changes: { table: string; id: string; change: 'created' | 'updated' | 'deleted'; anchor: string }[];
  events: string[];
}

/** A call to the twins that changed nothing (a read, mostly), recorded beside the log: every caller's, built-in or not. */
export interface QuietCall {
  anchor: string;
  /** The log's last event when it was answered. */
  afterSeq: number;
  at: string;
  actor: string | null;
  service: string;
  operationId: string | null;
  method: string;
  path: string;
  status: number;
}

export interface ToolCall {
  anchor: string;
  index: number;
  at: string;
  name: string;
  arguments: unknown;
  isError: boolean;
  observation: string;
  seqBefore: number;
  seqAfter: number;
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface RecordDiff {
  anchor: string;
  table: string;
  id: string;
  change: 'created' | 'updated' | 'deleted';
  /** The seqs that changed it. */
  seqs: number[];
  /** A record of the seeded world (neither the episode nor its setup made it). */
  seeded: boolean;
  /**
   * Whether `before` is the record as the episode found it: from setup's write, or rebuilt from the world's seed. False
   * for a seeded record whose world could not be rebuilt (its stack is gone): then `before` is unknown, not empty.
   */
  beforeKnown: boolean;
  fields: FieldChange[];
}

export interface VerdictView {
  rule: string;
  kind: string;
  clause: string;
  description: string | null;
  severity: Severity;
  status: 'pass' | 'fail' | 'not_applicable';
  milestone: boolean;
  evidence: EvidenceLocation[];
  annotations: Annotation[];
}

export interface Annotation {
  id: string;
  rule: string;
  stance: 'agree' | 'dispute';
  comment: string;
  reviewer: string;
  /** The role the reviewer acted in (`reviewer`, `admin`), from the evidence trail. */
  role: string;
  auditSeq: number;
  createdAt: string;
  /** The grade it was made on, when that is not the grade shown. */
  onOtherGrade: boolean;
}

export interface EpisodeView {
  id: string;
  stackVersion: string;
  seed: number;
  createdAt: string;
  scenario: string | null;
  agent: string | null;
  rollout: { id: string; task: string; trial: number } | null;
  live: { environment: string; task: string; status: string; steps: number } | null;
  outcome: { status: string; reason: string } | null;
  grade: {
    policies: string;
    graderVersion: string;
    gradedAt: string;
    status: string;
    reward: number | null;
    passed: boolean | null;
    breakdown: Record<string, number>;
    violations: Record<string, number>;
  } | null;
  /** Earlier grades with other policies or graders, not shown. */
  otherGrades: number;
  chat: ChatThread[];
  mail: MailConversation[];
  calls: ApiCall[];
  /** Calls that changed nothing, in the order answered: the first `quietCallsShown` of `quietCallCount`. */
  quietCalls: QuietCall[];
  quietCallCount: number;
  toolCalls: ToolCall[];
  stateDiff: RecordDiff[];
  verdicts: VerdictView[];
  events: number;
}
