import { Worker } from 'node:worker_threads';

import type { EpisodeLog, GradedEvent } from './episode-log';
import { officeText } from './office-text';

/**
 * Extracts PDFs' text with pdf.js (through `unpdf`) in a worker thread: pdf.js is an ES module, which a CommonJS
 * process (and jest) can load only outside its own module system. Font programs are never evaluated
 * (`isEvalSupported: false`): the PDF is the agent's, so it is untrusted input.
 */
const worker = `
const { parentPort, workerData } = require('node:worker_threads');
const { extractText, getDocumentProxy } = require(workerData.unpdf);
(async () => {
  const texts = [];
  for (const bytes of workerData.files) {
    try {
      const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0 });
      texts.push((await extractText(pdf, { mergePages: true })).text);
    } catch {
      texts.push(null);
    }
  }
  parentPort.postMessage(texts);
})();
`;

/** Longer than any honest PDF takes; a PDF built to stall the reader gives up its text, not the grade. */
const extractionLimitMs = 60_000;

/** The text of each PDF, or `undefined` for one pdf.js cannot read. */
export const pdfTexts = async (files: readonly Buffer[]): Promise<(string | undefined)[]> => {
  if (files.length === 0) {
    return [];
  }
  const thread = new Worker(worker, { eval: true, workerData: { unpdf: require.resolve('unpdf'), files } });
  try {
    const texts = await new Promise<(string | null)[]>((resolve, reject) => {
      const timer = setTimeout(() => resolve(files.map(() => null)), extractionLimitMs);
      thread.once('message', (value: (string | null)[]) => {
        clearTimeout(timer);
        resolve(value);
      });
      thread.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    return texts.map((t) => t ?? undefined);
  } finally {
    await thread.terminate();
  }
};

type MailAttachment = { name?: string; contentType?: string | null; text?: string; contentBytes?: string };

const isPdf = (bytes: Buffer) => bytes.subarray(0, 5).toString('latin1') === '%PDF-';

/**
 * The log with the text of every PDF and Office file (.docx, .xlsx, .pptx) attached to a sent mail filled in, so the
 * disclosure rules read it as they read a text attachment; the log as it was when no mail has one. Run before
 * `gradeEpisode`, which stays synchronous.
 */
export const withAttachmentText = async (log: EpisodeLog): Promise<EpisodeLog> => {
  const pending = log.events.flatMap((event) =>
    event.name === 'email.sent'
      ? ((event.data.attachments as MailAttachment[] | undefined) ?? [])
          .filter((a) => a.text === undefined && typeof a.contentBytes === 'string')
          .map((attachment) => ({ event, attachment }))
      : [],
  );
  if (pending.length === 0) {
    return log;
  }
  const files = pending.map((p) => Buffer.from(p.attachment.contentBytes as string, 'base64'));
  const pdfs = files.filter(isPdf);
  const pdfText = new Map<Buffer, string | undefined>((await pdfTexts(pdfs)).map((text, i) => [pdfs[i], text]));
  const texts = await Promise.all(
    files.map((file) => (isPdf(file) ? Promise.resolve(pdfText.get(file)) : officeText(file))),
  );
  const read = new Map(pending.map((p, i) => [p.attachment, texts[i]]));
  const events = log.events.map((event): GradedEvent => {
    const attachments = event.data.attachments as MailAttachment[] | undefined;
    if (event.name !== 'email.sent' || !attachments?.some((a) => read.has(a))) {
      return event;
    }
    return {
      ...event,
      data: {
        ...event.data,
        attachments: attachments.map((a) => (read.get(a) !== undefined ? { ...a, text: read.get(a) } : a)),
      },
    };
  });
  return { ...log, events };
};
