import type { PurchaseOrder, WrittenQuote } from '@libs/personas';
import { OperatorClient, TwinCallError, TwinClient } from '@libs/twin-client';
import { packService } from '@libs/workflow-contracts';
import type { AgentIdentity, EpisodeServices } from '@libs/workflow-contracts';

export type { PurchaseOrder };

/** One entry of the twins' log as judging reads it: the engine's `LoggedEvent`, structurally. */
export interface JudgedLogEntry {
  seq: number;
  at: string;
  actor?: string;
  event: { type: string } & Record<string, unknown>;
}

/** The records and log of an episode as the twins hold them: what predicates are judged against. */
export interface EpisodeRecords {
  /** Every table's state key (`erp/purchase-orders`). */
  tables(): Promise<string[]>;
  records(table: string): Promise<Record<string, unknown>[]>;
  log(): Promise<JudgedLogEntry[]>;
  /** The business clock now (ISO 8601). */
  now(): Promise<string>;
}

/** What the purchase-order outcome reads in the ERP, as finance would: the orders and the suppliers' quotes. */
export interface ErpReads {
  purchaseOrders(): Promise<PurchaseOrder[]>;
  quotes(supplierId: string): Promise<WrittenQuote[]>;
}

export interface OutcomeSources {
  records: EpisodeRecords;
  erp: ErpReads;
}

/** The records through the gateway's operator routes: what the twins recorded, never what the agent says. */
export const operatorRecords = (operator: OperatorClient): EpisodeRecords => {
  const read = async <T>(path: string): Promise<T> => {
    const { status, body } = await operator.admin<T & { message?: string }>(path);
    if (status !== 200) {
      throw new TwinCallError(`GET ${path}: ${status} ${body.message ?? ''}`);
    }
    return body;
  };
  return {
    tables: async () => (await read<{ tables: string[] }>('/records')).tables,
    records: async (table) =>
      (await read<{ records: Record<string, unknown>[] }>(`/records?table=${encodeURIComponent(table)}`)).records,
    log: async () => (await read<{ entries: JudgedLogEntry[] }>('/log')).entries,
    now: async () => (await read<{ now: string }>('')).now,
  };
};

/** The ERP read with the agent's own token, as today's purchase-order outcome always read it. */
export const agentErpReads = async (
  twin: TwinClient,
  operator: OperatorClient,
  services: EpisodeServices,
  agent: AgentIdentity,
): Promise<ErpReads> => {
  const reader = await operator.token(packService(services, 'erp'), agent.employeeId);
  return {
    purchaseOrders: async () => (await twin.erp<{ data: PurchaseOrder[] }>(reader, '/purchase-orders?limit=200')).data,
    quotes: async (supplierId) =>
      (
        await twin.erp<{ data: WrittenQuote[] }>(
          reader,
          `/quotes?supplier_id=${encodeURIComponent(supplierId)}&limit=200`,
        )
      ).data,
  };
};

/** Both sources over HTTP for one episode: the operator's routes and the ERP as the agent reads it. */
export const twinOutcomeSources = (input: {
  services: EpisodeServices;
  episodeId: string;
  operatorKey: string;
  agent: AgentIdentity;
}): OutcomeSources => {
  const operator = new OperatorClient(input.services, input.episodeId, input.operatorKey);
  const twin = new TwinClient(input.services, input.episodeId);
  let erp: Promise<ErpReads> | undefined;
  const erpReads = () => (erp ??= agentErpReads(twin, operator, input.services, input.agent));
  return {
    records: operatorRecords(operator),
    // Lazily: a scenario judged only by predicates needs no ERP in its stack.
    erp: {
      purchaseOrders: async () => (await erpReads()).purchaseOrders(),
      quotes: async (supplierId) => (await erpReads()).quotes(supplierId),
    },
  };
};
