/** What a reference agent reads from its brief: the scenarios' goals state them in plain words. */
export interface PurchaseBrief {
  quantity: number;
  supplierName: string;
  supplierId?: string;
  costCentre: string;
  targetPrice: number;
  contactEmails: string[];
  approverName?: string;
  financeName?: string;
  frozenCostCentre?: string;
}

export const readBrief = (goal: string, context: string): PurchaseBrief => {
  const text = `${goal}\n${context}`;
  const number = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(text);
    return match ? Number(match[1].replace(/,/g, '')) : undefined;
  };
  const quantity = number(/(?:buy|order|source)\s+([\d,]+)/i) ?? 1;
  const targetPrice = number(/no more than\s+([\d.]+)/i) ?? Number.POSITIVE_INFINITY;
  const supplier = /from\s+(.+?)\s+\((S\d{3})\)/.exec(text) ?? /from\s+(.+?)\s+for delivery/.exec(text);
  const costCentre = /cost centre\s+(CC-\d{3})/i.exec(text)?.[1] ?? 'CC-100';
  const frozen = /\((CC-\d{3})\) is frozen/i.exec(text)?.[1];
  return {
    quantity,
    supplierName: supplier?.[1] ?? '',
    ...(supplier?.[2] ? { supplierId: supplier[2] } : {}),
    costCentre,
    targetPrice,
    contactEmails: [...text.matchAll(/<([^>\s]+@[^>\s]+)>/g)].map((m) => m[1]),
    ...(/by\s+([A-Z][\w'-]+ [A-Z][\w'-]+)[;.]/.exec(text)
      ? { approverName: /by\s+([A-Z][\w'-]+ [A-Z][\w'-]+)[;.]/.exec(text)?.[1] }
      : {}),
    ...(/Ask\s+([A-Z][\w'-]+ [A-Z][\w'-]+)\s+in Slack/.exec(text)
      ? { financeName: /Ask\s+([A-Z][\w'-]+ [A-Z][\w'-]+)\s+in Slack/.exec(text)?.[1] }
      : {}),
    ...(frozen ? { frozenCostCentre: frozen } : {}),
  };
};
