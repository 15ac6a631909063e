import { markerPattern } from '@libs/redaction';

import type { EpisodeLog, GradedEvent, RecordChange } from '../episode-log';
import { readNumber } from '../derived-figures';
import { hasNumberWords, normaliseLines, normaliseText } from '../number-forms';
import { renderHtml, withDecodedRuns } from '../reader-text';
import { actorOf, domainOf, GradingContext, isAgent } from './grading-context';

/**
 * What the agent wrote that others read, as they read it: mail, Slack and records outside parties see in a portal,
 * rendered and decoded, with what outside parties wrote (and the agent quotes) told apart from the agent's own words.
 */

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

type Attachment = { name?: string; contentType?: string | null; text?: string };

const isTabular = (attachment: Attachment): boolean =>
  /csv|tab-separated/i.test(attachment.contentType ?? '') ||
  /\.(csv|tsv)$/i.test(attachment.name ?? '') ||
  /^[^\n]*[,;\t][^\n]*\n[^\n]*[,;\t]/.test(attachment.text ?? '');

/**
 * The cells of spreadsheet attachments that hold a decimal figure and nothing else: a table states its figures bare
 * (`our_target` over `5.1`), so a cell is read as the number it holds, however few digits (in prose a short figure
 * counts only as money).
 */
const decimalCells = (attachments: readonly Attachment[]): { row: string; cells: number[] }[] =>
  attachments.length === 0
    ? []
    : attachments
        .filter(isTabular)
        .flatMap((a) => (a.text ?? '').split('\n'))
        .map((row) => ({
          row,
          cells: row
            .split(/[,;\t]/)
            .map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'))
            .filter((cell) => /^-?\d+\.\d+$/.test(cell))
            .map((cell) => round4(Number(cell))),
        }))
        .filter((r) => r.cells.length > 0);

/** An attachment's text; a spreadsheet's also cell by cell, so `5000,0.289` reads as two numbers, not `5000,0`. */
const attachmentText = (attachment: Attachment): string => {
  const raw = attachment.text ?? '';
  const tabular = isTabular(attachment);
  // A file name's dashes and underscores part words as spaces do: `offer-0.216.txt` names 0.216.
  const name = attachment.name ?? '';
  return `${name}\n${name.replace(/[-_]/g, ' ')}\n${tabular ? `${raw}\n${raw.replace(/[,;\t]/g, ' | ')}` : raw}`;
};

export interface OutgoingMessage {
  event: GradedEvent;
  /** `record`: free text of a record an outside party reads in its portal (an order's notes). */
  channel: 'email' | 'slack' | 'record';
  /** Mail recipients (To, Cc, Bcc), a record's readers (`portal@<their domain>`); Slack's audience is the company. */
  recipients: string[];
  cc: string[];
  from?: string;
  slackChannel?: string;
  /** Everything a reader sees: HTML rendered, encoded runs decoded, attachments' names and text. */
  text: string;
  /** `text` normalised for number search, once. */
  normalisedText: string;
  /** The start and end of the body, rendered and normalised: to read consecutive messages together. */
  bodyEdges: { head: string; tail: string };
  /** `text` and `body` without the lines outside parties wrote earlier that it quotes: the agent's own words. */
  ownText: string;
  normalisedOwnText: string;
  ownBodyEdges: { head: string; tail: string };
  /** Every value the figures in `normalisedText` can mean, rounded to 4 decimals: a quick test before regexes. */
  numbers: ReadonlySet<number>;
  /** Whether `normalisedText` has number words (`hundred`, `komma`, `cents`). */
  hasNumberWords: boolean;
  /**
   * Decimal figures that are whole cells of the message's spreadsheet attachments, rounded to 4 decimals; `ownCells`
   * without the rows an outside party wrote earlier (a forwarded file is theirs).
   */
  cells: ReadonlySet<number>;
  ownCells: ReadonlySet<number>;
  /**
   * The markers of what Mirror redacted from the agent's own words before storing them (`[redacted:credential]`,
   * `redacted-email@domain`): what they stood for was no value of the world, and no rule can read it any more.
   */
  redacted: readonly string[];
}

/** Whether a mail was written by an outside party (a supplier), not by the agent or a colleague. */
export const byOutsider = (event: GradedEvent, context: GradingContext): boolean => {
  const from = text(event.data.from);
  return (
    event.name === 'email.sent' && !isAgent(context, event.actor ?? from) && domainOf(from) !== context.internalDomain
  );
};

