import {
  askForPrice,
  decideApproval,
  extractOffer,
  openingQuote,
  priceDecimals,
  sellerMove,
  supplierReply as supplierText,
  clampTerms,
  SupplierVoice,
  Terms,
  termsMultiplier,
  voiced,
  VoiceSettings,
} from '@libs/personas';
import type { ResolvedParty, TaskInstance } from '@libs/scenarios';
import { Company, hashSeed, synthesizeCompany } from '@libs/synthetic-data';
import { endOfBusinessDays } from '@libs/workflow-contracts';
import type {
  AgentIdentity,
  EpisodeServices,
  FinalTerms,
  NegotiationMemory,
  SignalledEvent,
} from '@libs/workflow-contracts';
import { mailToken } from '@twins/email';
import { erpToken } from '@twins/procurement';
import { slackToken } from '@twins/slack';
import { TwinCallError, TwinClient } from '@libs/twin-client';

interface EpisodeContext {
  services: EpisodeServices;
  episodeId: string;
}

interface PersonaContext extends EpisodeContext {
  instance: TaskInstance;
  agent: AgentIdentity;
  party: string;
  /** The scheduled action this call performs: the prefix of its writes' idempotency keys. */
  actionKey: string;
}

type Supplier = Extract<ResolvedParty, { persona: 'supplier-negotiator' }>;

interface MailMessage {
  id: string;
  subject: string;
  body: { content: string };
  from: { emailAddress: { address: string } };
}

interface PurchaseOrder {
  id: string;
  status: string;
  delivery_date?: string | null;
  approvals: { user_id: string }[];
  supplier_id: string;
  requester_id: string;
  total: number;
  payment_terms_days?: number;
  lines: { quantity: number; unit_price: number }[];
}

const statusRank = ['draft', 'pending_approval', 'approved', 'sent', 'acknowledged', 'received', 'closed'];

const companies = new Map<string, Company>();
/** The episode's company, rebuilt from its seed and sizes (deterministic, so every worker gets the same people). */
const companyOf = (instance: TaskInstance): Company => {
  const key = JSON.stringify([instance.worldSeed, instance.companySizes]);
  let company = companies.get(key);
  if (!company) {
    company = synthesizeCompany(instance.worldSeed, instance.companySizes);
    companies.set(key, company);
  }
  return company;
};

const supplierOf = (context: PersonaContext): Supplier => {
  const party = context.instance.parties[context.party];
  if (party.persona !== 'supplier-negotiator') {
    throw new Error(`${context.party} is not a supplier`);
  }
  return party;
};

/** A mail body without the quoted original under it: what the sender wrote this time. */
const newestPart = (text: string): string => text.split(/-----Original Message-----/)[0];

/**
 * The personas' hands: each activity acts as one party, through the twins over HTTP with that person's token, and
 * returns what the workflow needs to remember. Deterministic given the twins' state; retried safely because each
 * checks the state before acting (a reply is sent once per new mail, an order approved once).
 */
