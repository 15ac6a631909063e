// A few calls an agent would make against the served twin, printed as a transcript.
'use strict';
const fs = require('node:fs');

const { services, episodeId } = JSON.parse(fs.readFileSync(process.argv[2], 'utf8').split('\n')[0]);
const base = services[0].baseUrl;
// The spec declares bearer auth: the agent presents the token `mirror serve` printed for it.
const auth = services[0].agentToken ? { authorization: `Bearer ${services[0].agentToken}` } : {};

const call = async (method, path, body) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  console.log(`${method} ${path} → ${response.status}`);
  console.log(`  ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`);
  return text ? JSON.parse(text) : undefined;
};

(async () => {
  console.log(`\nTwin of ${services[0].name} at ${base} (episode ${episodeId})\n`);
  await call('GET', '/suppliers?limit=2');
  const supplier = await call('POST', '/suppliers', { name: 'Bolt & Nut GmbH', country: 'DE', payment_terms_days: 45 });
  await call('GET', `/suppliers/${supplier.id}`);
  await call('POST', `/suppliers/${supplier.id}/contacts`, { name: 'Ada Weber', email: 'ada@boltnut.example' });
  await call('POST', '/suppliers', { name: 'No Country Ltd' });
  await call('GET', '/suppliers/not-a-uuid');
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
