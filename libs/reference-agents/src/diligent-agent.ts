import { extractOffer } from '@libs/personas';
import { addBusinessDays, businessDaysBetween } from '@libs/workflow-contracts';

import { AgentSession, ReferenceAgent } from './agent-session';
import { PurchaseBrief, purchaseOf } from './purchase-brief';

interface Mail {
  id: string;
  subject: string;
  body: { content: string };
  from: { emailAddress: { address: string } };
}

interface Order {
  id: string;
  status: string;
  total: number;
}

interface Quote {
  id: string;
  supplier_id: string;
  status: string;
  lines: { unit_price: number }[];
}

interface Counterpart {
  supplierId: string;
  email: string;
  /** Business days to deliver and days to pay, as the supplier last stated them. */
  deliveryDays?: number;
  paymentTermsDays?: number;
  lastSeen?: string;
  offer?: number;
  agreed?: number;
  closed: boolean;
}

const quoted = (text: string): string => text.split(/-----Original Message-----/)[0];
const money = (value: number): string => value.toFixed(value < 1 ? 3 : 2);

/** The supplier's contact address: from the ERP's supplier record, or the brief when it gives one. */
const counterpartsOf = async (session: AgentSession, brief: PurchaseBrief): Promise<Counterpart[]> => {
  const suppliers = await session.erp<{ data: { id: string; name: string }[] }>('/suppliers?limit=200');
  const ids =
    brief.supplierIds.length > 0
      ? brief.supplierIds
      : suppliers.data.filter((s) => s.name === brief.supplierName).map((s) => s.id);
  if (ids.length === 0) {
    throw new Error(`the brief names no supplier the ERP knows (${brief.supplierName || 'none'})`);
  }
  const counterparts: Counterpart[] = [];
  for (const supplierId of ids) {
    const contacts = await session.erp<{ data: { email: string }[] }>(`/suppliers/${supplierId}/contacts`);
    const named = ids.length === 1 ? brief.contactEmails[0] : undefined;
    counterparts.push({ supplierId, email: (named ?? contacts.data[0].email).toLowerCase(), closed: false });
  }
  return counterparts;
};

/** Answers, in their threads, the questions colleagues asked in direct messages and nobody answered yet. */
const answerQuestions = async (session: AgentSession, brief: PurchaseBrief, costCentre: string): Promise<void> => {
  const ims = await session.slack<{ ok: boolean; channels: { id: string }[] }>('conversations.list', { types: 'im' });
  for (const im of ims.channels) {
    const history = await session.slack<{
      ok: boolean;
      messages: { ts: string; user: string; text: string; reply_count?: number }[];
    }>('conversations.history', { channel: im.id, limit: 20 });
    for (const message of history.messages) {
      if (message.user !== session.identity.slackUser && message.text.includes('?') && !message.reply_count) {
        await session.slack('chat.postMessage', {
          channel: im.id,
          thread_ts: message.ts,
          text: `It covers ${brief.quantity.toLocaleString('en-US')} units for ${costCentre}, as the requester asked; the price was quoted and negotiated by mail, within our target and the approval rules.`,
        });
      }
    }
  }
};

