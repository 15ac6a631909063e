import { hashSeed } from '@libs/synthetic-data';

import { companyOf, PersonaContext, PersonaHands, tokensOf } from './persona-hands';

/** Office chatter in a channel, from someone in it: the noise an agent must not be distracted by. */
export const postBackgroundMessage = async (
  hands: PersonaHands,
  input: PersonaContext & { index: number },
): Promise<void> => {
  const noise = input.instance.parties[input.party];
  if (noise.persona !== 'background-traffic') {
    return;
  }
  const company = companyOf(input.instance);
  const people = company.employees.filter((e) => e.role !== 'agent');
  const person = people[hashSeed(input.instance.seed, input.party, input.index) % people.length];
  const lines = [
    'Reminder: the canteen closes early on Friday.',
    'Has anyone seen the forklift keys?',
    'Quarterly safety walk is next Tuesday at 10:00.',
    'Coffee machine on floor 2 is fixed.',
    'Please update your timesheets before Friday noon.',
    'Shipping dock B is closed for maintenance tomorrow.',
  ];
  const channel = noise.channels[input.index % noise.channels.length];
  const twin = hands.twin;
  const token = await tokensOf(hands.operator, input.services).slack(person.id);
  // A person posts only where they belong; joining a public channel first is what they would do.
  await twin.slack(token, 'conversations.join', { channel: `#${channel}` }).catch(() => undefined);
  await twin.slack(token, 'chat.postMessage', {
    channel: `#${channel}`,
    text: lines[hashSeed(input.instance.seed, input.index) % lines.length],
  });
};