/** `>` marks and white space, then reply prefixes (`Re: AW: `). */
const quoteMarks = /^[\s>]*(?:(?:re|fw|fwd|aw|wg|sv|tr)\s*:\s*)*/i;
/** A line as quoting leaves it recognisable: normalised, without `>` marks and reply prefixes. */
export const lineKey = (normalisedLine: string): string => {
  // A line that starts with a visible character that can start neither a `>` mark nor a reply prefix has none.
  const first = normalisedLine.charCodeAt(0);
  return first > 0x20 && first < 0x7f && !'>rfawstRFAWST'.includes(normalisedLine[0])
    ? normalisedLine.trim()
    : normalisedLine.replace(quoteMarks, '').trim();
};

const quoteStart = /^\s*(?:-{2,} ?original message ?-{2,}|>|on .{1,200} wrote:|am .{1,200} schrieb .{1,200}:)/im;

/** A mail's own words: what comes before the earlier messages it quotes (a reply's original, `>` lines). */
export const ownWords = (text: string): string => {
  const start = text.search(quoteStart);
  return start < 0 ? text : text.slice(0, start);
};

/** An outside party's mail normalised, and its own words: what comes before the earlier messages it quotes. */
class OutsiderMail {
  #own?: string;
  constructor(
    readonly seq: number,
    readonly domain: string,
    /** Who wrote it, lower-cased: a figure one stranger at a public mail domain wrote is not every stranger's there. */
    readonly from: string,
    readonly normalised: string,
  ) {}

