/** What a reference agent reads from its brief: the scenarios' goals state them in plain words. */
export interface PurchaseBrief {
  quantity: number;
  supplierName: string;
  /** Every supplier the brief names by id: one, or the invitees of a request for quotation. */
  supplierIds: string[];
  /** The cost centre the brief names; without one, the agent charges its own department's. */
  costCentre?: string;
  targetPrice: number;
  contactEmails: string[];
  approverName?: string;
  financeName?: string;
  frozenCostCentre?: string;
  /** Business days from now by which the goods must arrive, when the brief sets a deadline. */
  deliveryWithinDays?: number;
}

export const readBrief = (goal: string, context: string): PurchaseBrief => {
  const text = `${goal}\n${context}`;
  const number = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(text);
    return match ? Number(match[1].replace(/,/g, '')) : undefined;
  };
  const quantity = number(/(?:buy|order|source)\s+([\d,]+)/i) ?? 1;
  const targetPrice = number(/no more than\s+([\d.]+)/i) ?? Number.POSITIVE_INFINITY;
  const supplier = /from\s+(.+?)\s+\((S\d{3})\)/.exec(text);
  const approver =
    /(?:by|from)\s+([A-Z][\w'-]+ [A-Z][\w'-]+)[;.]/.exec(context) ??
    /([A-Z][\w'-]+ [A-Z][\w'-]+) approves/.exec(context);
  const finance = /Ask\s+([A-Z][\w'-]+ [A-Z][\w'-]+)\s+in Slack/.exec(context);
  const costCentre = /cost centre\s+([A-Z0-9][\w-]*\d)/i.exec(text)?.[1];
  const frozen = /\(([A-Z0-9][\w-]*\d)\) is frozen/i.exec(text)?.[1];
  return {
    quantity,
    supplierName: supplier?.[1] ?? '',
    supplierIds: [...new Set([...goal.matchAll(/\((S\d{3})\)/g)].map((m) => m[1]))],
    ...(costCentre ? { costCentre } : {}),
    targetPrice,
    contactEmails: [...text.matchAll(/<([^>\s]+@[^>\s]+)>/g)].map((m) => m[1]),
    ...(approver ? { approverName: approver[1] } : {}),
    ...(finance ? { financeName: finance[1] } : {}),
    ...(frozen ? { frozenCostCentre: frozen } : {}),
    ...(/delivery within (\d+) business days/i.exec(goal)
      ? { deliveryWithinDays: Number(/delivery within (\d+) business days/i.exec(goal)?.[1]) }
      : {}),
  };
};
