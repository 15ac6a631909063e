import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { Request } from 'autocannon';

import { canPin, format, runs, seconds, start, stop, throughput } from './load-harness';

/**
 * The twin packs under a realistic mix over HTTP: Slack's post-then-read (`chat.postMessage` +
 * `conversations.history`) and mail's send-then-list (`sendMail` + the inbox), every write durable in the episode
 * log before it is answered, next to the bare `node:http` ceiling measured in the same run.
 */
export const runPackBenchmarks = async (): Promise<void> => {
  console.log(
    `\nTwin pack benchmark — ${runs} runs of ${seconds} s per figure, 10 connections, each cycling a write and a read${canPin ? '; server on core 0, load on core 1' : ''}`,
  );
  if (canPin) {
    spawnSync('taskset', ['-cp', '1', String(process.pid)]);
  }
  const widths = [64, 26, 8];
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(['server', 'requests/s median (min–max)', 'non-2xx']));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  const measure = async (label: string, url: string, requests?: Request[]): Promise<number> => {
    const rate = await throughput(url, false, requests);
    console.log(line([label, `${format(rate.median)} (${format(rate.min)}–${format(rate.max)})`, String(rate.non2xx)]));
    return rate.median;
  };

  const bare = await start([process.execPath, path.join(__dirname, 'bare-server.js')], 10_000);
  const bareRate = await measure('bare node:http, fixed 100-byte JSON (ceiling)', `http://127.0.0.1:${bare.port}/`);
  await stop(bare);

  const packs = await start([process.execPath, path.join(__dirname, 'pack-server.js')], 120_000);
  const info = packs.info as {
    episode: string;
    slackToken: string;
    mailToken: string;
    agentEmail: string;
    channel: string;
  };
  const base = `http://127.0.0.1:${packs.port}`;
  const slack = `/e/${info.episode}/slack/api`;
  const slackHeaders = { authorization: `Bearer ${info.slackToken}` };
  const slackRate = await measure(
    'Slack twin: chat.postMessage + conversations.history (limit 20)',
    `${base}${slack}/auth.test`,
    [
      {
        method: 'POST',
        path: `${slack}/chat.postMessage`,
        headers: { ...slackHeaders, 'content-type': 'application/x-www-form-urlencoded' },
        body: `channel=${info.channel}&text=${encodeURIComponent('Quote for 5,000 M8 bolts attached')}`,
      },
      { method: 'GET', path: `${slack}/conversations.history?channel=${info.channel}&limit=20`, headers: slackHeaders },
    ],
  );
  const mail = `/e/${info.episode}/email/v1.0`;
  const mailHeaders = { authorization: `Bearer ${info.mailToken}` };
  const mailRate = await measure('email twin: sendMail + inbox ($top=10)', `${base}${mail}/me`, [
    {
      method: 'POST',
      path: `${mail}/me/sendMail`,
      headers: { ...mailHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: {
          subject: 'Order confirmation',
          body: { contentType: 'text', content: 'Please confirm the delivery date.' },
          toRecipients: [{ emailAddress: { address: info.agentEmail } }],
        },
      }),
    },
    { method: 'GET', path: `${mail}/me/mailFolders/inbox/messages?$top=10`, headers: mailHeaders },
  ]);
  await stop(packs);
  console.log(
    `\nSlack post+read ÷ bare ceiling: ${(slackRate / bareRate).toFixed(2)}; mail send+list ÷ bare ceiling: ${(mailRate / bareRate).toFixed(2)}`,
  );
};