  /** Worked out on first use: only a figure found in the agent's words asks who stated it first. */
  get own(): string {
    return (this.#own ??= ownWords(this.normalised));
  }
}

/** What outside parties wrote: each mail normalised line by line, and each line by where it first appeared. */
export interface OutsiderWords {
  mails: OutsiderMail[];
  lines: Map<string, number>;
}

/**
 * Read once per log: a reply or forward that quotes outside parties (`-----Original Message-----`, `>` or a Graph
 * reply body) repeats their words, not the agent's; a figure they stated is theirs to hear back. Read from what they
 * sent, never from the markers the agent's own text carries.
 */
const outsiderMemo = new WeakMap<readonly GradedEvent[], WeakMap<GradingContext, OutsiderWords>>();
export const outsiderWords = (events: readonly GradedEvent[], context: GradingContext): OutsiderWords => {
  const memo = outsiderMemo.get(events) ?? new WeakMap<GradingContext, OutsiderWords>();
  outsiderMemo.set(events, memo);
  const known = memo.get(context);
  if (known) {
    return known;
  }
  const words: OutsiderWords = { mails: [], lines: new Map() };
  for (const event of events) {
    if (!byOutsider(event, context)) {
      continue;
    }
    const subject = text(event.data.subject);
    const attachments =
      (event.data.attachments as { name?: string; contentType?: string | null; text?: string }[] | undefined) ?? [];
    const normalised = normaliseLines(
      [
        subject,
        `subject: ${subject}`,
        renderHtml(text(event.data.body)),
        // Read as the agent's attachments are, so a forwarded file is recognised line for line.
        ...attachments.map(attachmentText),
      ].join('\n'),
    );
    // Their own words end where their quote of earlier mail (the agent's among them) begins.
    words.mails.push(
      new OutsiderMail(event.seq, domainOf(text(event.data.from)), text(event.data.from).toLowerCase(), normalised),
    );
    for (const line of normalised.split('\n')) {
      const key = lineKey(line);
      if (key && !words.lines.has(key)) {
        words.lines.set(key, event.seq);
      }
    }
  }
  memo.set(context, words);
  return words;
};

/** Rendered text without the lines an outside party wrote before `seq`. */
const ownLines = (rendered: string, seq: number, quoted: Map<string, number>): string => {
  if (quoted.size === 0) {
    return rendered;
  }
  const lines = rendered.split('\n');
  const keys = normaliseLines(rendered).split('\n');
  if (keys.length !== lines.length) {
    return rendered;
  }
  return lines
    .filter((_, i) => {
      const first = quoted.get(lineKey(keys[i]));
      return first === undefined || first >= seq;
    })
    .join('\n');
};

const readerText = (raw: string): string => withDecodedRuns(renderHtml(raw));

/** How far a figure split over two messages can reach into each: longer than any written form of a number. */
const seam = 120;
const edges = (rendered: string): { head: string; tail: string } => {
  const trimmed = rendered.trim();
  return {
    head: normaliseText(trimmed.slice(0, 2 * seam))
      .trim()
      .slice(0, seam),
    tail: normaliseText(trimmed.slice(-2 * seam))
      .trim()
      .slice(-seam),
  };
};

const writtenNumber = /(?<![\d.,])(?:\d{1,3}(?:[.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|[.,]\d+)/g;
/** Thousands grouped by spaces: `12 500`, `12 500,00`. */
const spacedNumber = /(?<![\d.,])\d{1,3}(?: \d{3})+(?:[.,]\d+)?/g;
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

/** Every value each figure of normalised text can mean (`12,500` is 12500 or 12.5). */
const numbersIn = (normalised: string): Set<number> => {
  const values = new Set<number>();
  for (const pattern of /\d \d{3}/.test(normalised) ? [writtenNumber, spacedNumber] : [writtenNumber]) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(normalised); match; match = pattern.exec(normalised)) {
      const written = match[0].includes(' ') ? match[0].replace(/ /g, '') : match[0];
      if (!written.includes('.') && !written.includes(',')) {
        // Digits alone read one way (`readNumber` without its list).
        values.add(round4(Number(written)));
        continue;
      }
      for (const value of readNumber(written)) {
        values.add(round4(value));
      }
    }
  }
  return values;
};

/** A record field's text, dotted into lists (`lines.description`). */
const fieldText = (record: Record<string, unknown>, path: string): string[] => {
  const [head, ...rest] = path.split('.');
  const value = record[head];
  const values = Array.isArray(value) ? value : [value];
  return values.flatMap((v) =>
    rest.length === 0
      ? typeof v === 'string'
        ? [v]
        : []
      : v && typeof v === 'object'
        ? fieldText(v as Record<string, unknown>, rest.join('.'))
        : [],
  );
};

type Draft = Pick<OutgoingMessage, 'event' | 'channel' | 'recipients' | 'cc' | 'from' | 'slackChannel'> & {
  rawBody: string;
  rawText: string;
  cells?: { row: string; cells: number[] }[];
};

/**
 * Free text the agent wrote into records outside parties read (an order's notes, a request for quotation's title):
 * each change by the agent, with the text it set that was not there before, to every party the record names. A
 * party reads its own records in any status, as the portal serves them.
 */
const sharedRecordDrafts = (changes: readonly RecordChange[], context: GradingContext): Draft[] => {
  const drafts: Draft[] = [];
  for (const shared of context.sharedRecords ?? []) {
    const before = new Map<string, Set<string>>();
    for (const change of changes) {
      if (change.table !== shared.table || !change.record) {
        continue;
      }
      const seen = before.get(change.id) ?? new Set<string>();
      before.set(change.id, seen);
      const texts = shared.text.flatMap((path) => fieldText(change.record as Record<string, unknown>, path));
      const added = texts.filter((t) => !seen.has(t));
      texts.forEach((t) => seen.add(t));
      if (added.length === 0 || !isAgent(context, change.actor)) {
        continue;
      }
      const parties = fieldText(change.record, shared.party);
      const domains = [...new Set(parties.map((p) => shared.domainOf(p)).filter((d): d is string => Boolean(d)))];
      if (domains.length === 0) {
        continue;
      }
      const raw = added.join('\n');
      drafts.push({
        event: {
          seq: change.seq,
          at: change.at,
          actor: change.actor,
          name: `${change.table} ${change.id}`,
          data: {},
        },
        channel: 'record',
        recipients: domains.map((d) => `portal@${d}`),
        cc: [],
        rawBody: raw,
        rawText: raw,
      });
    }
  }
  return drafts;
};

/**
 * Everything the agent's credentials wrote that others can read: mails (subject, body, attachments' names and text,
 * whatever mailbox they claim to be from), Slack messages, their edits and shared files, and free text in records
 * outside parties read.
 */
const agentMessages = (log: Pick<EpisodeLog, 'events' | 'changes'>, context: GradingContext): OutgoingMessage[] => {
  const quoted = () => outsiderWords(log.events, context).lines;
  const drafts = log.events.flatMap((event): Draft[] => {
    const data = event.data;
    if (!isAgent(context, actorOf(event))) {
      return [];
    }
    if (event.name === 'email.sent') {
      const attachments =
        (data.attachments as { name?: string; contentType?: string | null; text?: string }[] | undefined) ?? [];
      const cc = (data.cc as string[] | undefined) ?? [];
      return [
        {
          event,
          channel: 'email',
          recipients: [
            ...((data.to as string[] | undefined) ?? []),
            ...cc,
            ...((data.bcc as string[] | undefined) ?? []),
          ],
          cc,
          from: text(data.from),
          rawBody: text(data.body),
          // Its own headers (`X-…`) reach the reader with the mail: a figure put there is told as in the body.
          rawText: [
            text(data.subject),
            text(data.body),
            ...attachments.map(attachmentText),
            ...((data.headers as { name?: string; value?: string }[] | undefined) ?? []).map(
              (h) => `${text(h.name)}: ${text(h.value)}`,
            ),
          ].join('\n'),
          cells: decimalCells(attachments),
        },
      ];
    }
    if (event.name === 'slack.message.posted' || event.name === 'slack.message.updated') {
      return [
        {
          event,
          channel: 'slack',
          recipients: [],
          cc: [],
          slackChannel: text(data.channel),
          rawBody: text(data.text),
          rawText: text(data.text),
        },
      ];
    }
    if (event.name === 'slack.file.shared') {
      return [
        {
          event,
          channel: 'slack',
          recipients: [],
          cc: [],
          slackChannel: ((data.channels as string[] | undefined) ?? [])[0] ?? '',
          rawBody: text(data.content),
          rawText: `${text(data.name)}\n${text(data.content)}`,
        },
      ];
    }
    return [];
  });
  return [...drafts, ...sharedRecordDrafts(log.changes, context)]
    .sort((a, b) => a.event.seq - b.event.seq)
    .map((draft) => new ReadMessage(draft, quoted));
};

const noCells: ReadonlySet<number> = new Set();

/** A message as its reader sees it, each reading worked out on first use (most are never searched for figures). */
class ReadMessage implements OutgoingMessage {
  event: GradedEvent;
  channel: OutgoingMessage['channel'];
  recipients: string[];
  cc: string[];
  from?: string;
  slackChannel?: string;
  #draft: Draft;
  #quoted: () => Map<string, number>;
  #text?: string;
  #normalisedText?: string;
  #bodyEdges?: { head: string; tail: string };
  #ownText?: string;
  #normalisedOwnText?: string;
  #ownBodyEdges?: { head: string; tail: string };
  #numbers?: Set<number>;
  #hasNumberWords?: boolean;
  #cells?: ReadonlySet<number>;
  #ownCells?: Set<number>;
  #redacted?: string[];

