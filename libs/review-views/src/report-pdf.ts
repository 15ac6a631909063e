import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { chromium } from 'playwright-core';

/** Debian's Chromium; playwright-core downloads no browser of its own. */
export const defaultChromium = '/usr/bin/chromium';

/**
 * Headless and quiet: no GPU, no sandbox (containers run it as root), and nothing that reaches the network on its own
 * (updates, sync, QUIC probes), so printing a report sends no request anywhere.
 */
export const chromiumArguments = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A Chromium with a fresh profile, closed (and its profile removed) when `work` ends. */
export const withChromium = async <T>(
  work: (context: Awaited<ReturnType<typeof chromium.launchPersistentContext>>) => Promise<T>,
  executablePath = defaultChromium,
): Promise<T> => {
  if (!fs.existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: install Debian's chromium package, or name one`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: chromiumArguments,
  });
  try {
    return await work(context);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
};

/**
 * The report's HTML printed to PDF by Chromium: the same file a reviewer opens, so the PDF shows exactly what the HTML
 * does. Requests are refused outright: the report is self-contained, and a stray one must not leave the machine.
 */
export const renderReportPdf = (html: string, executablePath?: string): Promise<Buffer> =>
  withChromium(async (context) => {
    await context.route('**/*', (route) => route.abort());
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    return page.pdf({
      format: 'A4',
      printBackground: true,
      margin: { top: '14mm', bottom: '14mm', left: '12mm', right: '12mm' },
    });
  }, executablePath);
