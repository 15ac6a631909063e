import type { ResolvedParty, TaskInstance } from '@libs/scenarios';
import { Company, synthesizeCompany } from '@libs/synthetic-data';
import { OperatorClient, TwinClient } from '@libs/twin-client';
import { packService, type AgentIdentity, type EpisodeServices } from '@libs/workflow-contracts';

import type { WrittenQuote } from '../agreement';
import type { VoiceSettings } from '../persona-voice';

export interface EpisodeContext {
  services: EpisodeServices;
  episodeId: string;
}

export interface PersonaContext extends EpisodeContext {
  instance: TaskInstance;
  agent: AgentIdentity;
  party: string;
  /** The scheduled action this call performs: the prefix of its writes' idempotency keys. */
  actionKey: string;
}

/**
 * What a persona acts with, injected by its host: the twins as the person (writes carry the action's idempotency
 * keys), the operator routes that issue its tokens, and an optional LLM voice (templates speak without one).
 */
export interface PersonaHands {
  twin: TwinClient;
  operator: OperatorClient;
  voice?: VoiceSettings;
}

export type Supplier = Extract<ResolvedParty, { persona: 'supplier-negotiator' }>;

export interface MailMessage {
  id: string;
  subject: string;
  body: { content: string };
  from: { emailAddress: { address: string } };
}

/** A purchase order as the ERP answers it: what the personas and the outcome judge read. */
export interface PurchaseOrder {
  id: string;
  status: string;
  created_at: string;
  agreed_quote_id?: string | null;
  history: { to: string; by: string }[];
  delivery_date?: string | null;
  approvals: { user_id: string }[];
  supplier_id: string;
  requester_id: string;
  total: number;
  payment_terms_days?: number;
  lines: { quantity: number; unit_price: number }[];
}

/**
 * The episode's company, rebuilt from its seed, sizes and declaration (deterministic: every worker, same people).
 * `synthesizeCompany` keeps the recent ones (a map here kept every episode's company for the life of the process).
 */
export const companyOf = (instance: TaskInstance): Company =>
  synthesizeCompany(instance.worldSeed, instance.companySizes, instance.companyDeclaration);

/** A persona's tokens, issued by the operator for the person it acts as. */
export const tokensOf = (operator: OperatorClient, services: EpisodeServices) => ({
  erp: (principal: string) => operator.token(packService(services, 'erp'), principal),
  slack: (principal: string) => operator.token(packService(services, 'slack'), principal),
  mail: (principal: string) => operator.token(packService(services, 'email'), principal),
});

/** A supplier's quotes in the ERP, read with `token` (its own portal sees only its own). */
export const quotesOf = async (twin: TwinClient, token: string, supplierId: string): Promise<WrittenQuote[]> =>
  (await twin.erp<{ data: WrittenQuote[] }>(token, `/quotes?supplier_id=${encodeURIComponent(supplierId)}&limit=200`))
    .data;
