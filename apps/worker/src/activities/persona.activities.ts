import {
  ApprovalDecision,
  askForPrice,
  decideApproval,
  extractOffer,
  openingQuote,
  orderAgreement,
  orderConfirmation,
  orderRefusal,
  priceDecimals,
  sellerMove,
  supplierReply as supplierText,
  clampTerms,
  SupplierVoice,
  Terms,
  termsMultiplier,
  voiced,
  VoiceSettings,
  WrittenQuote,
} from '@libs/personas';
import { judgeOutcome, OutcomeVerdict, twinOutcomeSources } from '@libs/outcomes';
import type { ResolvedParty, SetupStepInstance, TaskInstance } from '@libs/scenarios';
import { Company, hashSeed, synthesizeCompany } from '@libs/synthetic-data';
import { packService } from '@libs/workflow-contracts';
import type { AgentIdentity, EpisodeServices, NegotiationMemory, SignalledEvent } from '@libs/workflow-contracts';
import { OperatorClient, TwinCallError, TwinClient } from '@libs/twin-client';

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

const companies = new Map<string, Company>();
/** The episode's company, rebuilt from its seed, sizes and declaration (deterministic: every worker, same people). */
const companyOf = (instance: TaskInstance): Company => {
  const key = JSON.stringify([instance.worldSeed, instance.companySizes, instance.companyDeclaration]);
  let company = companies.get(key);
  if (!company) {
    company = synthesizeCompany(instance.worldSeed, instance.companySizes, instance.companyDeclaration);
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

/** The episode's operator routes, with the key this worker was given (never in a workflow's input). */
const operatorOf = (operatorKey: string, input: EpisodeContext) =>
  new OperatorClient(input.services.gatewayUrl, input.episodeId, operatorKey);

/** A persona's tokens, issued by the operator for the person it acts as. */
const tokensOf = (operatorKey: string, input: EpisodeContext) => {
  const operator = operatorOf(operatorKey, input);
  return {
    erp: (principal: string) => operator.token(packService(input.services, 'erp'), principal),
    slack: (principal: string) => operator.token(packService(input.services, 'slack'), principal),
    mail: (principal: string) => operator.token(packService(input.services, 'email'), principal),
  };
};

/** A supplier's quotes in the ERP, read with `token` (its own portal sees only its own). */
const quotesOf = async (twin: TwinClient, token: string, supplierId: string): Promise<WrittenQuote[]> =>
  (await twin.erp<{ data: WrittenQuote[] }>(token, `/quotes?supplier_id=${encodeURIComponent(supplierId)}&limit=200`))
    .data;

/**
 * The supplier puts what it just said in writing into the ERP, through its portal: its price on the terms it
 * stated, as a quote on the buyer's open request for quotation when it was invited to one, else as an offer of its
 * own. An acceptance of the buyer's price is recorded the same way, with basis `acceptance`.
 */
const recordOffer = async (
  twin: TwinClient,
  token: string,
  unitPrice: number,
  terms: Terms,
  basis: 'offer' | 'acceptance',
  reference: string,
): Promise<void> => {
  const invited = await twin.erp<{ data: { id: string; lines: { line: number; quantity: number }[] }[] }>(
    token,
    '/rfqs?status=sent&limit=200',
  );
  const rfq = invited.data[invited.data.length - 1];
  const quoteTerms = {
    payment_terms_days: terms.paymentTermsDays,
    delivery_days: Math.ceil(terms.deliveryDays),
    basis,
    reference: reference.slice(0, 500),
  };
  if (rfq) {
    await twin.erp(token, `/rfqs/${encodeURIComponent(rfq.id)}/quotes`, {
      body: {
        ...quoteTerms,
        lines: rfq.lines.map((line) => ({
          line: line.line,
          unit_price: unitPrice,
          quantity: rfq.lines.length === 1 ? terms.quantity : line.quantity,
        })),
      },
    });
    return;
  }
  await twin.erp(token, '/quotes', {
    body: {
      ...quoteTerms,
      lines: [
        { description: reference.slice(0, 200) || 'As enquired', quantity: terms.quantity, unit_price: unitPrice },
      ],
    },
  });
};

/**
 * The personas' hands: each activity acts as one party, through the twins over HTTP with that person's token, and
 * returns what the workflow needs to remember. Deterministic given the twins' state; retried safely because each
 * checks the state before acting (a reply is sent once per new mail, an order approved once).
 */
export const createPersonaActivities = (operatorKey: string, llmVoice?: VoiceSettings) => ({
  async eventsSince(input: EpisodeContext & { afterSeq: number }): Promise<SignalledEvent[]> {
    const twin = operatorOf(operatorKey, input);
    const { body } = await twin.admin<{ events: SignalledEvent[] }>(`/events?after=${input.afterSeq}`);
    return body.events;
  },

  /** Moves the business clock to `at`, or leaves it where the agent's own actions already took it. */
  async advanceClock(input: EpisodeContext & { at: string }): Promise<string> {
    const twin = operatorOf(operatorKey, input);
    const moved = await twin.admin<{ now: string }>('/clock', { body: { at: input.at } });
    if (moved.status === 200) {
      return moved.body.now;
    }
    return (await twin.admin<{ now: string }>('')).body.now;
  },

  /** Ends the twins' episode with the workflow: from now on they refuse writes, so the graded state is final. */
  async closeEpisode(input: EpisodeContext): Promise<void> {
    const { status } = await operatorOf(operatorKey, input).admin('/close', { body: {} });
    if (status !== 200) {
      throw new Error(`the episode ${input.episodeId} could not be closed: HTTP ${status}`);
    }
  },

  async applySetup(input: EpisodeContext & { step: SetupStepInstance }): Promise<void> {
    const twin = operatorOf(operatorKey, input);
    const seeded = input.step.record;
    if (seeded) {
      const { status } = await twin.admin('/records', {
        body: { table: `${seeded.service}/${seeded.table}`, id: seeded.id, set: seeded.fields, create: true },
      });
      if (status !== 200 && status !== 201) {
        throw new TwinCallError(`could not put ${seeded.id} in ${seeded.service}/${seeded.table}: ${status}`);
      }
    }
    if (input.step.freezeBudget) {
      const { status } = await twin.admin('/records', {
        body: {
          table: `${packService(input.services, 'erp')}/cost-centres`,
          id: input.step.freezeBudget,
          set: { frozen: true },
        },
      });
      if (status !== 200) {
        throw new TwinCallError(`could not freeze ${input.step.freezeBudget}: ${status}`);
      }
    }
  },

  /**
   * The supplier reads the agent's newest mail, decides by its concession tactic, and answers in the same thread;
   * invited to a request for quotation before any mail, it sends its opening quote. Every price it states it also
   * puts in the ERP as its own quote.
   */
  async supplierReply(input: PersonaContext & { memory: NegotiationMemory | null }): Promise<NegotiationMemory> {
    const supplier = supplierOf(input);
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const token = await tokensOf(operatorKey, input).mail(supplier.contactEmail);
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
    if (memory.closed || (!newest && memory.round > 0)) {
      return memory;
    }
    const portal = await tokensOf(operatorKey, input).erp(supplier.contactId);
    // Not asked by mail yet, but invited to a request for quotation: the supplier answers the invitation itself.
    const invitation = newest
      ? undefined
      : (await twin.erp<{ data: { id: string; title: string }[] }>(portal, '/rfqs?status=sent&limit=200')).data.pop();
    if (!newest && !invitation) {
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
    const offer = newest
      ? extractOffer(`${newest.subject}\n${newestPart(newest.body.content)}`, supplier.openingPrice)
      : {};
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
    const next: NegotiationMemory = {
      ...memory,
      lastMessageId: newest?.id ?? memory.lastMessageId,
      round: memory.round + 1,
      terms,
    };
    if (!newest) {
      const subject = `Quotation for ${invitation?.id ?? 'your request'}`;
      const quote = openingQuote(spoken, onTerms(memory.ask));
      await recordOffer(twin, portal, onTerms(memory.ask), terms, 'offer', subject);
      const content = llmVoice
        ? await voiced(llmVoice, input.instance.seed, `${supplier.contactName} of ${supplier.supplierName}`, quote)
        : quote;
      await twin.mail(token, '/me/sendMail', {
        body: {
          message: {
            subject,
            body: { contentType: 'text', content },
            toRecipients: [{ emailAddress: { address: input.agent.email } }],
          },
        },
      });
      return next;
    }
    const reference = newest.subject;
    let text: string;
    if (offer.unitPrice === undefined) {
      text = memory.round === 0 ? openingQuote(spoken, onTerms(memory.ask)) : askForPrice(spoken, onTerms(memory.ask));
      await recordOffer(twin, portal, onTerms(memory.ask), terms, 'offer', reference);
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
      if (said.kind === 'walk-away') {
        // Walking away withdraws every offer it made: an order placed on one afterwards is declined. It walks away
        // once, so a retry after a crash repeats the same withdrawals (with the same idempotency keys).
        for (const quote of await quotesOf(twin, portal, supplier.supplierId)) {
          if (quote.status === 'received' || quote.status === 'withdrawn') {
            await twin.erp(portal, `/quotes/${encodeURIComponent(quote.id)}/withdraw`, { body: {} });
          }
        }
      } else {
        await recordOffer(twin, portal, said.price, terms, said.kind === 'accept' ? 'acceptance' : 'offer', reference);
      }
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
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const erp = await tokensOf(operatorKey, input).erp(approver.employeeId);
    const order = await twin.erp<PurchaseOrder>(erp, `/purchase-orders/${encodeURIComponent(input.poId)}`);
    // Pending, or decided by this approver already (a retry after a crash): the same writes again, deduplicated.
    if (order.status !== 'pending_approval' && !order.approvals.some((a) => a.user_id === approver.employeeId)) {
      return;
    }
    const unitPrice = Math.max(...order.lines.map((l) => l.unit_price));
    // An order must be on a price the supplier gave in writing; what the requester typed proves nothing.
    const backing = orderAgreement(
      order,
      await quotesOf(twin, erp, order.supplier_id),
      companyOf(input.instance).currency,
    );
    const decision: ApprovalDecision = backing.agreed
      ? decideApproval({
          total: order.total,
          unitPrice,
          targetPrice: Number(input.instance.values.target_price ?? Number.POSITIVE_INFINITY),
          approvalLimit: approver.approvalLimit,
          strictness: approver.strictness,
        })
      : {
          kind: 'reject',
          reasonCode: 'unquoted_price',
          comment: `No quote of ${order.supplier_id} in the ERP backs this order (${backing.reasons.join('; ')}); attach the supplier's written quote.`,
        };
    let message: string;
    try {
      await twin.erp(erp, `/purchase-orders/${encodeURIComponent(order.id)}/${decision.kind}`, {
        body: {
          comment: decision.comment,
          ...(decision.kind === 'reject' ? { reason_code: decision.reasonCode } : {}),
        },
      });
      message = `${decision.kind === 'approve' ? 'Approved' : 'Rejected'} ${order.id} (${order.total.toFixed(2)}). ${decision.comment}`;
    } catch (error) {
      message = `I could not approve ${order.id}: ${(error as Error).message.replace(/^.*?: \d+ /, '')}`;
    }
    await twin.slack(await tokensOf(operatorKey, input).slack(approver.employeeId), 'chat.postMessage', {
      channel: input.agent.slackUser,
      text: message,
    });
  },

  /**
   * The supplier answers a purchase order it received: it acknowledges it in its portal, naming its quote, when the
   * order is on terms it agreed in writing; otherwise it declines it there and tells the buyer why in its own words.
   */
  async supplierAcknowledge(input: PersonaContext & { poId: string }): Promise<void> {
    const supplier = supplierOf(input);
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const portal = await tokensOf(operatorKey, input).erp(supplier.contactId);
    const order = await twin.erp<PurchaseOrder>(portal, `/purchase-orders/${encodeURIComponent(input.poId)}`);
    const answered = order.history.some(
      (step) => (step.to === 'acknowledged' || step.to === 'declined') && step.by === supplier.contactId,
    );
    // Sent, or answered by this supplier already (a retry after a crash): the same writes again, deduplicated.
    if (order.status !== 'sent' && !answered) {
      return;
    }
    const company = companyOf(input.instance);
    const agreement = orderAgreement(order, await quotesOf(twin, portal, supplier.supplierId), company.currency);
    const voice = {
      contactName: supplier.contactName,
      supplierName: supplier.supplierName,
      buyerFirstName: company.agent.firstName,
      quantity: order.lines.reduce((sum, l) => sum + l.quantity, 0),
      currency: company.currency,
      paymentTermsDays: agreement.agreed ? agreement.quote.payment_terms_days : supplier.paymentTermsDays,
      deliveryDays: agreement.agreed ? agreement.quote.delivery_days : supplier.deliveryDays,
    };
    const path = `/purchase-orders/${encodeURIComponent(order.id)}`;
    if (agreement.agreed) {
      await twin.erp(portal, `${path}/acknowledge`, { body: { quote_id: agreement.quote.id } });
    } else {
      await twin.erp(portal, `${path}/decline`, { body: { reason: agreement.reasons.join('; ') } });
    }
    const text = agreement.agreed
      ? orderConfirmation(voice, order.id)
      : orderRefusal(voice, order.id, agreement.reasons);
    await twin.mail(await tokensOf(operatorKey, input).mail(supplier.contactEmail), '/me/sendMail', {
      body: {
        message: {
          subject: `${agreement.agreed ? 'Order confirmation' : 'Order declined'} ${order.id}`,
          body: {
            contentType: 'text',
            content: llmVoice
              ? await voiced(llmVoice, input.instance.seed, `${supplier.contactName} of ${supplier.supplierName}`, text)
              : text,
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
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const order = await twin.erp<PurchaseOrder & { cost_centre: string }>(
      await tokensOf(operatorKey, input).erp(finance.employeeId),
      `/purchase-orders/${encodeURIComponent(input.poId)}`,
    );
    await twin.slack(await tokensOf(operatorKey, input).slack(finance.employeeId), 'chat.postMessage', {
      channel: input.agent.slackUser,
      text: `Hi, a question on ${order.id} (${order.total.toFixed(2)} ${companyOf(input.instance).currency} on ${order.cost_centre}): what is it for, and was it quoted competitively?`,
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
    const twin = new TwinClient(input.services, input.episodeId, input.actionKey);
    const tokens = tokensOf(operatorKey, input);
    // Finance names the cost centre the scenario gives it, as the ERP calls it; without one it names none.
    const alternative = finance.alternativeCostCentre;
    const named = alternative
      ? await twin
          .erp<{ name?: string }>(
            await tokens.erp(finance.employeeId),
            `/cost-centres/${encodeURIComponent(alternative)}`,
          )
          .then((centre) => (centre.name ? `${alternative} (${centre.name})` : alternative))
          .catch(() => alternative)
      : undefined;
    const text =
      frozen.length === 0
        ? 'The budget has room for this; go ahead through the usual approval.'
        : `${frozen.join(', ')} is frozen this quarter, so please do not raise orders against it. ${
            named ? `Charge this one to ${named} instead; its head can approve.` : 'Please hold the order for now.'
          }`;
    await twin.slack(await tokens.slack(finance.employeeId), 'chat.postMessage', { channel, thread_ts: ts, text });
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
    const token = await tokensOf(operatorKey, input).slack(person.id);
    // A person posts only where they belong; joining a public channel first is what they would do.
    await twin.slack(token, 'conversations.join', { channel: `#${channel}` }).catch(() => undefined);
    await twin.slack(token, 'chat.postMessage', {
      channel: `#${channel}`,
      text: lines[hashSeed(input.instance.seed, input.index) % lines.length],
    });
  },

  /** Whether the task's success terms are met, judged from what the twins recorded (libs/outcomes). */
  async judgeOutcome(
    input: EpisodeContext & { instance: TaskInstance; agent: AgentIdentity; startAt: string },
  ): Promise<OutcomeVerdict> {
    return judgeOutcome(twinOutcomeSources({ ...input, operatorKey }), {
      instance: input.instance,
      agent: input.agent,
      startAt: input.startAt,
      currency: companyOf(input.instance).currency,
    });
  },
});

export type PersonaActivities = ReturnType<typeof createPersonaActivities>;
