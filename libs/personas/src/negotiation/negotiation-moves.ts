import type { Negotiation, NegotiationIssue } from '@libs/party-reactions';

/**
 * A declared negotiator's moves over any numeric issues, after the time-dependent tactics of Faratin, Sierra and
 * Jennings (1998): on each issue the ask goes from the opening value to the reservation value as
 * `opening − (opening − reservation) · (t/T)^(1/β)`, with T the party's patience in rounds; boulware (β < 1) holds out
 * until near its deadline, conceder (β > 1) gives ground early, linear evenly. Tit-for-tat (Axelrod's relative
 * tactic) mirrors the counterpart: on each issue it gives as much ground as the counterpart's last offer gave. It
 * accepts an offer that is on every issue at least as good for it as its own next ask and its reservation, and walks
 * away when insulted too often (an offer on the first issue far past its reservation) or when the talks stall.
 * Pure and deterministic: the moves are a function of the offers, so they are recomputed from the conversation.
 */
export type Terms = Record<string, number>;

export type NegotiationMove =
  | { kind: 'accept'; terms: Terms }
  | { kind: 'counter'; terms: Terms }
  | { kind: 'walk-away'; reason: 'insulted' | 'stalled' };

const beta = { boulware: 0.35, linear: 1, conceder: 3 } as const;

/** +1 when the party wants the issue high, −1 when low, 0 when it is fixed either way. */
export const direction = (issue: NegotiationIssue): number =>
  issue.opening !== issue.reservation
    ? Math.sign(issue.opening - issue.reservation)
    : issue.prefers === 'higher'
      ? 1
      : issue.prefers === 'lower'
        ? -1
        : 0;

const roundTo = (value: number, decimals: number): number => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** How much better `a` is than `b` for the party on this issue (negative when worse), at the issue's precision. */
const gain = (issue: NegotiationIssue, a: number, b: number): number => {
  const difference = roundTo(a, issue.decimals) - roundTo(b, issue.decimals);
  const tolerance = 10 ** -issue.decimals / 2;
  if (Math.abs(difference) < tolerance) {
    return 0;
  }
  const way = direction(issue);
  return way === 0 ? -Math.abs(difference) : way * difference;
};

/** Whether `value` is at least as good for the party as `than` on the issue (a fixed issue: the same value). */
export const atLeastAsGood = (issue: NegotiationIssue, value: number, than: number): boolean =>
  gain(issue, value, than) >= 0;

/** Never past the reservation value, on the party's side of it. */
const bounded = (issue: NegotiationIssue, value: number): number => {
  const way = direction(issue);
  const held =
    way === 0 ? issue.opening : way > 0 ? Math.max(issue.reservation, value) : Math.min(issue.reservation, value);
  return roundTo(held, issue.decimals);
};

/** The party's ask on one issue in round `round` (1 = its answer to the first message). */
const askOn = (
  negotiation: Negotiation,
  issue: NegotiationIssue,
  round: number,
  previousAsk: number,
  offers: number[],
): number => {
  if (negotiation.tactic === 'tit-for-tat') {
    const [before, last] = offers.slice(-2);
    const way = direction(issue);
    // Mirrors the counterpart's move toward it; a step of good faith before it has seen two offers.
    const step =
      offers.length < 2 || before === undefined || last === undefined
        ? Math.abs(issue.opening - issue.reservation) * 0.15
        : Math.max(0, way * (last - before));
    return bounded(issue, previousAsk - way * step);
  }
  const t = Math.min(1, round / Math.max(1, negotiation.patience));
  return bounded(issue, issue.opening - (issue.opening - issue.reservation) * t ** (1 / beta[negotiation.tactic]));
};

/** The party's opening position: every issue at its opening value. */
export const openingTerms = (negotiation: Negotiation): Terms =>
  Object.fromEntries(
    Object.entries(negotiation.issues).map(([name, issue]) => [name, roundTo(issue.opening, issue.decimals)]),
  );

