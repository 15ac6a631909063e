import * as fs from 'node:fs';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server } from 'node:http';

import createClient from 'openapi-fetch';

import { runCli } from '@test/support/cli-runner';
import { ingestStack } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { createGatewayServer, Episode, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { testOperatorKey } from '@test/support/operator-key';

import { builtInPacks } from '..';
import type { components, paths } from './client/erp-api';
import { erpToken } from '.';

type PurchaseOrder = components['schemas']['PurchaseOrder'];

/**
 * Real: a client generated from the ERP's spec (openapi-typescript types, openapi-fetch) over HTTP, the gateway, the
 * twin engine with the procurement pack. The event store is the in-memory one.
 */
describe('procurement ERP twin through a generated openapi-fetch client', () => {
  let server: Server;
  let episode: Episode;
  let company: Company;
  let baseUrl: string;
  const store = new InMemoryEpisodeStore();
  const seed = 3;
  const fixture = path.join(__dirname, 'fixtures', 'erp');

  const erp = (userId: string) =>
    createClient<paths>({
      baseUrl,
      headers: { authorization: `Bearer ${erpToken(episode.credentials.for('erp'), userId)}` },
    });
  const person = (predicate: (e: Company['employees'][number]) => boolean) =>
    company.employees.find(predicate) as Company['employees'][number];

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: fixture });
    const engine = new TwinEngine(store, new StaticStackSource(model), builtInPacks);
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed });
    company = episode.twin.world.company as Company;
    server = createGatewayServer(engine, 'test', { error: (message) => console.error(message) }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/${episode.id}/erp/api/v1`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('ships client types that are what the spec generates today', async () => {
    const generated = await runCli(['types', fixture]);
    expect(generated.code).toBe(0);
    expect(generated.stdout.trim()).toBe(fs.readFileSync(path.join(__dirname, 'client', 'erp-api.ts'), 'utf8').trim());
  });

  it('drives a purchase order through its whole state machine, budget and three-way match included', async () => {
    const agent = erp(company.agent.id);
    const head = person((e) => e.title === 'Head of Procurement');
    const finance = person((e) => e.role === 'finance');
    const { data: suppliers } = await agent.GET('/suppliers', { params: { query: { status: 'active', limit: 5 } } });
    const supplier = suppliers?.data[0] as components['schemas']['Supplier'];
    const { data: items } = await agent.GET('/items', { params: { query: { supplier_id: supplier.id, limit: 2 } } });
    const item = items?.data[0] as components['schemas']['Item'];
    const quantity = Math.ceil(3_000 / item.unit_price);
    const { data: before } = await agent.GET('/cost-centres/{code}', { params: { path: { code: 'CC-100' } } });

    const created = await agent.POST('/purchase-orders', {
      body: { supplier_id: supplier.id, cost_centre: 'CC-100', lines: [{ item_id: item.id, quantity }] },
    });
    expect(created.response.status).toBe(201);
    const po = created.data as PurchaseOrder;
    expect(po).toMatchObject({ status: 'draft', requester_id: company.agent.id, required_approval: 'AR-2' });
    const path = { params: { path: { poId: po.id } } };

    const submitted = await agent.POST('/purchase-orders/{poId}/submit', path);
    expect(submitted.data?.status).toBe('pending_approval');
    const selfApproval = await agent.POST('/purchase-orders/{poId}/approve', path);
    expect(selfApproval.response.status).toBe(403);
    expect(selfApproval.error).toMatchObject({ error: { code: 'self_approval' } });

    const approved = await erp(head.id).POST('/purchase-orders/{poId}/approve', { ...path, body: { comment: 'ok' } });
    expect(approved.data).toMatchObject({
      status: 'approved',
      approvals: [{ user_id: head.id, decision: 'approved' }],
    });
    const { data: after } = await agent.GET('/cost-centres/{code}', { params: { path: { code: 'CC-100' } } });
    expect(after?.committed).toBeCloseTo((before?.committed ?? 0) + po.total, 2);
    expect(after?.available).toBeCloseTo((before?.available ?? 0) - po.total, 2);

    expect((await agent.POST('/purchase-orders/{poId}/send', path)).data?.status).toBe('sent');
    const contact = company.suppliers.find((s) => s.id === supplier.id)?.contacts[0] as { id: string };
    expect((await erp(contact.id).POST('/purchase-orders/{poId}/acknowledge', path)).data?.status).toBe('acknowledged');
    const partly = await agent.POST('/purchase-orders/{poId}/receipts', {
      ...path,
      body: { lines: [{ line: 1, quantity: quantity - 1 }] },
    });
    expect(partly.data?.status).toBe('acknowledged');
    const fully = await agent.POST('/purchase-orders/{poId}/receipts', {
      ...path,
      body: { lines: [{ line: 1, quantity: 1 }] },
    });
    expect(fully.data?.status).toBe('received');

    const early = await agent.POST('/purchase-orders/{poId}/close', path);
    expect(early.response.status).toBe(409);
    expect(early.error).toMatchObject({ error: { code: 'invoice_not_matched' } });
    const invoice = await erp(contact.id).POST('/invoices', {
      body: { number: 'INV-77', po_id: po.id, lines: [{ line: 1, quantity, unit_price: item.unit_price }] },
    });
    expect(invoice.response.status).toBe(201);
    const matched = await erp(finance.id).POST('/invoices/{invoiceId}/match', {
      params: { path: { invoiceId: invoice.data?.id as string } },
    });
    expect(matched.data).toMatchObject({ status: 'matched', match: { result: 'matched', reasons: [] } });
    const closed = await erp(finance.id).POST('/purchase-orders/{poId}/close', path);
    expect(closed.data?.status).toBe('closed');
    expect(closed.data?.history.map((h) => h.to)).toEqual([
      'draft',
      'pending_approval',
      'approved',
      'sent',
      'acknowledged',
      'received',
      'closed',
    ]);
    const { data: spent } = await agent.GET('/cost-centres/{code}', { params: { path: { code: 'CC-100' } } });
    expect(spent?.committed).toBeCloseTo(before?.committed ?? 0, 2);
    expect(spent?.spent).toBeCloseTo((before?.spent ?? 0) + po.total, 2);

    const names = (await store.events('test', episode.id))
      .map((logged) => logged.event)
      .flatMap((event) => (event.type === 'domain' ? [event.name] : []));
    expect(names).toEqual(
      expect.arrayContaining([
        'erp.po.created',
        'erp.po.pending_approval',
        'erp.budget.committed',
        'erp.po.approved',
        'erp.po.sent',
        'erp.po.acknowledged',
        'erp.goods.received',
        'erp.po.received',
        'erp.invoice.received',
        'erp.invoice.matched',
        'erp.po.closed',
      ]),
    );
  });

  it('answers illegal transitions with a 409 that names the status', async () => {
    const agent = erp(company.agent.id);
    const { data: drafts } = await agent.GET('/purchase-orders', { params: { query: { status: 'draft' } } });
    const draft = drafts?.data[0] as PurchaseOrder;
    const send = await agent.POST('/purchase-orders/{poId}/send', { params: { path: { poId: draft.id } } });
    expect(send.response.status).toBe(409);
    expect(send.error?.error.message).toBe(`${draft.id} is draft; send needs it to be approved`);
    const { data: closed } = await agent.GET('/purchase-orders', { params: { query: { status: 'closed' } } });
    const cancel = await agent.POST('/purchase-orders/{poId}/cancel', {
      params: { path: { poId: (closed?.data[0] as PurchaseOrder).id } },
    });
    expect(cancel.error?.error.code).toBe('invalid_transition');
  });

  it('approves small orders on submission, needs a limit for larger ones, and refuses a frozen or exceeded budget', async () => {
    const agent = erp(company.agent.id);
    const { data: items } = await agent.GET('/items', { params: { query: { limit: 1 } } });
    const item = items?.data[0] as components['schemas']['Item'];
    const order = async (total: number, costCentre = 'CC-300') => {
      const { data } = await agent.POST('/purchase-orders', {
        body: {
          supplier_id: item.supplier_id,
          cost_centre: costCentre,
          lines: [{ description: 'Services', quantity: 1, unit_price: total }],
        },
      });
      return (data as PurchaseOrder).id;
    };
    const small = await order(800);
    const auto = await agent.POST('/purchase-orders/{poId}/submit', { params: { path: { poId: small } } });
    expect(auto.data).toMatchObject({ status: 'approved', approvals: [{ decision: 'auto_approved' }] });

    const large = await order(60_000);
    await agent.POST('/purchase-orders/{poId}/submit', { params: { path: { poId: large } } });
    const head = company.employees.find((e) => e.title === 'Head of Engineering') as { id: string };
    const tooLow = await erp(head.id).POST('/purchase-orders/{poId}/approve', { params: { path: { poId: large } } });
    expect(tooLow.response.status).toBe(403);
    expect(tooLow.error?.error.code).toBe('approval_limit_exceeded');

    const huge = await order(2_000_000);
    await agent.POST('/purchase-orders/{poId}/submit', { params: { path: { poId: huge } } });
    const ceo = company.employees.find((e) => e.title === 'Chief Executive Officer') as { id: string };
    const overLimit = await erp(ceo.id).POST('/purchase-orders/{poId}/approve', { params: { path: { poId: huge } } });
    expect(overLimit.error?.error.code).toBe('approval_limit_exceeded');
    const cfo = company.employees.find((e) => e.title === 'Chief Financial Officer') as { id: string };
    const budget = await order(200_000, 'CC-700');
    await agent.POST('/purchase-orders/{poId}/submit', { params: { path: { poId: budget } } });
    const exceeded = await erp(cfo.id).POST('/purchase-orders/{poId}/approve', { params: { path: { poId: budget } } });
    expect(exceeded.response.status).toBe(409);
    expect(exceeded.error?.error.code).toBe('budget_exceeded');
  });

  it('runs a request for quotation: suppliers quote through their portal, one is awarded', async () => {
    const agent = erp(company.agent.id);
    const invited = company.suppliers.slice(0, 3).filter((_, index) => index % 17 !== 16);
    const { data: rfq } = await agent.POST('/rfqs', {
      body: {
        title: 'M8 bolts, 5,000',
        supplier_ids: invited.map((s) => s.id),
        lines: [{ description: 'M8 hex bolt', quantity: 5000 }],
      },
    });
    const rfqPath = { params: { path: { rfqId: rfq?.id as string } } };
    const early = await erp(invited[0].contacts[0].id).POST('/rfqs/{rfqId}/quotes', {
      ...rfqPath,
      body: { lines: [{ line: 1, unit_price: 0.12 }], payment_terms_days: 30, delivery_days: 10 },
    });
    expect(early.error?.error.code).toBe('invalid_transition');
    await agent.POST('/rfqs/{rfqId}/send', rfqPath);
    const quotes: components['schemas']['Quote'][] = [];
    for (const [index, supplier] of invited.entries()) {
      const { data } = await erp(supplier.contacts[0].id).POST('/rfqs/{rfqId}/quotes', {
        ...rfqPath,
        body: { lines: [{ line: 1, unit_price: 0.1 + index * 0.01 }], payment_terms_days: 30, delivery_days: 10 },
      });
      quotes.push(data as components['schemas']['Quote']);
    }
    expect(quotes[0]).toMatchObject({
      supplier_id: invited[0].id,
      submitted_by: invited[0].contacts[0].id,
      rfq_id: rfq?.id,
      basis: 'offer',
    });
    const impostor = await erp(invited[1].contacts[0].id).POST('/rfqs/{rfqId}/quotes', {
      ...rfqPath,
      body: {
        supplier_id: invited[0].id,
        lines: [{ line: 1, unit_price: 0.5 }],
        payment_terms_days: 30,
        delivery_days: 1,
      },
    });
    expect(impostor.response.status).toBe(403);
    // A buyer cannot key a quote in for a supplier: quotes come from the supplier's own hand.
    const forged = await agent.POST('/rfqs/{rfqId}/quotes', {
      ...rfqPath,
      body: {
        supplier_id: invited[0].id,
        lines: [{ line: 1, unit_price: 0.01 }],
        payment_terms_days: 90,
        delivery_days: 1,
      },
    });
    expect(forged.response.status).toBe(403);
    expect(forged.error?.error.code).toBe('quote_not_from_supplier');
    const { data: listed } = await agent.GET('/rfqs/{rfqId}/quotes', rfqPath);
    expect(listed?.data.map((q) => q.total)).toEqual([500, 550, 600]);
    const { data: ownOnly } = await erp(invited[1].contacts[0].id).GET('/rfqs/{rfqId}/quotes', rfqPath);
    expect(ownOnly?.data.map((q) => q.supplier_id)).toEqual([invited[1].id]);
    const awarded = await agent.POST('/rfqs/{rfqId}/award', { ...rfqPath, body: { quote_id: quotes[0].id } });
    expect(awarded.data).toMatchObject({ status: 'awarded', awarded_quote_id: quotes[0].id });
  });

  it('keeps quotes in the supplier’s hand: offers without a request, withdrawals, and orders it acknowledges or declines', async () => {
    const agent = erp(company.agent.id);
    const supplier = company.suppliers[1];
    const contact = supplier.contacts[0].id;
    const rival = company.suppliers[2].contacts[0].id;
    const offer = await erp(contact).POST('/quotes', {
      body: {
        lines: [{ description: 'Gloves', quantity: 100, unit_price: 4.2 }],
        payment_terms_days: 30,
        delivery_days: 5,
        reference: 'Re: gloves',
      },
    });
    expect(offer.response.status).toBe(201);
    expect(offer.data).toMatchObject({ rfq_id: null, supplier_id: supplier.id, submitted_by: contact, total: 420 });
    const keyed = await agent.POST('/quotes', {
      body: {
        supplier_id: supplier.id,
        lines: [{ description: 'Gloves', quantity: 100, unit_price: 1 }],
        payment_terms_days: 30,
        delivery_days: 1,
      },
    });
    expect(keyed.response.status).toBe(403);
    expect(keyed.error?.error.code).toBe('quote_not_from_supplier');
    const quotePath = { params: { path: { quoteId: offer.data?.id as string } } };
    expect((await erp(rival).GET('/quotes/{quoteId}', quotePath)).response.status).toBe(404);
    expect((await agent.GET('/quotes/{quoteId}', quotePath)).data?.id).toBe(offer.data?.id);

    const { data: draft } = await agent.POST('/purchase-orders', {
      body: {
        supplier_id: supplier.id,
        cost_centre: 'CC-300',
        lines: [{ description: 'Gloves', quantity: 100, unit_price: 4.2 }],
        payment_terms_days: 30,
      },
    });
    const path = { params: { path: { poId: draft?.id as string } } };
    await agent.POST('/purchase-orders/{poId}/submit', path);
    expect((await agent.POST('/purchase-orders/{poId}/send', path)).data?.status).toBe('sent');
    // Only the supplier answers its order: the buyer cannot confirm for it, another supplier does not see it.
    expect((await agent.POST('/purchase-orders/{poId}/acknowledge', path)).response.status).toBe(403);
    expect(
      (await erp(rival).POST('/purchase-orders/{poId}/decline', { ...path, body: { reason: 'x' } })).response.status,
    ).toBe(404);
    const { data: before } = await agent.GET('/cost-centres/{code}', { params: { path: { code: 'CC-300' } } });
    const declined = await erp(contact).POST('/purchase-orders/{poId}/decline', {
      ...path,
      body: { reason: 'the unit price is below what we quoted' },
    });
    expect(declined.data).toMatchObject({
      status: 'declined',
      declined_reason: 'the unit price is below what we quoted',
    });
    const { data: after } = await agent.GET('/cost-centres/{code}', { params: { path: { code: 'CC-300' } } });
    expect(after?.committed).toBeCloseTo((before?.committed ?? 0) - 420, 2);
    const again = await erp(contact).POST('/purchase-orders/{poId}/acknowledge', path);
    expect(again.response.status).toBe(409);
    expect(again.error?.error.message).toBe(`${draft?.id} is declined; acknowledge needs it to be sent`);

    const withdrawn = await erp(contact).POST('/quotes/{quoteId}/withdraw', quotePath);
    expect(withdrawn.data?.status).toBe('withdrawn');
    expect((await erp(contact).POST('/quotes/{quoteId}/withdraw', quotePath)).response.status).toBe(409);
    const { data: second } = await agent.POST('/purchase-orders', {
      body: {
        supplier_id: supplier.id,
        cost_centre: 'CC-300',
        lines: [{ description: 'Gloves', quantity: 1, unit_price: 4.2 }],
      },
    });
    const secondPath = { params: { path: { poId: second?.id as string } } };
    await agent.POST('/purchase-orders/{poId}/submit', secondPath);
    await agent.POST('/purchase-orders/{poId}/send', secondPath);
    const onWithdrawn = await erp(contact).POST('/purchase-orders/{poId}/acknowledge', {
      ...secondPath,
      body: { quote_id: offer.data?.id as string },
    });
    expect(onWithdrawn.error?.error.code).toBe('quote_not_open');
  });

  it('shows a supplier-portal user its own supplier’s records and nothing of the buyer’s inside', async () => {
    const agent = erp(company.agent.id);
    const { data: all } = await agent.GET('/purchase-orders', { params: { query: { limit: 200 } } });
    const orders = all?.data as PurchaseOrder[];
    const supplierId = orders[0].supplier_id;
    const supplier = company.suppliers.find((s) => s.id === supplierId) as Company['suppliers'][number];
    const portal = erp(supplier.contacts[0].id);
    const theirs = orders.find((o) => o.supplier_id !== supplierId) as PurchaseOrder;

    const { data: own } = await portal.GET('/purchase-orders', { params: { query: { limit: 200 } } });
    expect(own?.data.length).toBe(orders.filter((o) => o.supplier_id === supplierId).length);
    expect(new Set(own?.data.map((o) => o.supplier_id))).toEqual(new Set([supplierId]));
    const other = await portal.GET('/purchase-orders/{poId}', { params: { path: { poId: theirs.id } } });
    expect(other.response.status).toBe(404);
    const filtered = await portal.GET('/purchase-orders', { params: { query: { supplier_id: theirs.supplier_id } } });
    expect(filtered.data?.data).toEqual([]);

    const { data: suppliers } = await portal.GET('/suppliers', { params: { query: { limit: 200 } } });
    expect(suppliers?.data.map((s) => s.id)).toEqual([supplierId]);
    const rival = { params: { path: { supplierId: theirs.supplier_id } } };
    expect((await portal.GET('/suppliers/{supplierId}', rival)).response.status).toBe(404);
    expect((await portal.GET('/suppliers/{supplierId}/contacts', rival)).response.status).toBe(404);
    const { data: items } = await portal.GET('/items', { params: { query: { limit: 200 } } });
    expect(new Set(items?.data.map((i) => i.supplier_id))).toEqual(new Set([supplierId]));
    const { data: invoices } = await portal.GET('/invoices', { params: { query: { limit: 200 } } });
    expect(invoices?.data.every((i) => i.supplier_id === supplierId)).toBe(true);
    const { data: quotes } = await portal.GET('/quotes', { params: { query: { limit: 200 } } });
    expect(quotes?.data.every((q) => q.supplier_id === supplierId)).toBe(true);
    const { data: rfqs } = await portal.GET('/rfqs', { params: { query: { limit: 200 } } });
    expect(rfqs?.data.every((r) => r.supplier_ids.includes(supplierId))).toBe(true);

    for (const internal of [
      portal.GET('/cost-centres'),
      portal.GET('/cost-centres/{code}', { params: { path: { code: 'CC-100' } } }),
      portal.GET('/approval-rules'),
      portal.GET('/users'),
      portal.GET('/users/{userId}', { params: { path: { userId: company.agent.id } } }),
      portal.GET('/requisitions'),
    ]) {
      const { response, error } = await internal;
      expect(response.status).toBe(403);
      expect(error?.error.message).toBe('the supplier portal has no access to the buyer’s internal records');
    }
    expect((await portal.GET('/me')).data).toMatchObject({ supplier_id: supplierId, role: 'supplier' });
  });

  it('refuses calls without a valid token, and bodies that break the spec, with located 4xx errors', async () => {
    const anonymous = createClient<paths>({ baseUrl });
    expect((await anonymous.GET('/suppliers')).response.status).toBe(401);
    const agent = erp(company.agent.id);
    const bad = await agent.POST('/purchase-orders', {
      body: { supplier_id: 'S001', cost_centre: 'CC-100', lines: [{ quantity: -1 }] } as never,
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.message).toMatch(/lines\/0\/quantity/);
    const unknown = await agent.POST('/purchase-orders', {
      body: { supplier_id: 'S999', cost_centre: 'CC-100', lines: [{ description: 'x', quantity: 1, unit_price: 1 }] },
    });
    expect(unknown.response.status).toBe(422);
    expect(unknown.error?.error.message).toBe('supplier_id: no supplier S999');
  });

  it('answered every call in the shapes the spec declares', async () => {
    const twin = episode.twin.services.get('erp') as NonNullable<ReturnType<typeof episode.twin.services.get>>;
    const agent = erp(company.agent.id);
    const problems: string[] = [];
    const check = async (
      operationId: string,
      call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
    ) => {
      const { data, error, response } = await call;
      const plan = twin.plans.find((p) => p.operation.id === operationId);
      const declared = plan?.operation.responses.find((r) => r.status === String(response.status));
      const pointer = declared && Object.values(declared.content)[0];
      if (!pointer || !twin.validators.validator(pointer)(data ?? error)) {
        problems.push(
          `${operationId} ${response.status}: ${JSON.stringify(twin.validators.validator(pointer ?? '').errors)}`,
        );
      }
    };
    await check('getCurrentUser', agent.GET('/me'));
    await check('listUsers', agent.GET('/users', { params: { query: { role: 'approver' } } }));
    await check('listSuppliers', agent.GET('/suppliers'));
    await check('getSupplier', agent.GET('/suppliers/{supplierId}', { params: { path: { supplierId: 'S002' } } }));
    await check(
      'listSupplierContacts',
      agent.GET('/suppliers/{supplierId}/contacts', { params: { path: { supplierId: 'S002' } } }),
    );
    await check('listItems', agent.GET('/items'));
    await check('listCostCentres', agent.GET('/cost-centres'));
    await check('listApprovalRules', agent.GET('/approval-rules'));
    await check('listPurchaseOrders', agent.GET('/purchase-orders'));
    await check('listInvoices', agent.GET('/invoices'));
    await check('listRfqs', agent.GET('/rfqs'));
    await check('listQuotes', agent.GET('/quotes'));
    await check(
      'getPurchaseOrder',
      agent.GET('/purchase-orders/{poId}', { params: { path: { poId: 'PO-2026-0001' } } }),
    );
    await check(
      'getPurchaseOrder',
      agent.GET('/purchase-orders/{poId}', { params: { path: { poId: 'PO-1999-0001' } } }),
    );
    await check(
      'createRequisition',
      agent.POST('/requisitions', {
        body: { cost_centre: 'CC-100', lines: [{ description: 'Chairs', quantity: 4, unit_price: 120 }] },
      }),
    );
    await check(
      'createSupplier',
      agent.POST('/suppliers', { body: { name: 'New Co', country: 'DE', currency: 'EUR' } }),
    );
    expect(problems).toEqual([]);
  });
});
