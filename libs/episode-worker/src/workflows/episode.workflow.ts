import {
  ActivityOptions,
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  LocalActivityOptions,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';

import { Delay, matchReactions, openingReactions, PlannedReaction, stateReactions } from '@libs/party-reactions';
import type { ResolvedParty } from '@libs/scenarios';
import {
  addBusinessDays,
  addBusinessHours,
  businessDaysBetween,
  actorOf,
  addressedTo,
  conversationWith,
  EpisodeWorkflowInput,
  EpisodeWorkflowResult,
  episodeWorkflowNames,
  NegotiationMemory,
  ScheduledAction,
  SignalledEvent,
  TranscriptEntry,
  transcriptEntryOf,
  WaitRequest,
  WaitResult,
} from '@libs/workflow-contracts';

import type { PartyAction, PartyTurn, PartyTurnActivities } from '../activities/party-turn.activities';
import type { PersonaActivities } from '../activities/persona.activities';
import type { ReactionActivities } from '../activities/reaction.activities';

// Histories recorded when the gateway signalled each event still carry them: the handler stays so they replay.
export const domainEventsSignal = defineSignal<[SignalledEvent[]]>(episodeWorkflowNames.domainEvents);
export const renewLeaseSignal = defineSignal<[]>(episodeWorkflowNames.renewLease);
export const readyUpdate = defineUpdate<string, []>(episodeWorkflowNames.ready);
export const waitUpdate = defineUpdate<WaitResult, [WaitRequest]>(episodeWorkflowNames.wait);
export const finishUpdate = defineUpdate<EpisodeWorkflowResult, []>(episodeWorkflowNames.finish);
export const stateQuery = defineQuery<Record<string, unknown>>(episodeWorkflowNames.state);

// Short: a persona's step is a few twin calls; a worker that dies mid-step is noticed and the step retried soon.
const stepOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 5, initialInterval: '200 ms' },
} satisfies ActivityOptions & LocalActivityOptions;

/**
 * The parties' steps as local activities: run by the worker inside the workflow task that asks for them, so a `wait`
 * costs one round trip to Temporal instead of two per step (schedule, then complete), which under load was most of
 * an episode's time. Every step is idempotent (its writes carry the action's key), so a task retried on another
 * worker after a crash repeats nothing.
 */
const localSteps = {
  acts: proxyLocalActivities<PersonaActivities>(stepOptions),
  reactions: proxyLocalActivities<ReactionActivities>(stepOptions),
};
const fusedSteps = proxyLocalActivities<PartyTurnActivities>(stepOptions);

/** The same steps as activities Temporal schedules: how episodes recorded before the local ones replay. */
const scheduledSteps = {
  acts: proxyActivities<PersonaActivities>(stepOptions),
  reactions: proxyActivities<ReactionActivities>(stepOptions),
};

/** When a delay from `from` ends, in business time. */
const after = (from: number, delay: Delay): number =>
  delay.businessDays !== undefined
    ? addBusinessDays(from, delay.businessDays)
    : delay.businessHours !== undefined
      ? addBusinessHours(from, delay.businessHours)
      : from;

const iso = (ms: number): string => new Date(ms).toISOString();

/** What a fused turn performs for a scheduled action (the same step the unfused path runs for its kind). */
const partyAction = (action: ScheduledAction, p: ResolvedParty, memory: NegotiationMemory | null): PartyAction => {
  switch (action.kind) {
    case 'supplier-reply':
      return { kind: 'supplier-reply', memory };
    case 'approver-review':
    case 'supplier-acknowledge':
    case 'finance-question':
      return { kind: action.kind, poId: action.ref as string };
    case 'finance-answer':
      return p.persona === 'finance-colleague'
        ? { kind: 'finance-answer', ref: action.ref as string }
        : { kind: 'none' };
    case 'noise':
      return { kind: 'noise', index: Number(action.ref) };
    case 'reaction':
      return {
        kind: 'reaction',
        reaction: action.reaction as string,
        ...(action.event ? { event: action.event } : {}),
      };
  }
};