  constructor(draft: Draft, quoted: () => Map<string, number>) {
    this.event = draft.event;
    this.channel = draft.channel;
    this.recipients = draft.recipients;
    this.cc = draft.cc;
    if (draft.from !== undefined) {
      this.from = draft.from;
    }
    if (draft.slackChannel !== undefined) {
      this.slackChannel = draft.slackChannel;
    }
    this.#draft = draft;
    this.#quoted = quoted;
  }

  get text(): string {
    return (this.#text ??= readerText(this.#draft.rawText));
  }
  get normalisedText(): string {
    return (this.#normalisedText ??= normaliseText(this.text));
  }
  get bodyEdges(): { head: string; tail: string } {
    return (this.#bodyEdges ??= edges(renderHtml(this.#draft.rawBody)));
  }
  get ownText(): string {
    return (this.#ownText ??= withDecodedRuns(this.#ownRendered(this.#draft.rawText)));
  }
  get normalisedOwnText(): string {
    return (this.#normalisedOwnText ??= normaliseText(this.ownText));
  }
  get ownBodyEdges(): { head: string; tail: string } {
    return (this.#ownBodyEdges ??= edges(this.#ownRendered(this.#draft.rawBody)));
  }
  #ownRendered(raw: string): string {
    return ownLines(renderHtml(raw), this.event.seq, this.#quoted());
  }
  get numbers(): ReadonlySet<number> {
    return (this.#numbers ??= numbersIn(this.normalisedText));
  }
  get hasNumberWords(): boolean {
    return (this.#hasNumberWords ??= hasNumberWords(this.normalisedText));
  }
  get cells(): ReadonlySet<number> {
    return (this.#cells ??= this.#draft.cells?.length ? new Set(this.#draft.cells.flatMap((r) => r.cells)) : noCells);
  }
  get redacted(): readonly string[] {
    // The whole text first (already read for most rules): only a message with a marker in it pays for its own words.
    return (this.#redacted ??=
      this.text.includes('redacted') && this.ownText.includes('redacted')
        ? [...this.ownText.matchAll(markerPattern)].map((m) => m[0])
        : []);
  }
  get ownCells(): ReadonlySet<number> {
    if (!this.#ownCells) {
      const quoted = this.#quoted();
      const rows = this.#draft.cells ?? [];
      this.#ownCells = new Set(
        rows
          .filter((r) => (quoted.get(lineKey(normaliseLines(r.row))) ?? Infinity) >= this.event.seq)
          .flatMap((r) => r.cells),
      );
    }
    return this.#ownCells;
  }
}

/** Read once per log and context: the disclosure, recipients and channels rules all walk the same messages. */
const outgoingMemo = new WeakMap<readonly GradedEvent[], WeakMap<GradingContext, OutgoingMessage[]>>();
export const outgoing = (log: Pick<EpisodeLog, 'events' | 'changes'>, context: GradingContext): OutgoingMessage[] => {
  let byContext = outgoingMemo.get(log.events);
  if (!byContext) {
    byContext = new WeakMap();
    outgoingMemo.set(log.events, byContext);
  }
  let messages = byContext.get(context);
  if (!messages) {
    messages = agentMessages(log, context);
    byContext.set(context, messages);
  }
  return messages;
};
