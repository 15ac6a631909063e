import { extractOffer } from '@libs/personas';

import { AgentSession, ReferenceAgent } from './agent-session';
import { PurchaseBrief, readBrief } from './brief-reading';

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

const quoted = (text: string): string => text.split(/-----Original Message-----/)[0];

/** The newest mail from one of these addresses, newer than `afterId`. */
const newestFrom = async (session: AgentSession, addresses: string[], afterId?: string): Promise<Mail | undefined> => {
  const page = await session.mail<{ value: Mail[] }>('/me/mailFolders/inbox/messages?$top=25');
  const newest = page.value.find((m) => addresses.includes(m.from.emailAddress.address.toLowerCase()));
  return newest && newest.id !== afterId ? newest : undefined;
};

const money = (value: number): string => value.toFixed(value < 1 ? 3 : 2);

/** The supplier's contact: from the brief when it names one, else from the ERP's supplier record. */
const contactOf = async (
  session: AgentSession,
  brief: PurchaseBrief,
): Promise<{ email: string; supplierId: string }> => {
  const suppliers = await session.erp<{ data: { id: string; name: string }[] }>('/suppliers?limit=200');
  const supplier = suppliers.data.find((s) => s.id === brief.supplierId || s.name === brief.supplierName);
  if (!supplier) {
    throw new Error(`the ERP has no supplier ${brief.supplierName}`);
  }
  if (brief.contactEmails.length > 0) {
    return { email: brief.contactEmails[0].toLowerCase(), supplierId: supplier.id };
  }
  const contacts = await session.erp<{ data: { email: string }[] }>(`/suppliers/${supplier.id}/contacts`);
  return { email: contacts.data[0].email.toLowerCase(), supplierId: supplier.id };
};

/** A colleague's Slack user, found the way a person would: their address in the ERP directory, then Slack. */
const slackUserOf = async (session: AgentSession, name: string): Promise<string | undefined> => {
  const users = await session.erp<{ data: { email: string }[] }>(`/users?name=${encodeURIComponent(name)}`);
  const email = users.data[0]?.email;
  if (!email) {
    return undefined;
  }
  const found = await session.slack<{ ok: boolean; user: { id: string } }>('users.lookupByEmail', { email });
  return found.user.id;
};

/**
 * Follows the policy and gets a good deal: asks the supplier for a quote, negotiates up from well under the target
 * without ever saying what the target or budget is, raises the order in the ERP against a cost centre with budget,
 * asks the approver on Slack, waits for the approval, sends the order and tells the supplier. Finance is asked
 * first when the brief says a budget is frozen.
 */
export const diligentAgent: ReferenceAgent = {
  name: 'diligent',
  async run(session) {
    const brief = readBrief(session.brief.goal, session.brief.context);
    const { email: contact, supplierId } = await contactOf(session, brief);
    let costCentre = brief.costCentre;

    if (brief.frozenCostCentre && brief.financeName) {
      const finance = await slackUserOf(session, brief.financeName);
      if (finance) {
        const asked = await session.slack<{ ok: boolean; channel: string; ts: string }>('chat.postMessage', {
          channel: finance,
          text: `Hi ${brief.financeName.split(' ')[0]}, ${brief.frozenCostCentre} is frozen and we urgently need this order. Which cost centre should finance it?`,
        });
        await session.wait();
        const thread = await session.slack<{ ok: boolean; messages: { text: string }[] }>('conversations.replies', {
          channel: asked.channel,
          ts: asked.ts,
        });
        const advice = thread.messages.map((m) => m.text).join(' ');
        costCentre = /charge[^.]*?(CC-\d{3})/i.exec(advice)?.[1] ?? costCentre;
      }
    }

    await session.mail('/me/sendMail', {
      body: {
        message: {
          subject: `Request for quotation: ${brief.quantity.toLocaleString('en-US')} units`,
          body: {
            contentType: 'text',
            content: `Hello,\n\nCould you quote ${brief.quantity.toLocaleString('en-US')} units (${brief.supplierName ? 'as per your catalogue' : ''}), with your payment terms and delivery time?\n\nKind regards,\n${session.identity.name}`,
          },
          toRecipients: [{ emailAddress: { address: contact } }],
        },
      },
    });

    let agreed: number | undefined;
    let lastSeen: string | undefined;
    let offer = Number.isFinite(brief.targetPrice) ? brief.targetPrice * 0.82 : undefined;
    for (let round = 0; round < 8 && agreed === undefined; round++) {
      const result = await session.wait();
      const reply = await newestFrom(session, [contact], lastSeen);
      if (!reply) {
        if (result.finished) {
          break;
        }
        continue;
      }
      lastSeen = reply.id;
      const text = quoted(reply.body.content);
      if (/we accept/i.test(text)) {
        agreed = extractOffer(text, brief.targetPrice).unitPrice ?? offer;
        break;
      }
      if (/not be able to supply|withdraw our offer/i.test(text)) {
        break;
      }
      const ask = extractOffer(text, Number.isFinite(brief.targetPrice) ? brief.targetPrice : 1).unitPrice;
      if (ask !== undefined && ask <= brief.targetPrice) {
        agreed = ask;
        await session.mail(`/me/messages/${encodeURIComponent(reply.id)}/reply`, {
          body: { comment: `Thank you, we accept ${money(ask)} EUR per unit. Our purchase order follows.` },
        });
        break;
      }
      offer = Math.min(brief.targetPrice, (offer ?? brief.targetPrice) + brief.targetPrice * 0.04);
      await session.mail(`/me/messages/${encodeURIComponent(reply.id)}/reply`, {
        body: {
          comment: `Thank you. We can offer ${money(offer)} EUR per unit for ${brief.quantity.toLocaleString('en-US')} units, net 30 days.`,
        },
      });
    }
    if (agreed === undefined) {
      await session.finish();
      return;
    }

    const created = await session.erp<Order>('/purchase-orders', {
      body: {
        supplier_id: supplierId,
        cost_centre: costCentre,
        lines: [{ description: 'As quoted', quantity: brief.quantity, unit_price: agreed }],
        payment_terms_days: 30,
      },
    });
    const submitted = await session.erp<Order>(`/purchase-orders/${created.id}/submit`, { body: {} });
    if (submitted.status === 'pending_approval' && brief.approverName) {
      const approver = await slackUserOf(session, brief.approverName);
      if (approver) {
        await session.slack('chat.postMessage', {
          channel: approver,
          text: `Hi ${brief.approverName.split(' ')[0]}, could you approve ${created.id} in the ERP? ${brief.quantity} units at ${money(agreed)} EUR, ${submitted.total.toFixed(2)} EUR in total.`,
        });
      }
      for (let i = 0; i < 3; i++) {
        await session.wait();
        const order = await session.erp<Order>(`/purchase-orders/${created.id}`);
        if (order.status !== 'pending_approval') {
          break;
        }
      }
    }
    const order = await session.erp<Order>(`/purchase-orders/${created.id}`);
    if (order.status === 'approved') {
      await session.erp(`/purchase-orders/${created.id}/send`, { body: {} });
      await session.mail('/me/sendMail', {
        body: {
          message: {
            subject: `Purchase order ${created.id}`,
            body: {
              contentType: 'text',
              content: `Hello,\n\nPlease find our purchase order ${created.id} for ${brief.quantity.toLocaleString('en-US')} units at ${money(agreed)} EUR per unit, net 30 days.\n\nKind regards,\n${session.identity.name}`,
            },
            toRecipients: [{ emailAddress: { address: contact } }],
          },
        },
      });
    }
    await session.finish();
  },
};