/**
 * One episode of a scenario. It keeps the business clock and plays every party but the agent: a supplier answers
 * mail a business day later, the approver reviews orders submitted for approval, finance answers questions, the
 * office chatters. The agent acts through the twins; the workflow reads what they recorded from the episode's log
 * where business time passes (at each `wait`, between the parties' steps and before judging), so nothing is missed
 * and no event costs a round trip to Temporal; the agent's `wait` lets business time pass up to the next thing
 * another party does, `finish` ends the episode. Nothing here sleeps on wall time except the wall-clock limit and,
 * when the episode has one, the lease of the process playing its agent.
 */
export async function episodeWorkflow(input: EpisodeWorkflowInput): Promise<EpisodeWorkflowResult> {
  const { acts, reactions } = patched('local-party-steps') ? localSteps : scheduledSteps;
  const { instance } = input;
  const start = Date.parse(input.startAt);
  const carried = input.carried;
  let now = carried?.now ?? start;
  const agenda: ScheduledAction[] = carried?.agenda ?? [];
  const negotiations: Record<string, NegotiationMemory> = carried?.negotiations ?? {};
  // What the other parties addressed to the agent in this run, for its waits; the whole story is read from the log.
  const othersDid: TranscriptEntry[] = [];
  /** Conversations opened with the agent (direct messages): what is said in them is addressed to it. */
  const agentConversations = new Set<string>(carried?.agentConversations ?? []);
  let agentActions = carried?.agentActions ?? 0;
  let handledSeq = carried?.handledSeq ?? 0;
  let finishRequested = false;
  let outcome: EpisodeWorkflowResult | undefined;
  const deadline = addBusinessDays(start, instance.horizon.businessDays);
  const agents = new Set([input.agent.employeeId, input.agent.email, input.agent.slackUser]);
  const parties = Object.entries(instance.parties);
  const party = (name: string): ResolvedParty => instance.parties[name];

  const schedule = (action: ScheduledAction): void => {
    if (!agenda.some((a) => a.kind === action.kind && a.party === action.party && a.ref === action.ref)) {
      agenda.push(action);
      agenda.sort((a, b) => a.at - b.at || a.party.localeCompare(b.party));
    }
  };

  const react = (event: SignalledEvent, actor: string): void => {
    if (actor !== 'agent') {
      return;
    }
    const data = event.data;
    if (event.name === 'email.sent') {
      const recipients = [...((data.to as string[]) ?? []), ...((data.cc as string[]) ?? [])].map((a) =>
        a.toLowerCase(),
      );
      for (const [name, p] of parties) {
        if (p.persona === 'supplier-negotiator' && recipients.includes(p.contactEmail.toLowerCase())) {
          if (negotiations[name]?.closed) {
            continue;
          }
          schedule({ at: addBusinessDays(now, p.replyAfterBusinessDays), kind: 'supplier-reply', party: name });
        }
      }
    }
    // Invited suppliers answer a request for quotation themselves (episodes recorded before they did still replay).
    if (event.name === 'erp.rfq.sent' && Array.isArray(data.supplier_ids)) {
      for (const [name, p] of parties) {
        if (
          p.persona === 'supplier-negotiator' &&
          data.supplier_ids.includes(p.supplierId) &&
          !negotiations[name]?.closed &&
          patched('suppliers-answer-rfqs')
        ) {
          schedule({ at: addBusinessDays(now, p.replyAfterBusinessDays), kind: 'supplier-reply', party: name });
        }
      }
    }
    if (event.name === 'erp.po.pending_approval') {
      for (const [name, p] of parties) {
        if (p.persona === 'approver') {
          schedule({
            at: addBusinessHours(now, p.replyAfterBusinessHours),
            kind: 'approver-review',
            party: name,
            ref: data.po_id as string,
          });
        }
        // Finance asks the agent about orders waiting for approval (episodes recorded before it did still replay).
        if (p.persona === 'finance-colleague' && questionsAsked < p.questions && patched('finance-asks-questions')) {
          questionsAsked++;
          schedule({ at: addBusinessHours(now, 1), kind: 'finance-question', party: name, ref: data.po_id as string });
        }
      }
    }
    if (event.name === 'erp.po.sent') {
      for (const [name, p] of parties) {
        if (p.persona === 'supplier-negotiator' && p.supplierId === data.supplier_id) {
          schedule({
            at: addBusinessDays(now, 1),
            kind: 'supplier-acknowledge',
            party: name,
            ref: data.po_id as string,
          });
        }
      }
    }
    if (event.name === 'slack.message.posted') {
      for (const [name, p] of parties) {
        const text = typeof data.text === 'string' ? data.text.toLowerCase() : '';
        if (
          p.persona === 'finance-colleague' &&
          (text.includes(p.name.split(' ')[0].toLowerCase()) || text.includes('finance'))
        ) {
          schedule({
            at: addBusinessHours(now, 2),
            kind: 'finance-answer',
            party: name,
            ref: `${String(data.channel)}|${String(data.ts)}`,
          });
        }
      }
    }
  };

  // Parties declared as data react through the library's matcher; only scenarios that declare one take this path,
  // so histories of the built-in personas (recorded before it) replay as they were.
  const declaresParties = parties.some(([, p]) => p.persona === 'declared');
  const scheduleReaction = (planned: PlannedReaction, from: number, event?: SignalledEvent & { actor: string }): void =>
    schedule({
      at: after(from, planned.delay),
      kind: 'reaction',
      party: planned.party,
      ref: planned.ref,
      reaction: planned.reaction,
      ...(event ? { event } : {}),
    });
  const reactDeclared = (event: SignalledEvent, actor: string): void => {
    if (!declaresParties || !patched('declarative-parties')) {
      return;
    }
    const observed = {
      ...event,
      actor:
        actor === 'agent' || (event.actor !== undefined && agents.has(event.actor)) ? 'agent' : (event.actor ?? actor),
    };
    for (const planned of matchReactions(observed, instance.parties, instance.values, input.agent)) {
      scheduleReaction(planned, Math.max(now, Date.parse(event.at)), observed);
    }
  };

  // Reactions on a state fire once, when their predicate first holds on the twins' records; only scenarios that
  // declare one ask (behind their own patch), so histories without them replay as they were.
  const firedStates = new Set<string>(carried?.firedStates ?? []);
  const watchedStates = stateReactions(instance.parties);
  const checkStates = async (): Promise<void> => {
    const pending = watchedStates.filter((s) => !firedStates.has(s.ref));
    if (pending.length === 0 || !patched('state-triggers')) {
      return;
    }
    const holding = await acts.statesHolding({
      services: input.services,
      episodeId: input.episodeId,
      instance,
      agent: input.agent,
      startAt: input.startAt,
      predicates: Object.fromEntries(pending.map((s) => [s.ref, s.predicate])),
    });
    for (const state of pending.filter((s) => holding.includes(s.ref))) {
      firedStates.add(state.ref);
      scheduleReaction(state, now);
    }
  };

  let handledThisRun = 0;
  // Temporal takes at most 2,000 updates in one run (the agent's waits): the run hands over well before.
  let updatesThisRun = 0;
  const updatesPerRun = input.continueAsNewAfterUpdates ?? 1000;
  let questionsAsked = carried?.questionsAsked ?? 0;
  const handle = (events: SignalledEvent[]): void => {
    for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
      if (event.seq <= handledSeq) {
        continue;
      }
      handledSeq = event.seq;
      handledThisRun++;
      const actor = actorOf(event, agents);
      if (actor === 'agent') {
        agentActions++;
      }
      const conversation = conversationWith(event, agents);
      if (conversation !== undefined) {
        agentConversations.add(conversation);
      }
      if (actor !== 'agent' && addressedTo(event, agents, agentConversations)) {
        othersDid.push(transcriptEntryOf(event, agents, actor));
      }
      react(event, actor);
      reactDeclared(event, actor);
    }
  };

  let statesCheckedAt = -1;
  /** Reads the log up to its end; `read`: its first page, when a party's turn already read it. */
  const catchUp = async (read?: PartyTurn['page']): Promise<void> => {
    const context = { services: input.services, episodeId: input.episodeId };
    if (read !== undefined || patched('paged-events')) {
      // A page at a time: each read is recorded in the history, and an agent may do thousands of things between waits.
      for (let readSeq = handledSeq, more = true, first = read; more; first = undefined) {
        const page = first ?? (await acts.eventsPage({ ...context, afterSeq: readSeq }));
        handle(page.events);
        ({ lastSeq: readSeq, more } = page);
      }
    } else {
      handle(await acts.eventsSince({ ...context, afterSeq: handledSeq }));
    }
    // A state changes only with an event (signalled or caught up): judged again only when something happened.
    if (handledSeq !== statesCheckedAt) {
      statesCheckedAt = handledSeq;
      await checkStates();
    }
  };

  /** Runs what other parties do up to `target` (those `only` picks), in time order, moving the clock to each. */
  const runUntil = async (
    target: number,
    only: (action: ScheduledAction) => boolean = () => true,
  ): Promise<TranscriptEntry[]> => {
    const before = othersDid.length;
    const due = () => agenda.findIndex((a) => a.at <= target && only(a));
    for (let next = due(); next !== -1; next = due()) {
      const [action] = agenda.splice(next, 1);
      now = Math.max(now, action.at);
      const p = party(action.party);
      const context = {
        services: input.services,
        episodeId: input.episodeId,
        instance,
        agent: input.agent,
        actionKey: `${action.kind}:${action.party}:${action.at}:${action.ref ?? ''}`,
      };
      if (patched('fused-party-turns')) {
        // The clock's move, the step and the log's first page after it in one local activity (one activation).
        const turn = await fusedSteps.partyTurn({
          ...context,
          party: action.party,
          at: iso(now),
          action: partyAction(action, p, negotiations[action.party] ?? null),
          afterSeq: handledSeq,
        });
        now = Date.parse(turn.now);
        if (turn.memory !== undefined) {
          negotiations[action.party] = turn.memory;
        }
        await catchUp(turn.page);
        continue;
      }
      now = Date.parse(await acts.advanceClock({ services: input.services, episodeId: input.episodeId, at: iso(now) }));
      switch (action.kind) {
        case 'supplier-reply':
          negotiations[action.party] = await acts.supplierReply({
            ...context,
            party: action.party,
            memory: negotiations[action.party] ?? null,
          });
          break;
        case 'approver-review':
          await acts.approverReview({ ...context, party: action.party, poId: action.ref as string });
          break;
        case 'supplier-acknowledge':
          await acts.supplierAcknowledge({ ...context, party: action.party, poId: action.ref as string });
          break;
        case 'finance-question':
          await acts.financeQuestion({ ...context, party: action.party, poId: action.ref as string });
          break;
        case 'finance-answer':
          if (p.persona === 'finance-colleague') {
            await acts.financeAnswer({ ...context, party: action.party, ref: action.ref as string });
          }
          break;
        case 'noise':
          await acts.backgroundMessage({ ...context, party: action.party, index: Number(action.ref) });
          break;
        case 'reaction':
          await reactions.performReaction({
            ...context,
            party: action.party,
            reaction: action.reaction as string,
            ...(action.event ? { event: action.event } : {}),
          });
          break;
      }
      await catchUp();
    }
    now = Math.max(now, target);
    now = Date.parse(await acts.advanceClock({ services: input.services, episodeId: input.episodeId, at: iso(now) }));
    return othersDid.slice(before);
  };

  const horizonReached = (): string | undefined =>
    now >= deadline
      ? `the horizon of ${instance.horizon.businessDays} business days passed`
      : agentActions >= instance.horizon.maxAgentActions
        ? `the agent used its ${instance.horizon.maxAgentActions} actions`
        : undefined;

  setHandler(domainEventsSignal, handle);
  // The lease (input.leaseSeconds): renewed by every update and by the player's signal; it runs out only when the
  // process playing the agent is gone, and the episode is then ended rather than left open to its wall-clock limit.
  const leaseMs = input.leaseSeconds !== undefined ? input.leaseSeconds * 1000 : undefined;
  let leaseEnds = leaseMs !== undefined ? Date.now() + leaseMs : Infinity;
  const renewLease = (): void => {
    if (leaseMs !== undefined) {
      leaseEnds = Date.now() + leaseMs;
    }
  };
  setHandler(renewLeaseSignal, renewLease);
  let waiting = 0;
  setHandler(stateQuery, () => ({
    now: iso(now),
    agentActions,
    agenda: agenda.map((a) => ({ ...a, at: iso(a.at) })),
    negotiations,
    finished: outcome !== undefined,
  }));
  let setUp = carried !== undefined;
  setHandler(readyUpdate, async (): Promise<string> => {
    updatesThisRun++;
    renewLease();
    await condition(() => setUp);
    return iso(now);
  });
  setHandler(waitUpdate, async (request: WaitRequest): Promise<WaitResult> => {
    updatesThisRun++;
    renewLease();
    // The player is waiting for this answer, however long the parties' steps take: its lease holds meanwhile.
    waiting++;
    try {
      await catchUp();
      agentActions++;
      const next = agenda[0]?.at;
      const target =
        request.businessDays !== undefined
          ? addBusinessDays(now, request.businessDays)
          : (next ?? addBusinessDays(now, 1));
      const happened = await runUntil(Math.min(target, deadline));
      finishRequested ||= horizonReached() !== undefined;
      return { now: iso(now), happened, finished: finishRequested };
    } finally {
      waiting--;
      renewLease();
    }
  });
  setHandler(finishUpdate, async (): Promise<EpisodeWorkflowResult> => {
    updatesThisRun++;
    renewLease();
    finishRequested = true;
    await condition(() => outcome !== undefined);
    return outcome as EpisodeWorkflowResult;
  });

  if (!carried) {
    now = Date.parse(await acts.advanceClock({ services: input.services, episodeId: input.episodeId, at: iso(now) }));
    for (const step of instance.setup) {
      await acts.applySetup({ services: input.services, episodeId: input.episodeId, step });
    }
    for (const [name, p] of parties) {
      if (p.persona === 'background-traffic') {
        for (let i = 0; i < p.messages; i++) {
          const share = (i + 1) / (p.messages + 1);
          schedule({
            at: addBusinessDays(start, instance.horizon.businessDays * share),
            kind: 'noise',
            party: name,
            ref: String(i),
          });
        }
      }
    }
    if (declaresParties && patched('declarative-parties')) {
      await reactions.enrolOutsiders({ services: input.services, episodeId: input.episodeId, instance });
      for (const planned of openingReactions(instance.parties)) {
        scheduleReaction(planned, start);
      }
      // What a requester does at the very start (the case it opens) is there before the agent's first look.
      await runUntil(start, (a) => a.kind === 'reaction');
    }
  }
  setUp = true;

  const conclude = async (
    status: 'horizon' | 'cancelled' | 'abandoned' | undefined,
  ): Promise<EpisodeWorkflowResult> => {
    await catchUp();
    if (status === undefined && patched('counterparties-answer-at-end')) {
      // What a counterparty makes of an order the agent sent is part of the outcome: an agent that finishes before
      // the supplier could answer still gets its answer (acknowledged, or declined as never agreed), within the horizon.
      const answers = agenda.filter((a) => a.kind === 'supplier-acknowledge' && a.at <= deadline);
      if (answers.length > 0) {
        await runUntil(Math.max(...answers.map((a) => a.at)), (a) => a.kind === 'supplier-acknowledge');
      }
    }
    // A declared counterparty's answer to an order the agent sent (a negotiator honouring or refusing it) is part of
    // the outcome too, as a built-in supplier's is: an agent that finishes first still gets it, within the horizon.
    const honours = (a: ScheduledAction): boolean => {
      const p = a.kind === 'reaction' ? instance.parties[a.party] : undefined;
      return p?.persona === 'declared' && p.reactions.some((r) => r.id === a.reaction && 'honour' in r.act);
    };
    const honouring = agenda.filter((a) => honours(a) && a.at <= deadline);
    if (status === undefined && honouring.length > 0 && patched('declared-counterparties-answer-at-end')) {
      await runUntil(Math.max(...honouring.map((a) => a.at)), honours);
    }
    if (status === undefined && declaresParties && patched('cases-open-before-judging')) {
      // The case a requester opens exists whether or not the agent waited for it: an agent that finishes before the
      // patient's mail arrives has still left that mail unanswered, and the rules must see it (within the horizon).
      const opening = (a: ScheduledAction) => a.kind === 'reaction' && (a.ref ?? '').endsWith('@start');
      const openings = agenda.filter((a) => opening(a) && a.at <= deadline);
      if (openings.length > 0) {
        await runUntil(Math.max(...openings.map((a) => a.at)), opening);
      }
    }
    const judged = await acts.judgeOutcome({
      services: input.services,
      episodeId: input.episodeId,
      instance,
      agent: input.agent,
      startAt: input.startAt,
    });
    if (patched('close-episode')) {
      // What the agent does after the end (past the horizon) must not change what is graded.
      await acts.closeEpisode({ services: input.services, episodeId: input.episodeId });
    }
    const limit = horizonReached();
    outcome = {
      episodeId: input.episodeId,
      scenarioId: instance.scenarioId,
      seed: instance.seed,
      status:
        status === 'cancelled' || status === 'abandoned'
          ? 'cancelled'
          : judged.succeeded
            ? 'succeeded'
            : status === 'horizon' || limit
              ? 'horizon'
              : 'failed',
      reason:
        status === 'cancelled'
          ? `the episode was cancelled; ${judged.reason}`
          : status === 'abandoned'
            ? `the process playing the agent stopped renewing its lease of ${input.leaseSeconds} s; ${judged.reason}`
            : judged.succeeded
              ? judged.reason
              : status === 'horizon'
                ? `the wall-clock limit of ${instance.horizon.wallClockMinutes} minutes passed; ${judged.reason}`
                : (limit ?? judged.reason),
      agentActions,
      simulatedBusinessDays: businessDaysBetween(start, now),
      finalTerms: judged.finalTerms,
    };
    return outcome;
  };

  const wallClock = instance.horizon.wallClockMinutes * 60_000;
  // Counted from the first run: handing over to a new run does not give the episode more wall-clock time.
  const startedAt = carried?.startedAt ?? Date.now();
  try {
    for (;;) {
      const remaining = Math.max(0, wallClock - (Date.now() - startedAt));
      const longEnough = () =>
        workflowInfo().continueAsNewSuggested ||
        updatesThisRun >= updatesPerRun ||
        (input.continueAsNewAfterEvents !== undefined && handledThisRun >= input.continueAsNewAfterEvents);
      // Without a lease, one timer for the wall-clock limit (as histories recorded before leases have it); with one,
      // a timer to the lease's end, re-armed when it finds the lease renewed meanwhile.
      const woke = await condition(
        () => finishRequested || longEnough(),
        leaseMs === undefined ? remaining : Math.max(1, Math.min(remaining, leaseEnds - Date.now())),
      );
      const leaseTimer = leaseMs !== undefined && !woke && Date.now() - startedAt < wallClock;
      if (leaseTimer && (Date.now() < leaseEnds || waiting > 0)) {
        continue;
      }
      if (!woke || finishRequested) {
        // The finish update is still waiting for the outcome, so handlers are drained only after it is set.
        await conclude(woke ? undefined : leaseTimer ? 'abandoned' : 'horizon');
        await condition(allHandlersFinished);
        return outcome as EpisodeWorkflowResult;
      }
      await condition(allHandlersFinished);
      await continueAsNew<typeof episodeWorkflow>({
        ...input,
        carried: {
          now,
          agenda,
          negotiations,
          agentActions,
          handledSeq,
          questionsAsked,
          startedAt,
          ...(firedStates.size > 0 ? { firedStates: [...firedStates] } : {}),
          ...(agentConversations.size > 0 ? { agentConversations: [...agentConversations] } : {}),
        },
      });
    }
  } catch (error) {
    if (!isCancellation(error)) {
      throw error;
    }
    // Cancelled from outside (a trainer stopping a rollout): still judged, in a scope cancellation cannot reach.
    return CancellationScope.nonCancellable(() => conclude('cancelled'));
  }
}