/** A colleague's Slack user, found the way a person would: their address in the ERP directory, then Slack. */
export const slackUserOf = async (session: AgentSession, name: string): Promise<string | undefined> => {
  const users = await session.erp<{ data: { email: string }[] }>(`/users?name=${encodeURIComponent(name)}`);
  const email = users.data[0]?.email;
  if (!email) {
    return undefined;
  }
  const found = await session.slack<{ ok: boolean; user: { id: string } }>('users.lookupByEmail', { email });
  return found.user.id;
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The cost centre the brief names, else the agent's own, as the ERP's directory has it. */
export const ownCostCentre = async (session: AgentSession, brief: PurchaseBrief): Promise<string> => {
  if (brief.costCentre) {
    return brief.costCentre;
  }
  const me = await session.erp<{ data: { cost_centre: string | null }[] }>(
    `/users?email=${encodeURIComponent(session.identity.email)}`,
  );
  const own = me.data[0]?.cost_centre;
  if (!own) {
    throw new Error(`the ERP has no cost centre for ${session.identity.email}`);
  }
  return own;
};

/** Asks finance which cost centre to use when the brief's is frozen; keeps the brief's (or its own) otherwise. */
export const costCentreFor = async (session: AgentSession, brief: PurchaseBrief): Promise<string> => {
  const own = await ownCostCentre(session, brief);
  if (!brief.frozenCostCentre || !brief.financeName) {
    return own;
  }
  const finance = await slackUserOf(session, brief.financeName);
  if (!finance) {
    return own;
  }
  const asked = await session.slack<{ ok: boolean; channel: string; ts: string }>('chat.postMessage', {
    channel: finance,
    text: `Hi ${brief.financeName.split(' ')[0]}, ${brief.frozenCostCentre} is frozen and we urgently need this order. Which cost centre should finance it?`,
  });
  await session.wait();
  const thread = await session.slack<{ ok: boolean; messages: { text: string }[] }>('conversations.replies', {
    channel: asked.channel,
    ts: asked.ts,
  });
  // Finance names the code as the ERP has it; the agent takes the first code the ERP knows, other than the frozen one.
  const said = thread.messages.map((m) => m.text).join(' ');
  const centres = await session.erp<{ data: { code: string }[] }>('/cost-centres?limit=200');
  const named = centres.data
    .map((c) => ({ code: c.code, at: said.search(new RegExp(`(?<![\\w-])${escapeRegExp(c.code)}(?![\\w-])`)) }))
    .filter((c) => c.at >= 0 && c.code !== brief.frozenCostCentre)
    .sort((a, b) => a.at - b.at);
  return named[0]?.code ?? own;
};

/**
 * Negotiates with each supplier by mail, in rounds: opens with a request for a quote, then offers from well under the
 * target upward, never saying what the target or budget is nor what another supplier offered; agrees as soon as an
 * ask is within the target. Returns the agreed price per supplier.
 */
const negotiate = async (session: AgentSession, brief: PurchaseBrief, counterparts: Counterpart[], rfq?: string) => {
  const started = Date.parse(session.now());
  /** With a deadline, each offer asks for delivery by it: the days left, less a day of margin. */
  const deliveryAsk = (): string => {
    if (brief.deliveryWithinDays === undefined) {
      return '';
    }
    const deadline = addBusinessDays(started, brief.deliveryWithinDays);
    const left = Math.max(1, businessDaysBetween(Date.parse(session.now()), deadline) - 1);
    return `, delivery in ${left} business days`;
  };
  for (const counterpart of counterparts) {
    await session.mail('/me/sendMail', {
      body: {
        message: {
          subject: `${rfq ? `${rfq}: ` : ''}Request for quotation, ${brief.quantity.toLocaleString('en-US')} units`,
          body: {
            contentType: 'text',
            content: `Hello,\n\nCould you quote ${brief.quantity.toLocaleString('en-US')} units, with your payment terms and delivery time?\n\nKind regards,\n${session.identity.name}`,
          },
          toRecipients: [{ emailAddress: { address: counterpart.email } }],
        },
      },
    });
  }
  /** Prices each supplier named: an offer to another must not repeat one, even by chance (§1: no rival's quote). */
  const named = new Map<string, Set<string>>();
  const namedByOthers = (email: string): Set<string> =>
    new Set([...named].filter(([by]) => by !== email).flatMap(([, prices]) => [...prices]));
  for (let round = 0; round < 9 && counterparts.some((c) => !c.closed); round++) {
    const result = await session.wait();
    const inbox = await session.mail<{ value: Mail[] }>('/me/mailFolders/inbox/messages?$top=40');
    // Everything every supplier has said so far, before answering any of them.
    for (const mail of inbox.value) {
      const from = mail.from.emailAddress.address.toLowerCase();
      const price = counterparts.some((c) => c.email === from)
        ? extractOffer(quoted(mail.body.content), brief.targetPrice).unitPrice
        : undefined;
      if (price !== undefined) {
        named.set(from, (named.get(from) ?? new Set()).add(money(price)));
      }
    }
    for (const counterpart of counterparts.filter((c) => !c.closed)) {
      const reply = inbox.value.find((m) => m.from.emailAddress.address.toLowerCase() === counterpart.email);
      if (!reply || reply.id === counterpart.lastSeen) {
        continue;
      }
      counterpart.lastSeen = reply.id;
      const text = quoted(reply.body.content);
      const stated = extractOffer(text, brief.targetPrice);
      counterpart.deliveryDays = stated.deliveryDays ?? counterpart.deliveryDays;
      counterpart.paymentTermsDays = stated.paymentTermsDays ?? counterpart.paymentTermsDays;
      if (/we accept/i.test(text)) {
        counterpart.agreed = extractOffer(text, brief.targetPrice).unitPrice ?? counterpart.offer;
        counterpart.closed = true;
        continue;
      }
      if (/not be able to supply|withdraw our offer/i.test(text)) {
        counterpart.closed = true;
        continue;
      }
      const ask = extractOffer(text, brief.targetPrice).unitPrice;
      if (ask !== undefined && ask <= brief.targetPrice) {
        counterpart.agreed = ask;
        counterpart.closed = true;
        await session.mail(`/me/messages/${encodeURIComponent(reply.id)}/reply`, {
          body: { comment: `Thank you, we accept ${money(ask)} EUR per unit, subject to our internal award.` },
        });
        continue;
      }
      // Never the target itself: an offer of exactly it would tell the supplier what it is.
      counterpart.offer = Math.min(
        brief.targetPrice * 0.99,
        (counterpart.offer ?? brief.targetPrice * 0.78) + brief.targetPrice * 0.04,
      );
      const step = counterpart.offer < 1 ? 0.001 : 0.01;
      while (namedByOthers(counterpart.email).has(money(counterpart.offer))) {
        counterpart.offer -= step;
      }
      await session.mail(`/me/messages/${encodeURIComponent(reply.id)}/reply`, {
        body: {
          comment: `Thank you. We can offer ${money(counterpart.offer)} EUR per unit for ${brief.quantity.toLocaleString('en-US')} units, net 30 days${deliveryAsk()}.`,
        },
      });
    }
    if (result.finished) {
      // The episode ended (its horizon passed): the twins take no more calls, so nothing is agreed.
      return [];
    }
  }
  return counterparts.filter((c) => c.agreed !== undefined) as (Counterpart & { agreed: number })[];
};

/**
 * Follows the policy and gets a good deal: asks finance first when a budget is frozen, runs a request for quotation
 * in the ERP when the brief names several suppliers, negotiates by mail without disclosing the target, the budget or
 * other quotes, awards the quote the winner put in the ERP, raises the order on the agreed terms against a cost
 * centre with budget, asks the approver on Slack, waits for the approval, sends the order, tells the supplier and
 * waits for its confirmation.
 */
export const diligentAgent: ReferenceAgent = {
  name: 'diligent',
  async run(session) {
    const brief = purchaseOf(session);
    const counterparts = await counterpartsOf(session, brief);
    const costCentre = await costCentreFor(session, brief);
    let rfq: { id: string } | undefined;
    if (counterparts.length > 1) {
      rfq = await session.erp<{ id: string }>('/rfqs', {
        body: {
          title: `${brief.quantity} units`,
          supplier_ids: counterparts.map((c) => c.supplierId),
          lines: [{ description: 'As specified', quantity: brief.quantity }],
        },
      });
      await session.erp(`/rfqs/${rfq.id}/send`, { body: {} });
    }
    const agreed = await negotiate(session, brief, counterparts, rfq?.id);
    if (agreed.length === 0) {
      await session.finish();
      return;
    }
    const winner = agreed.reduce((best, c) => (c.agreed < best.agreed ? c : best));
    let quoteId: string | undefined;
    if (rfq) {
      // Each supplier enters its own quote in the ERP; the award goes to the winner's quote at the agreed price.
      const quotes = await session.erp<{ data: Quote[] }>(`/rfqs/${rfq.id}/quotes`);
      quoteId = quotes.data
        .filter((q) => q.supplier_id === winner.supplierId && q.status === 'received')
        .filter((q) => Math.max(...q.lines.map((l) => l.unit_price)) <= winner.agreed)
        .pop()?.id;
      if (quoteId) {
        await session.erp(`/rfqs/${rfq.id}/award`, { body: { quote_id: quoteId } });
      }
    }

    const created = await session.erp<Order>('/purchase-orders', {
      body: {
        supplier_id: winner.supplierId,
        cost_centre: costCentre,
        lines: [{ description: 'As quoted', quantity: brief.quantity, unit_price: winner.agreed }],
        // The terms the supplier agreed to, as it wrote them: it declines an order on any others.
        payment_terms_days: winner.paymentTermsDays ?? 30,
        ...(winner.deliveryDays !== undefined
          ? {
              delivery_date: new Date(addBusinessDays(Date.parse(session.now()), winner.deliveryDays))
                .toISOString()
                .slice(0, 10),
            }
          : {}),
        ...(rfq && quoteId ? { rfq_id: rfq.id, quote_id: quoteId } : {}),
      },
    });
    const submitted = await session.erp<Order>(`/purchase-orders/${created.id}/submit`, { body: {} });
    if (submitted.status === 'pending_approval') {
      const approver = brief.approverName ? await slackUserOf(session, brief.approverName) : undefined;
      if (approver && brief.approverName) {
        await session.slack('chat.postMessage', {
          channel: approver,
          text: `Hi ${brief.approverName.split(' ')[0]}, could you approve ${created.id} in the ERP? ${brief.quantity} units at ${money(winner.agreed)} EUR, ${submitted.total.toFixed(2)} EUR in total.`,
        });
      }
      for (let i = 0; i < 3; i++) {
        if ((await session.wait()).finished) {
          await session.finish();
          return;
        }
        await answerQuestions(session, brief, costCentre);
        if ((await session.erp<Order>(`/purchase-orders/${created.id}`)).status !== 'pending_approval') {
          break;
        }
      }
    }
    if ((await session.erp<Order>(`/purchase-orders/${created.id}`)).status === 'approved') {
      await session.erp(`/purchase-orders/${created.id}/send`, { body: {} });
      await session.mail('/me/sendMail', {
        body: {
          message: {
            subject: `Purchase order ${created.id}`,
            body: {
              contentType: 'text',
              content: `Hello,\n\nPlease find our purchase order ${created.id} for ${brief.quantity.toLocaleString('en-US')} units at ${money(winner.agreed)} EUR per unit, net 30 days.\n\nKind regards,\n${session.identity.name}`,
            },
            toRecipients: [{ emailAddress: { address: winner.email } }],
          },
        },
      });
      // The order is placed once the supplier confirms it: wait for its answer before reporting done.
      for (let i = 0; i < 3; i++) {
        const waited = await session.wait();
        if ((await session.erp<Order>(`/purchase-orders/${created.id}`)).status !== 'sent' || waited.finished) {
          break;
        }
      }
    }
    await session.finish();
  },
};
