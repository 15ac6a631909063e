/** Collapses `PurchaseOrders`, `purchase_orders` and `purchase-order` to one key, so names link across sources. */
export const canonicalName = (name: string): string => {
  const flat = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (flat.endsWith('ies') && flat.length > 4) {
    return `${flat.slice(0, -3)}y`;
  }
  if (/(ses|xes|zes|ches|shes)$/.test(flat)) {
    return flat.slice(0, -2);
  }
  return flat.endsWith('s') && !flat.endsWith('ss') ? flat.slice(0, -1) : flat;
};
