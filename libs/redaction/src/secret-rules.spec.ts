import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';

import { findSecrets, lintSecrets } from './secret-rules';

/** Letters and digits from a fixed seed: planted values real in shape, made up here, the same on every run. */
const madeUp = (() => {
  let state = 0x2545f491;
  return (length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string => {
    let out = '';
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      out += alphabet[(state >>> 8) % alphabet.length];
    }
    return out;
  };
})();
/** A service-account token's shape: base64 of a JSON object (an `{"` start and a `}` end decide its ends). */
const opsToken = (): string => {
  let json = `{"email":"${madeUp(13).toLowerCase()}@serviceaccounts.example","secretKey":"${madeUp(40)}"}`;
  while (json.length % 3 !== 1) {
    json = json.replace('"}', ' "}');
  }
  return `ops_${Buffer.from(json).toString('base64')}`;
};
const hex = '0123456789abcdef';

/** One value of the shape each recommended rule looks for, keyed by the rule that must find it. */
const planted: Record<string, string> = {
  aws: `AWS_SECRET_ACCESS_KEY="${madeUp(40)}"`,
  npm: `npm_${madeUp(36)}`,
  slack: `xoxb-${madeUp(12, '0123456789')}-${madeUp(13, '0123456789')}-${madeUp(24)}`,
  basicauth: `https://ops:${madeUp(12)}@files.example.net/x`,
  openai: `sk-${madeUp(20)}T3BlbkFJ${madeUp(20)}`,
  anthropic: `sk-ant-api03-${madeUp(93)}AA`,
  groq: `gsk_${madeUp(52)}`,
  huggingface: `hf_${madeUp(34, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')}`,
  linear: `lin_api_${madeUp(40)}`,
  notion: `ntn_${madeUp(11, '0123456789')}${madeUp(35)}`,
  privatekey: `-----BEGIN RSA PRIVATE KEY-----\nMII${madeUp(61)}\n${madeUp(64)}\n-----END RSA PRIVATE KEY-----`,
  sendgrid: `SG.${madeUp(22)}.${madeUp(43)}`,
  shopify: `shpat_${madeUp(32, hex)}`,
  stripe: `sk_live_${madeUp(24)}`,
  github: `ghp_${madeUp(36)}`,
  gitlab: `glpat-${madeUp(20)}`,
  grafana: `glsa_${madeUp(32)}_${madeUp(8, hex)}`,
  '1password': opsToken(),
  'database-connection-string': `postgres://admin:${madeUp(12)}@db.internal:5432/app`,
  'hashicorp-vault': `hvs.${madeUp(95)}`,
  vercel: `vcp_${madeUp(24)}`,
  databricks: `dapi${madeUp(32, hex)}`,
  docker: `dckr_pat_${madeUp(27)}`,
  figma: `figd_${madeUp(40)}`,
  cloudflare: `cfut_${madeUp(40)}${madeUp(8, hex)}`,
  tailscale: `tskey-auth-${madeUp(12)}-${madeUp(24)}`,
};

/** Every string of a real vendor's description (examples, descriptions, token-like placeholders). */
const vendorStrings = (): string[] => {
  const strings: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      strings.push(node);
    } else if (node && typeof node === 'object') {
      Object.values(node).forEach(walk);
    }
  };
  walk(JSON.parse(readFileSync(join(__dirname, '../../../twins/slack/spec/slack-web-api.json'), 'utf8')));
  return strings;
};

const sorted = (findings: { start: number; end: number; detector?: string }[]) =>
  [...findings].sort(
    (a, b) => a.start - b.start || a.end - b.end || String(a.detector).localeCompare(String(b.detector)),
  );

describe(findSecrets.name, () => {
  it('has a planted secret for every rule of the preset that reads a text', () => {
    // gcp reads files only (a .p12's bytes, a .json file's whole content); filter-comments withdraws, never finds.
    const notForText = ['gcp', 'filter-comments'];
    const ruleNames = recommendedRules.map((rule) => rule.meta.id.replace('@secretlint/secretlint-rule-', ''));

    expect(ruleNames.filter((name) => !notForText.includes(name)).sort()).toEqual(Object.keys(planted).sort());
  });

  it.each(Object.entries(planted))(
    'finds the %s rule’s secret where secretlint’s own lint does',
    async (rule, value) => {
      const text = `before ${value} after`;

      const found = findSecrets(text);

      expect(found).toEqual(expect.arrayContaining([expect.objectContaining({ detector: `secretlint:${rule}` })]));
      expect(sorted(found)).toEqual(sorted(await lintSecrets(text)));
    },
  );

  it('finds exactly what secretlint’s own lint resolves with, on a vendor’s strings and planted mixtures', async () => {
    const values = Object.values(planted);
    const texts = [
      ...vendorStrings(),
      values.join('\n'),
      values.join(' '),
      JSON.stringify(planted),
      `line one\r\nline two ${planted.slack}\u2028${planted.stripe}`,
    ];

    let findings = 0;
    for (const text of texts) {
      const found = findSecrets(text);
      expect({ text, found: sorted(found) }).toEqual({ text, found: sorted(await lintSecrets(text)) });
      findings += found.length;
    }
    expect(findings).toBeGreaterThan(2 * values.length);
  });

  it('places what it finds after a byte-order mark in the text as given (the core counts from after the mark)', async () => {
    const text = `${planted.github} at the start`;

    const found = findSecrets(`\uFEFF${text}`);

    expect(sorted(await lintSecrets(`\uFEFF${text}`))).toEqual(sorted(findSecrets(text)));
    expect(found).toEqual([expect.objectContaining({ start: 1, end: 1 + planted.github.length })]);
  });

  it('does not let a secretlint-disable comment in the text hide a secret (agents write the text)', async () => {
    const text = `// secretlint-disable\n${planted.github}\n// secretlint-enable`;

    expect(await lintSecrets(text)).toEqual([]);
    expect(findSecrets(text)).toEqual([expect.objectContaining({ detector: 'secretlint:github' })]);
  });

  it('keeps nothing from one call to the next (a process redacts every twin write for as long as it runs)', async () => {
    for (let i = 0; i < 200; i++) {
      expect(findSecrets(`call ${i}: ${planted.slack}`)).toHaveLength(1);
      expect(findSecrets(`call ${i}: nothing`)).toEqual([]);
    }
    await lintSecrets(planted.slack);
    await new Promise((resolve) => setImmediate(resolve));

    expect(performance.getEntriesByType('mark').filter((mark) => /::(start|end)/.test(mark.name))).toEqual([]);
    expect(await secretLintProfiler.getEntries()).toEqual([]);
  });
});
