import { companyOf, PersonaContext, PersonaHands, PurchaseOrder, tokensOf } from './persona-hands';

/** Finance asks the agent, by direct message, why an order waiting for approval is needed and what it is charged to. */
export const askAsFinance = async (hands: PersonaHands, input: PersonaContext & { poId: string }): Promise<void> => {
  const finance = input.instance.parties[input.party];
  if (finance.persona !== 'finance-colleague') {
    return;
  }
  const twin = hands.twin;
  const order = await twin.erp<PurchaseOrder & { cost_centre: string }>(
    await tokensOf(hands.operator, input.services).erp(finance.employeeId),
    `/purchase-orders/${encodeURIComponent(input.poId)}`,
  );
  await twin.slack(await tokensOf(hands.operator, input.services).slack(finance.employeeId), 'chat.postMessage', {
    channel: input.agent.slackUser,
    text: `Hi, a question on ${order.id} (${order.total.toFixed(2)} ${companyOf(input.instance).currency} on ${order.cost_centre}): what is it for, and was it quoted competitively?`,
  });
};

/** Finance answers the agent's question where it was asked: which cost centre has room, which is frozen. */
export const answerAsFinance = async (hands: PersonaHands, input: PersonaContext & { ref: string }): Promise<void> => {
  const finance = input.instance.parties[input.party];
  if (finance.persona !== 'finance-colleague') {
    return;
  }
  const [channel, ts] = input.ref.split('|');
  const frozen = input.instance.setup.flatMap((step) => (step.freezeBudget ? [step.freezeBudget] : []));
  const twin = hands.twin;
  const tokens = tokensOf(hands.operator, input.services);
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
};
