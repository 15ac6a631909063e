import { Company, Employee, englishFaker, hashSeed } from '@libs/synthetic-data';
import type { PackRow } from '@libs/twin-engine';

import { slackId, slackTs, teamId } from './slack-ids';

/** The workspace's history ends a day before the episode clock starts (2026-06-01T09:00:00Z). */
const historyStart = Date.parse('2026-05-31T08:00:00Z');

export const slackUserId = (seed: number, employee: Employee): string => slackId('U', seed, employee.id);

/**
 * The workspace: a user and a token per employee, the company's channels with their members, and a little history
 * (with a thread) so that reads are not empty.
 */
export const seedSlack = (company: Company, seed: number): Record<string, PackRow[]> => {
  const faker = englishFaker();
  const team = teamId(seed);
  const users: PackRow[] = company.employees.map((employee) => {
    const id = slackUserId(seed, employee);
    return {
      id,
      record: {
        id,
        team_id: team,
        name: employee.handle,
        real_name: employee.name,
        deleted: false,
        is_admin: employee.role === 'executive',
        is_owner: false,
        is_bot: false,
        is_app_user: false,
        updated: Math.floor(historyStart / 1000) - 86_400,
        tz: 'Europe/Berlin',
        tz_label: 'Central European Summer Time',
        tz_offset: 7200,
        profile: {
          real_name: employee.name,
          real_name_normalized: employee.name,
          display_name: employee.handle,
          display_name_normalized: employee.handle,
          first_name: employee.firstName,
          last_name: employee.lastName,
          email: employee.email,
          title: employee.title,
          phone: '',
          skype: '',
          avatar_hash: hashSeed(seed, 'avatar', employee.id).toString(16),
          status_text: '',
          status_emoji: '',
          fields: null,
          team,
        },
      },
    };
  });
  // Who an employee is in Slack, for the user tokens (which the episode issues; the world holds none).
  const principals: PackRow[] = company.employees.map((employee) => ({
    id: employee.id,
    record: { user: slackUserId(seed, employee), employee: employee.id },
  }));

  const conversations: PackRow[] = [];
  const members: PackRow[] = [];
  const messages: PackRow[] = [];
  const creator = slackUserId(seed, company.employees[0]);
  const byId = new Map(company.employees.map((e) => [e.id, e]));
  company.channels.forEach((channel, index) => {
    const plan = { ...channel, members: channel.memberIds.map((id) => byId.get(id) as Employee) };
    const id = slackId(plan.isPrivate ? 'G' : 'C', seed, 'channel', plan.name);
    const created = Math.floor(historyStart / 1000) - 86_400 * (400 - index);
    conversations.push({
      id,
      record: {
        id,
        name: plan.name,
        name_normalized: plan.name,
        created,
        creator,
        is_archived: false,
        is_channel: !plan.isPrivate,
        is_group: plan.isPrivate,
        is_general: plan.name === 'general',
        is_mpim: false,
        is_im: false,
        is_org_shared: false,
        is_shared: false,
        is_private: plan.isPrivate,
        topic: { value: '', creator: '', last_set: 0 },
        purpose: { value: plan.purpose, creator, last_set: created },
      },
    });
    for (const member of plan.members) {
      const user = slackUserId(seed, member);
      members.push({ id: `${id}/${user}`, parentId: id, record: { channel: id, user } });
    }
    // A few messages per channel, the first with a short thread.
    const speakers = plan.members.filter((m) => m.role !== 'agent');
    for (let n = 0; n < 4 && speakers.length > 0; n++) {
      faker.seed(hashSeed(seed, 'message', plan.name, n));
      const at = new Date(historyStart + (index * 4 + n) * 60_000).toISOString();
      const ts = slackTs(at, index * 10 + n);
      const user = slackUserId(seed, faker.helpers.arrayElement(speakers));
      const text = faker.lorem.sentence({ min: 4, max: 14 });
      const replies =
        n === 0
          ? [1, 2].map((r) => ({
              ts: slackTs(new Date(Date.parse(at) + r * 1000).toISOString(), 900_000 + index * 10 + r),
              user: slackUserId(seed, faker.helpers.arrayElement(speakers)),
              text: faker.lorem.sentence({ min: 3, max: 10 }),
            }))
          : [];
      messages.push({
        id: `${id}/${ts}`,
        parentId: id,
        record: {
          type: 'message',
          user,
          text,
          ts,
          team,
          ...(replies.length > 0
            ? {
                thread_ts: ts,
                reply_count: replies.length,
                reply_users: [...new Set(replies.map((r) => r.user))],
                reply_users_count: new Set(replies.map((r) => r.user)).size,
                latest_reply: replies[replies.length - 1].ts,
              }
            : {}),
        },
      });
      for (const reply of replies) {
        messages.push({
          id: `${id}/${reply.ts}`,
          parentId: id,
          record: { type: 'message', user: reply.user, text: reply.text, ts: reply.ts, thread_ts: ts, team },
        });
      }
    }
  });
  return { users, principals, conversations, members, messages, files: [] };
};