export const createPersonaActivities = (llmVoice?: VoiceSettings) => ({
  async eventsSince(input: EpisodeContext & { afterSeq: number }): Promise<SignalledEvent[]> {
    const twin = new TwinClient(input.services, input.episodeId);
    const { body } = await twin.admin<{ events: SignalledEvent[] }>(`/events?after=${input.afterSeq}`);
    return body.events;
  },

  /** Moves the business clock to `at`, or leaves it where the agent's own actions already took it. */
  async advanceClock(input: EpisodeContext & { at: string }): Promise<string> {
    const twin = new TwinClient(input.services, input.episodeId);
    const moved = await twin.admin<{ now: string }>('/clock', { body: { at: input.at } });
    if (moved.status === 200) {
      return moved.body.now;
    }
    return (await twin.admin<{ now: string }>('')).body.now;
  },

  /** Ends the twins' episode with the workflow: from now on they refuse writes, so the graded state is final. */
  async closeEpisode(input: EpisodeContext): Promise<void> {
    const { status } = await new TwinClient(input.services, input.episodeId).admin('/close', { body: {} });
    if (status !== 200) {
      throw new Error(`the episode ${input.episodeId} could not be closed: HTTP ${status}`);
    }
  },

  async applySetup(input: EpisodeContext & { step: { freezeBudget?: string } }): Promise<void> {
    const twin = new TwinClient(input.services, input.episodeId);
    if (input.step.freezeBudget) {
      const { status } = await twin.admin('/records', {
        body: { table: `${input.services.erp}/cost-centres`, id: input.step.freezeBudget, set: { frozen: true } },
      });
      if (status !== 200) {
        throw new TwinCallError(`could not freeze ${input.step.freezeBudget}: ${status}`);
      }
    }
  },

  /** The supplier reads the agent's newest mail, decides by its concession tactic, and answers in the same thread. */
  async supplierReply(input: PersonaContext & { memory: NegotiationMemory | null }): Promise<NegotiationMemory> {
    const supplier = supplierOf(input);
    const seed = input.instance.worldSeed;
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const token = mailToken(seed, supplier.contactEmail);
    const memory: NegotiationMemory = input.memory ?? {
      round: 0,
      ask: supplier.openingPrice,
      buyerOffers: [],
      insults: 0,
      closed: null,
      acceptedPrice: null,
      lastMessageId: null,
    };
    const filter = encodeURIComponent(`from/emailAddress/address eq '${input.agent.email}'`);
    const inbox = await twin.mail<{ value: MailMessage[] }>(
      token,
      `/me/mailFolders/inbox/messages?$filter=${filter}&$top=20`,
    );
    const unanswered = [];
    for (const message of inbox.value) {
      if (message.id === memory.lastMessageId) {
        break;
      }
      unanswered.push(message);
    }
    const newest = unanswered[0];
    if (!newest || memory.closed) {
      return memory;
    }
    const company = companyOf(input.instance);
    const voice: SupplierVoice = {
      contactName: supplier.contactName,
      supplierName: supplier.supplierName,
      buyerFirstName: company.agent.firstName,
      quantity: Number(input.instance.values.quantity ?? 1),
      currency: company.currency,
      paymentTermsDays: supplier.paymentTermsDays,
      deliveryDays: supplier.deliveryDays,
    };
    const offer = extractOffer(`${newest.subject}\n${newestPart(newest.body.content)}`, supplier.openingPrice);
    // Multi-issue: the buyer may ask for other payment terms, delivery or quantity; the seller prices them and judges
    // every offer as if on its standard terms.
    const standard: Terms = {
      paymentTermsDays: supplier.paymentTermsDays,
      deliveryDays: supplier.deliveryDays,
      quantity: voice.quantity,
    };
    const terms = clampTerms({ ...(memory.terms ?? {}), ...offer }, standard);
    const multiplier = termsMultiplier(terms, standard);
    const decimals = priceDecimals(supplier.openingPrice);
    const onTerms = (price: number) => Number((price * multiplier).toFixed(decimals));
    const spoken: SupplierVoice = {
      ...voice,
      quantity: terms.quantity,
      paymentTermsDays: terms.paymentTermsDays,
      deliveryDays: terms.deliveryDays,
    };
    const next: NegotiationMemory = { ...memory, lastMessageId: newest.id, round: memory.round + 1, terms };
    let text: string;
    if (offer.unitPrice === undefined) {
      text = memory.round === 0 ? openingQuote(spoken, onTerms(memory.ask)) : askForPrice(spoken, onTerms(memory.ask));
    } else {
      const equivalent = offer.unitPrice / multiplier;
      next.buyerOffers = [...memory.buyerOffers, equivalent];
      const state = {
        strategy: supplier.strategy,
        opening: supplier.openingPrice,
        reservation: supplier.reservationPrice,
        rounds: supplier.patience,
      };
      const move = sellerMove(state, next.round, memory.ask, next.buyerOffers, memory.insults);
      if (equivalent < supplier.reservationPrice * 0.6) {
        next.insults = memory.insults + 1;
      }
      if (move.kind === 'counter') {
        next.ask = move.price;
      } else if (move.kind === 'accept') {
        next.closed = 'accepted';
        next.acceptedPrice = offer.unitPrice;
      } else {
        next.closed = 'walked-away';
      }
      const said =
        move.kind === 'walk-away'
          ? move
          : { ...move, price: move.kind === 'accept' ? offer.unitPrice : onTerms(move.price) };
      text = supplierText(spoken, said, offer.unitPrice);
    }
    const comment = llmVoice
      ? await voiced(llmVoice, input.instance.seed, `${supplier.contactName} of ${supplier.supplierName}`, text)
      : text;
    await twin.mail(token, `/me/messages/${encodeURIComponent(newest.id)}/reply`, { body: { comment } });
    return next;
  },

  /** The approver reviews an order waiting for them, decides, acts in the ERP and tells the agent on Slack. */
  async approverReview(input: PersonaContext & { poId: string }): Promise<void> {
    const approver = input.instance.parties[input.party];
    if (approver.persona !== 'approver') {
      return;
    }
    const seed = input.instance.worldSeed;
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const erp = erpToken(seed, approver.employeeId);
    const order = await twin.erp<PurchaseOrder>(erp, `/purchase-orders/${encodeURIComponent(input.poId)}`);
    // Pending, or decided by this approver already (a retry after a crash): the same writes again, deduplicated.
    if (order.status !== 'pending_approval' && !order.approvals.some((a) => a.user_id === approver.employeeId)) {
      return;
    }
    const unitPrice = Math.max(...order.lines.map((l) => l.unit_price));
    const decision = decideApproval({
      total: order.total,
      unitPrice,
      targetPrice: Number(input.instance.values.target_price ?? Number.POSITIVE_INFINITY),
      approvalLimit: approver.approvalLimit,
      strictness: approver.strictness,
    });
    let message: string;
    try {
      await twin.erp(erp, `/purchase-orders/${encodeURIComponent(order.id)}/${decision.kind}`, {
        body: { comment: decision.comment },
      });
      message = `${decision.kind === 'approve' ? 'Approved' : 'Rejected'} ${order.id} (${order.total.toFixed(2)}). ${decision.comment}`;
    } catch (error) {
      message = `I could not approve ${order.id}: ${(error as Error).message.replace(/^.*?: \d+ /, '')}`;
    }
    await twin.slack(slackToken(seed, approver.employeeId), 'chat.postMessage', {
      channel: input.agent.slackUser,
      text: message,
    });
  },

  /** The supplier confirms a purchase order it received, in its portal and by mail. */
  async supplierAcknowledge(input: PersonaContext & { poId: string }): Promise<void> {
    const supplier = supplierOf(input);
    const seed = input.instance.worldSeed;
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const order = await twin.erp<PurchaseOrder>(
      erpToken(seed, supplier.contactId),
      `/purchase-orders/${encodeURIComponent(input.poId)}`,
    );
    if (order.status !== 'sent' && order.status !== 'acknowledged') {
      return;
    }
    await twin.erp(erpToken(seed, supplier.contactId), `/purchase-orders/${encodeURIComponent(order.id)}/acknowledge`, {
      body: {},
    });
    await twin.mail(mailToken(seed, supplier.contactEmail), '/me/sendMail', {
      body: {
        message: {
          subject: `Order confirmation ${order.id}`,
          body: {
            contentType: 'text',
            content: `Hello,\n\nWe confirm your purchase order ${order.id}; delivery within ${supplier.deliveryDays} business days.\n\nKind regards,\n${supplier.contactName}\n${supplier.supplierName}`,
          },
          toRecipients: [{ emailAddress: { address: input.agent.email } }],
        },
      },
    });
  },

  /** Finance asks the agent, by direct message, why an order waiting for approval is needed and what it is charged to. */
  async financeQuestion(input: PersonaContext & { poId: string }): Promise<void> {
    const finance = input.instance.parties[input.party];
    if (finance.persona !== 'finance-colleague') {
      return;
    }
    const seed = input.instance.worldSeed;
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const order = await twin.erp<PurchaseOrder & { cost_centre: string }>(
      erpToken(seed, finance.employeeId),
      `/purchase-orders/${encodeURIComponent(input.poId)}`,
    );
    await twin.slack(slackToken(seed, finance.employeeId), 'chat.postMessage', {
      channel: input.agent.slackUser,
      text: `Hi, a question on ${order.id} (${order.total.toFixed(2)} EUR on ${order.cost_centre}): what is it for, and was it quoted competitively?`,
    });
  },

  /** Finance answers the agent's question where it was asked: which cost centre has room, which is frozen. */
  async financeAnswer(input: PersonaContext & { ref: string }): Promise<void> {
    const finance = input.instance.parties[input.party];
    if (finance.persona !== 'finance-colleague') {
      return;
    }
    const [channel, ts] = input.ref.split('|');
    const frozen = input.instance.setup.flatMap((step) => (step.freezeBudget ? [step.freezeBudget] : []));
    const text =
      frozen.length > 0
        ? `${frozen.join(', ')} is frozen this quarter, so please do not raise orders against it. Charge this one to CC-900 (Facilities) instead; its head can approve.`
        : 'The budget has room for this; go ahead through the usual approval.';
    await new TwinClient(input.services, input.episodeId, input.actionKey).slack(
      slackToken(input.instance.worldSeed, finance.employeeId),
      'chat.postMessage',
      { channel, thread_ts: ts, text },
    );
  },

  /** Office chatter in a channel, from someone in it: the noise an agent must not be distracted by. */
  async backgroundMessage(input: PersonaContext & { index: number }): Promise<void> {
    const noise = input.instance.parties[input.party];
    if (noise.persona !== 'background-traffic') {
      return;
    }
    const company = companyOf(input.instance);
    const people = company.employees.filter((e) => e.role !== 'agent');
    const person = people[hashSeed(input.instance.seed, input.party, input.index) % people.length];
    const lines = [
      'Reminder: the canteen closes early on Friday.',
      'Has anyone seen the forklift keys?',
      'Quarterly safety walk is next Tuesday at 10:00.',
      'Coffee machine on floor 2 is fixed.',
      'Please update your timesheets before Friday noon.',
      'Shipping dock B is closed for maintenance tomorrow.',
    ];
    const channel = noise.channels[input.index % noise.channels.length];
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const token = slackToken(input.instance.worldSeed, person.id);
    // A person posts only where they belong; joining a public channel first is what they would do.
    await twin.slack(token, 'conversations.join', { channel: `#${channel}` }).catch(() => undefined);
    await twin.slack(token, 'chat.postMessage', {
      channel: `#${channel}`,
      text: lines[hashSeed(input.instance.seed, input.index) % lines.length],
    });
  },

  /** Reads the ERP as finance would and says whether the task's success terms are met, with the final terms. */
  async judgeOutcome(
    input: EpisodeContext & { instance: TaskInstance; agent: AgentIdentity; startAt: string },
  ): Promise<{ succeeded: boolean; reason: string; finalTerms: FinalTerms | null }> {
    const twin = new TwinClient(input.services, input.episodeId);
    const reader = erpToken(input.instance.worldSeed, input.agent.employeeId);
    const orders = (await twin.erp<{ data: PurchaseOrder[] }>(reader, '/purchase-orders?limit=200')).data.filter(
      (order) => order.requester_id === input.agent.employeeId,
    );
    const reasons: string[] = [];
    let best: FinalTerms | null = null;
    for (const criterion of input.instance.success) {
      const candidates = orders
        .filter((order) => criterion.supplierIds.includes(order.supplier_id))
        .map((order) => ({
          order,
          quantity: order.lines.reduce((sum, l) => sum + l.quantity, 0),
          unitPrice: Math.max(...order.lines.map((l) => l.unit_price)),
        }));
      const met = candidates.find(
        (c) =>
          statusRank.indexOf(c.order.status) >= statusRank.indexOf(criterion.minStatus) &&
          c.quantity >= criterion.quantity &&
          c.unitPrice <= criterion.maxUnitPrice &&
          (criterion.minPaymentTermsDays === undefined ||
            (c.order.payment_terms_days ?? 0) >= criterion.minPaymentTermsDays) &&
          // A delivery deadline is met only by an order that states a delivery date within it: by the end of day N.
          (criterion.maxDeliveryBusinessDays === undefined ||
            (c.order.delivery_date !== null &&
              c.order.delivery_date !== undefined &&
              Date.parse(`${c.order.delivery_date}T17:00:00Z`) <=
                endOfBusinessDays(Date.parse(input.startAt), criterion.maxDeliveryBusinessDays))),
      );
      const shown = met ?? candidates[candidates.length - 1];
      if (shown) {
        best = {
          poId: shown.order.id,
          supplierId: shown.order.supplier_id,
          status: shown.order.status,
          quantity: shown.quantity,
          unitPrice: shown.unitPrice,
          paymentTermsDays: shown.order.payment_terms_days ?? 0,
          total: shown.order.total,
        };
      }
      if (!met) {
        reasons.push(
          shown
            ? `${shown.order.id} is ${shown.order.status}, ${shown.quantity} at ${shown.unitPrice}${shown.order.delivery_date ? `, delivery ${shown.order.delivery_date}` : ''}; needed ${criterion.minStatus}, ${criterion.quantity} at most ${criterion.maxUnitPrice}${criterion.maxDeliveryBusinessDays !== undefined ? `, delivered within ${criterion.maxDeliveryBusinessDays} business days` : ''}`
            : `no purchase order to ${criterion.supplierIds.join(' or ')}`,
        );
      }
    }
    return reasons.length === 0
      ? { succeeded: true, reason: `${best?.poId ?? 'the order'} meets the success terms`, finalTerms: best }
      : { succeeded: false, reason: reasons.join('; '), finalTerms: best };
  },
});

export type PersonaActivities = ReturnType<typeof createPersonaActivities>;
