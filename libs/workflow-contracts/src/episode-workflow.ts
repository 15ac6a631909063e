import type { TaskInstance } from '@libs/scenarios';
import type { DomainEventOfLog } from '@libs/twin-engine';

/** Where the episode's twins are, and which service of the stack is which pack. */
/** The gateway, and which of the stack's services are the mail, Slack and procurement packs, when it has them. */
export interface EpisodeServices {
  /** The episode's gateway (the one its agent was given). */
  gatewayUrl: string;
  /**
   * Every gateway of a scaled-out deployment (`MIRROR_GATEWAY_URL`), when there are several: each process reaches the
   * episode through the same one of them and moves to the next when it is gone (`@libs/twin-client` gateway-pool).
   */
  gateways?: string[];
  email?: string;
  slack?: string;
  erp?: string;
}

/** The stack's service that is a pack the caller needs (the procurement personas need the ERP): absent, an error. */
export const packService = (services: EpisodeServices, kind: 'email' | 'slack' | 'erp'): string => {
  const service = services[kind];
  if (service === undefined) {
    throw new Error(`the stack has no ${kind} pack`);
  }
  return service;
};

/** Who the agent is in each twin, so the workflow knows which events are the agent's own. */
export interface AgentIdentity {
  employeeId: string;
  email: string;
  slackUser: string;
}

export interface EpisodeWorkflowInput {
  episodeId: string;
  instance: TaskInstance;
  agent: AgentIdentity;
  services: EpisodeServices;
  /** The business clock when the episode starts (ISO 8601). */
  startAt: string;
  /** Carried over when the workflow continues as new. */
  carried?: EpisodeCarry;
  /**
   * Continue as new after handling this many events in one run, besides when Temporal suggests it (a long history):
   * tests set it low to exercise the hand-over.
   */
  continueAsNewAfterEvents?: number;
  /**
   * Continue as new after accepting this many updates (the agent's waits) in one run, 1,000 by default: Temporal
   * refuses more than 2,000 in a run, and an episode of thousands of actions waits more often than that.
   */
  continueAsNewAfterUpdates?: number;
  /**
   * The episode is played by an agent inside one process (a command's or a worker's), which renews this lease (any
   * update, or the `renewLease` signal when it has sent none for a while). A process that dies stops renewing: the
   * episode is then judged as cancelled and closed after this many seconds, not left open to its wall-clock limit.
   * Absent: no lease (an outside agent's episode, kept by the episode API's own expiry).
   */
  leaseSeconds?: number;
}

/** A line of the episode's story: what happened, in business time, and who did it. */
export interface TranscriptEntry {
  at: string;
  actor: string;
  kind: string;
  summary: string;
  seq?: number;
}

export interface FinalTerms {
  poId: string;
  supplierId: string;
  status: string;
  quantity: number;
  unitPrice: number;
  paymentTermsDays: number;
  total: number;
}

export type OutcomeStatus = 'succeeded' | 'failed' | 'horizon' | 'cancelled';

export interface EpisodeOutcome {
  episodeId: string;
  scenarioId: string;
  seed: number;
  status: OutcomeStatus;
  reason: string;
  agentActions: number;
  simulatedBusinessDays: number;
  finalTerms: FinalTerms | null;
  /** The episode's story, built from its log by whoever reads the outcome (`transcriptOf`), never by the workflow. */
  transcript: TranscriptEntry[];
  /**
   * Set by the runner, never the workflow: the agent's own failure (it crashed, called the twins after it was told
   * the episode ended, or kept running after the end). Graded as a critical violation: reward 0, flagged.
   */
  agentError?: string;
}

/**
 * What the episode workflow returns: the outcome without its story, which grows with every action and is read from
 * the log instead (`transcriptOf`). Runs recorded before returned it too; readers replace it.
 */
export type EpisodeWorkflowResult = Omit<EpisodeOutcome, 'transcript'>;

/** A domain event the twins recorded, as the workflow reads it from the episode's log. */
export type SignalledEvent = DomainEventOfLog;

/** A negotiation as the supplier persona remembers it between rounds. */
export interface NegotiationMemory {
  round: number;
  ask: number;
  buyerOffers: number[];
  insults: number;
  closed: 'accepted' | 'walked-away' | null;
  acceptedPrice: number | null;
  /** The newest of the agent's mails already answered: later ones are new. */
  lastMessageId: string | null;
  /** The terms under discussion besides the price (the buyer's latest asks, within what the seller accepts). */
  terms?: { paymentTermsDays: number; deliveryDays: number; quantity: number };
}

export interface ScheduledAction {
  at: number;
  kind:
    | 'supplier-reply'
    | 'approver-review'
    | 'finance-question'
    | 'finance-answer'
    | 'noise'
    | 'supplier-acknowledge'
    | 'reaction';
  party: string;
  ref?: string;
  /** A declared party's reaction: its id, and the event that triggered it (absent for what it does at the start). */
  reaction?: string;
  event?: SignalledEvent & { actor: string };
}

/** What a workflow hands to the run after it when its history grows long. */
export interface EpisodeCarry {
  now: number;
  agenda: ScheduledAction[];
  negotiations: Record<string, NegotiationMemory>;
  /** Carried by runs recorded before the story was built from the log; read by none. */
  transcript?: TranscriptEntry[];
  agentActions: number;
  handledSeq: number;
  questionsAsked?: number;
  /** The refs of the state reactions that fired (each fires once). */
  firedStates?: string[];
  /** Conversations opened with the agent, whose messages its waits report (`conversationWith`). */
  agentConversations?: string[];
  /** When the first run started (workflow time, ms): the wall-clock limit counts from there. */
  startedAt?: number;
}

export interface WaitRequest {
  /** Business days to let pass; by default until the next thing any other party does. */
  businessDays?: number;
}

export interface WaitResult {
  now: string;
  /** What the other parties did while the agent waited. */
  happened: TranscriptEntry[];
  finished: boolean;
}

export const episodeWorkflowNames = {
  workflow: 'episodeWorkflow',
  /** Histories recorded before the workflow read the log itself carry these signals; nothing sends them now. */
  domainEvents: 'domainEvents',
  /** The process playing the agent is alive (`leaseSeconds`). */
  renewLease: 'renewLease',
  /** Resolves once the world is set up (clock at the start, setup applied): the agent acts only after it. */
  ready: 'episodeReady',
  wait: 'agentWait',
  finish: 'agentFinish',
  state: 'episodeState',
} as const;