const insulting = (negotiation: Negotiation, offer: Partial<Terms>): boolean => {
  const [first] = Object.entries(negotiation.issues);
  if (!first) {
    return false;
  }
  const [name, issue] = first;
  const value = offer[name];
  const way = direction(issue);
  if (value === undefined || way === 0) {
    return false;
  }
  return way > 0
    ? value < issue.reservation * negotiation.walkAway.insulting
    : value > issue.reservation / negotiation.walkAway.insulting;
};

/**
 * The party's move in answer to each of the counterpart's messages in turn (`offers[i]` what message i stated; an
 * issue it leaves out stands where it stood, or at the party's ask when never stated). Once it accepted or walked
 * away, later messages get no move (`undefined`).
 */
export const negotiationMoves = (
  negotiation: Negotiation,
  offers: Partial<Terms>[],
): (NegotiationMove | undefined)[] => {
  const names = Object.keys(negotiation.issues);
  let asks = openingTerms(negotiation);
  let standing: Partial<Terms> = {};
  const history: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  let insults = 0;
  let closed = false;
  return offers.map((stated, index): NegotiationMove | undefined => {
    if (closed) {
      return undefined;
    }
    const round = index + 1;
    standing = { ...standing, ...stated };
    const offer: Terms = Object.fromEntries(names.map((n) => [n, standing[n] ?? asks[n]]));
    for (const name of names) {
      if (standing[name] !== undefined) {
        history[name].push(offer[name]);
      }
    }
    if (insulting(negotiation, stated)) {
      insults++;
      if (insults >= negotiation.walkAway.insults) {
        closed = true;
        return { kind: 'walk-away', reason: 'insulted' };
      }
    }
    if (round > negotiation.walkAway.stalledAfter) {
      closed = true;
      return { kind: 'walk-away', reason: 'stalled' };
    }
    const next: Terms = Object.fromEntries(
      names.map((name) => [name, askOn(negotiation, negotiation.issues[name], round, asks[name], history[name])]),
    );
    // Terms are agreed only once the counterpart has named a value for every issue the party bargains over; a
    // message that leaves one out (a request for a quote) is answered with the party's ask, never taken as a yes.
    const named = names.every(
      (name) =>
        standing[name] !== undefined || negotiation.issues[name].opening === negotiation.issues[name].reservation,
    );
    const acceptable =
      Object.keys(stated).length > 0 &&
      named &&
      names.every((name) => {
        const issue = negotiation.issues[name];
        return atLeastAsGood(issue, offer[name], next[name]) && atLeastAsGood(issue, offer[name], issue.reservation);
      });
    if (acceptable) {
      closed = true;
      return { kind: 'accept', terms: offer };
    }
    asks = next;
    return { kind: 'counter', terms: next };
  });
};

/**
 * Whether an order's terms are on a position the party took (an offer it stood by, or terms it accepted): on every
 * issue the order names at least as good for it as that position. The reasons say why not, against its last one.
 */
export const orderOnTerms = (
  negotiation: Negotiation,
  positions: Terms[],
  order: Partial<Terms>,
): { agreed: true; position: Terms } | { agreed: false; reasons: string[] } => {
  const departures = (position: Terms): string[] =>
    Object.entries(order).flatMap(([name, value]) => {
      const issue = negotiation.issues[name];
      if (!issue || value === undefined || atLeastAsGood(issue, value, position[name])) {
        return [];
      }
      const label = issue.says[0];
      const unit = issue.unit ? ` ${issue.unit}` : '';
      return [
        `the ${label} of ${shown(issue, value)}${unit} is not the ${shown(issue, position[name])}${unit} we stated`,
      ];
    });
  const fitting = positions.find((position) => departures(position).length === 0);
  if (fitting) {
    return { agreed: true, position: fitting };
  }
  const last = positions[positions.length - 1];
  return { agreed: false, reasons: last ? departures(last) : ['we have not stated terms for it'] };
};

/** A value at its issue's precision. */
export const shown = (issue: NegotiationIssue, value: number): string => value.toFixed(issue.decimals);
