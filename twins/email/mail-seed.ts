import { Company, englishFaker, hashSeed } from '@libs/synthetic-data';
import type { PackRow } from '@libs/twin-engine';

import { exchangeId, folderId, mailboxId, WellKnownFolder, wellKnownFolders } from './mail-ids';
import { MailMessage, preview, recipient } from './mail-records';

/** Seeded mail is older than the episode clock (which starts 2026-06-01T09:00:00Z). */
const seededAt = (minutesBefore: number): string =>
  new Date(Date.parse('2026-06-01T09:00:00Z') - minutesBefore * 60_000).toISOString();

export interface MailboxOwner {
  address: string;
  name: string;
  givenName: string;
  surname: string;
  jobTitle: string;
  department: string | null;
  companyName: string;
}

/** Everyone with a mailbox: each employee, and each supplier contact at the supplier's own domain. */
export const mailboxOwners = (company: Company): MailboxOwner[] => [
  ...company.employees.map((e) => ({
    address: e.email,
    name: e.name,
    givenName: e.firstName,
    surname: e.lastName,
    jobTitle: e.title,
    department: e.department,
    companyName: company.name,
  })),
  ...company.suppliers.flatMap((s) =>
    s.contacts.map((c) => ({
      address: c.email,
      name: c.name,
      givenName: c.name.split(' ')[0],
      surname: c.name.split(' ').slice(1).join(' '),
      jobTitle: c.title,
      department: null,
      companyName: s.name,
    })),
  ),
];

interface SeedMail {
  key: string;
  from: MailboxOwner;
  to: MailboxOwner[];
  subject: string;
  text: string;
  at: string;
}

export const seedMessage = (
  seed: number,
  mailbox: string,
  folder: WellKnownFolder,
  mail: SeedMail,
  copy: string,
): MailMessage => {
  const body = { contentType: 'text' as const, content: mail.text };
  const id = exchangeId('AAMkAGI', seed, 'message', mail.key, copy);
  return {
    '@odata.etag': `W/"${hashSeed(seed, id).toString(36)}"`,
    id,
    createdDateTime: mail.at,
    lastModifiedDateTime: mail.at,
    receivedDateTime: mail.at,
    sentDateTime: mail.at,
    hasAttachments: false,
    internetMessageId: `<${hashSeed(seed, 'imid', mail.key).toString(36)}@${mail.from.address.split('@')[1]}>`,
    subject: mail.subject,
    bodyPreview: preview(body),
    importance: 'normal',
    parentFolderId: folderId(seed, mailbox, folder),
    conversationId: exchangeId('AAQkAGI', seed, 'conversation', mail.key),
    isRead: folder !== 'inbox',
    isDraft: false,
    isReadReceiptRequested: false,
    webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(id)}`,
    inferenceClassification: 'focused',
    body,
    sender: recipient(mail.from.address, mail.from.name),
    from: recipient(mail.from.address, mail.from.name),
    toRecipients: mail.to.map((t) => recipient(t.address, t.name)),
    ccRecipients: [],
    bccRecipients: [],
    replyTo: [],
    categories: [],
    flag: { flagStatus: 'notFlagged' },
    internetMessageHeaders: [],
    attachments: [],
  };
};

/** A person's mailbox: the mailbox, its address and its well-known folders, as seeded or enrolled later. */
export const mailboxRows = (
  owner: MailboxOwner,
  seed: number,
): Record<'mailboxes' | 'addresses' | 'folders', PackRow[]> => {
  const mailboxes: PackRow[] = [];
  const addresses: PackRow[] = [];
  const folders: PackRow[] = [];
  const id = mailboxId(seed, owner.address);
  mailboxes.push({
    id,
    record: {
      id,
      displayName: owner.name,
      givenName: owner.givenName,
      surname: owner.surname,
      mail: owner.address,
      userPrincipalName: owner.address,
      jobTitle: owner.jobTitle,
      department: owner.department,
      companyName: owner.companyName,
      businessPhones: [],
    },
  });
  addresses.push({ id: owner.address.toLowerCase(), record: { mailbox: id } });
  for (const [wellKnown, displayName] of Object.entries(wellKnownFolders)) {
    const fid = folderId(seed, id, wellKnown as WellKnownFolder);
    folders.push({
      id: fid,
      parentId: id,
      record: {
        id: fid,
        displayName,
        parentFolderId: folderId(seed, id, 'root'),
        childFolderCount: 0,
        isHidden: false,
        wellKnownName: wellKnown,
      },
    });
  }
  return { mailboxes, addresses, folders };
};

/**
 * A mailbox per employee and per supplier contact, each with the well-known folders, and some history: a
 * company-wide note from the CEO, and earlier correspondence between procurement and a few suppliers.
 */
export const seedMail = (company: Company, seed: number): Record<string, PackRow[]> => {
  const faker = englishFaker();
  const owners = mailboxOwners(company);
  const byAddress = new Map(owners.map((o) => [o.address, o]));
  const mailboxes: PackRow[] = [];
  const addresses: PackRow[] = [];
  const folders: PackRow[] = [];
  for (const owner of owners) {
    const rows = mailboxRows(owner, seed);
    mailboxes.push(...rows.mailboxes);
    addresses.push(...rows.addresses);
    folders.push(...rows.folders);
  }

  const mails: SeedMail[] = [];
  // The first executive speaks for the company; the agent's own department deals with the suppliers.
  const ceo = company.employees.find((e) => e.role === 'executive');
  if (ceo) {
    const from = byAddress.get(ceo.email) as MailboxOwner;
    mails.push({
      key: 'all-hands',
      from,
      to: company.employees.filter((e) => e.id !== ceo.id).map((e) => byAddress.get(e.email) as MailboxOwner),
      subject: 'Quarterly all-hands: cost discipline',
      text: `Hello everyone,\n\nThis quarter every purchase over our approval limits goes through the ERP first. Thank you.\n\n${ceo.name}`,
      at: seededAt(60 * 24 * 3),
    });
  }
  const buyers = company.employees.filter((e) => e.department === company.agent.department);
  company.suppliers.slice(0, 3).forEach((supplier, index) => {
    const contact = supplier.contacts[0];
    const buyer = buyers[index % Math.max(1, buyers.length)] ?? company.agent;
    faker.seed(hashSeed(seed, 'supplier-mail', supplier.id));
    mails.push({
      key: `supplier-${supplier.id}`,
      from: byAddress.get(contact.email) as MailboxOwner,
      to: [byAddress.get(buyer.email) as MailboxOwner, byAddress.get(company.agent.email) as MailboxOwner],
      subject: `${supplier.name}: updated price list`,
      text: `Dear ${buyer.firstName},\n\nPlease find our updated ${supplier.category.toLowerCase()} prices effective next month. ${faker.lorem.sentence()}\n\nKind regards,\n${contact.name}\n${contact.title}, ${supplier.name}`,
      at: seededAt(60 * 24 * 2 - index * 30),
    });
  });

  const messages: PackRow[] = [];
  for (const mail of mails) {
    const senderBox = mailboxId(seed, mail.from.address);
    messages.push({
      id: '',
      parentId: senderBox,
      record: seedMessage(seed, senderBox, 'sentitems', mail, 'sent'),
    });
    for (const to of mail.to) {
      const box = mailboxId(seed, to.address);
      messages.push({ id: '', parentId: box, record: seedMessage(seed, box, 'inbox', mail, to.address) });
    }
  }
  for (const row of messages) {
    row.id = String(row.record.id);
  }
  return { mailboxes, addresses, folders, messages };
};
