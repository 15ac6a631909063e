import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where an LLM voice is, and where its answers are kept. */
export interface VoiceSettings {
  url: string;
  model: string;
  apiKey?: string;
  cacheDir: string;
}

export class VoiceError extends Error {}

/**
 * Rephrases a persona's deterministic reply in a natural voice through an OpenAI-compatible endpoint. The decision
 * (accept, counter at a price, walk away) is never the model's: it gets the reply and must keep every figure. Answers
 * are cached by (seed, persona, reply), so episodes of one seed — a GRPO group — read the same words, and a replay
 * never calls the model again. A reply whose figures the model dropped falls back to the template.
 */
export const voiced = async (
  settings: VoiceSettings,
  seed: number,
  persona: string,
  template: string,
): Promise<string> => {
  const key = createHash('sha256')
    .update(JSON.stringify([settings.model, seed, persona, template]))
    .digest('hex');
  const file = path.join(settings.cacheDir, `${key}.json`);
  if (fs.existsSync(file)) {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { text: string }).text;
  }
  const response = await fetch(`${settings.url.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: settings.model,
      temperature: 0,
      seed,
      messages: [
        {
          role: 'system',
          content: `You write emails as ${persona}. Rewrite the user's email in your own words, same meaning, same figures (prices, quantities, days), same signature. Answer with the email only.`,
        },
        { role: 'user', content: template },
      ],
    }),
  });
  if (!response.ok) {
    throw new VoiceError(`the persona voice at ${settings.url} answered ${response.status}`);
  }
  const answer = (await response.json()) as { choices?: { message?: { content?: string } }[] };
  const text = answer.choices?.[0]?.message?.content?.trim();
  const figures = template.match(/\d+(?:[.,]\d+)*/g) ?? [];
  const kept = text !== undefined && text.length > 0 && figures.every((figure) => text.includes(figure));
  const chosen = kept ? text : template;
  fs.mkdirSync(settings.cacheDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ persona, seed, template, text: chosen }));
  return chosen;
};
