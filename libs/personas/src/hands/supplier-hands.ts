import type { NegotiationMemory } from '@libs/workflow-contracts';
import { TwinClient } from '@libs/twin-client';

import { orderAgreement } from '../agreement';
import { priceDecimals, sellerMove } from '../concession';
import { extractOffer } from '../offer-extraction';
import { voiced } from '../persona-voice';
import {
  askForPrice,
  openingQuote,
  orderConfirmation,
  orderRefusal,
  supplierReply as supplierText,
  SupplierVoice,
} from '../supplier-replies';
import { clampTerms, Terms, termsMultiplier } from '../terms';
import {
  companyOf,
  MailMessage,
  PersonaContext,
  PersonaHands,
  PurchaseOrder,
  quotesOf,
  Supplier,
  tokensOf,
} from './persona-hands';

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
/**
 * The supplier reads the agent's newest mail, decides by its concession tactic, and answers in the same thread;
 * invited to a request for quotation before any mail, it sends its opening quote. Every price it states it also
 * puts in the ERP as its own quote.
 */
export const replyAsSupplier = async (
  hands: PersonaHands,
  input: PersonaContext & { memory: NegotiationMemory | null },
): Promise<NegotiationMemory> => {
  const supplier = supplierOf(input);
  const twin = hands.twin;
  const token = await tokensOf(hands.operator, input.services).mail(supplier.contactEmail);
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
  const portal = await tokensOf(hands.operator, input.services).erp(supplier.contactId);
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
    const content = hands.voice
      ? await voiced(hands.voice, input.instance.seed, `${supplier.contactName} of ${supplier.supplierName}`, quote)
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
  const comment = hands.voice
    ? await voiced(hands.voice, input.instance.seed, `${supplier.contactName} of ${supplier.supplierName}`, text)
    : text;
  await twin.mail(token, `/me/messages/${encodeURIComponent(newest.id)}/reply`, { body: { comment } });
  return next;
};

/**
 * The supplier answers a purchase order it received: it acknowledges it in its portal, naming its quote, when the
 * order is on terms it agreed in writing; otherwise it declines it there and tells the buyer why in its own words.
 */
export const acknowledgeAsSupplier = async (
  hands: PersonaHands,
  input: PersonaContext & { poId: string },
): Promise<void> => {
  const supplier = supplierOf(input);
  const twin = hands.twin;
  const portal = await tokensOf(hands.operator, input.services).erp(supplier.contactId);
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
  const text = agreement.agreed ? orderConfirmation(voice, order.id) : orderRefusal(voice, order.id, agreement.reasons);
  await twin.mail(await tokensOf(hands.operator, input.services).mail(supplier.contactEmail), '/me/sendMail', {
    body: {
      message: {
        subject: `${agreement.agreed ? 'Order confirmation' : 'Order declined'} ${order.id}`,
        body: {
          contentType: 'text',
          content: hands.voice
            ? await voiced(
                hands.voice,
                input.instance.seed,
                `${supplier.contactName} of ${supplier.supplierName}`,
                text,
              )
            : text,
        },
        toRecipients: [{ emailAddress: { address: input.agent.email } }],
      },
    },
  });
};
