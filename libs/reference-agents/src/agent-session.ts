import type { CallInit } from '@libs/twin-client';
import type { EpisodeOutcome, WaitResult } from '@libs/workflow-contracts';

import type { PurchaseBrief } from './purchase-brief';

/** Who the agent is: the identity the company gave it, with a mailbox, a Slack user and an ERP user. */
export interface AgentIdentity {
  employeeId: string;
  name: string;
  email: string;
  slackUser: string;
}

/** One twin as the agent reaches it: where it is served and the agent's own token for it. */
export interface AgentEndpoint {
  baseUrl: string;
  token: string;
}

/**
 * What an agent gets for one episode: its brief (the goal and context it may read, never the hidden facts), the
 * twins (each called with its own token, over HTTP like any client), and two verbs of its own: let business time
 * pass, and declare it is done.
 */
export interface AgentSession {
  brief: { goal: string; context: string; policy?: string; tools: string[] };
  identity: AgentIdentity;
  /**
   * The twins for any HTTP client or vendor SDK: for every service of the scenario's tools, by its name in the stack
   * (the client's own spec twins, its data twins, the packs), the base URL and the agent's own bearer token; `mail`,
   * `slack` and `erp` also name the mail, Slack and procurement packs. What is reachable here is all an agent gets; the
   * twins record every call made with these tokens.
   */
  endpoints: Record<string, AgentEndpoint>;
  /**
   * For the built-in procurement demo agents only (in-process, never an agent under test): the purchase the instance
   * asks for, from its success terms and parties (purchase-brief.ts). No hidden fact is in it.
   */
  purchase?: PurchaseBrief;
  mail<T>(path: string, init?: CallInit): Promise<T>;
  slack<T extends { ok: boolean; error?: string }>(method: string, args: Record<string, unknown>): Promise<T>;
  erp<T>(path: string, init?: CallInit): Promise<T>;
  wait(businessDays?: number): Promise<WaitResult>;
  /** The business date and time in the episode (ISO 8601), as the agent's own calendar shows it. */
  now(): string;
  finish(): Promise<EpisodeOutcome>;
}

export interface ReferenceAgent {
  name: string;
  run(session: AgentSession): Promise<void>;
}
