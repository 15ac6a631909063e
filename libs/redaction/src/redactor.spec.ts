import { AllowedValues } from './allowed-values';
import { Redactor } from './redactor';

// Planted values: real in shape (valid checksums, a scheme's prefix), made up here.
const card = '4539 1488 0343 6467';
const iban = 'DE89 3704 0044 0532 0130 00';
const phone = '+44 20 7946 0958';
const slackToken = ['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
const githubToken = `ghp_${'A1b2C3d4E5'.repeat(3)}z9Y8x7`;

describe(Redactor.name, () => {
  const sut = new Redactor();

  it.each([
    ['secret', `the bot token is ${slackToken}, use it`],
    ['secret', `export GH=${githubToken}`],
    ['secret', 'db: postgres://admin:S3cr3tPassw0rd@db.internal:5432/app'],
    ['credential', 'password=hunter2hunter2'],
    ['credential', '{"api_key": "k3y-9f8e7d6c5b4a"}'],
    ['credential', 'Authorization: Bearer abcdefghijklmnop1234'],
    // An assignment inside another's value: `config: password=…` must not hide the password behind `config:`.
    ['credential', 'config: password=hunter2hunter2'],
    ['credential', 'Please file this with our order: api_key=k3y-9f8e7d6c5b4a'],
    ['email', 'write to anna.berg@gmail.com today'],
    ['email', 'From: Anna Berg <anna.berg@gmail.com>'],
    ['phone', `call ${phone} after lunch`],
    ['card', `card ${card} exp 12/29`],
    ['card', 'card 4539148803436467'],
    ['iban', `pay to ${iban} please`],
    ['iban', 'pay to GB82WEST12345698765432'],
  ])('finds a %s in %j and leaves only its marker', (kind, text) => {
    const { value, redactions } = sut.text(text, '/message');

    expect(value).toContain(kind === 'email' ? 'redacted-email@gmail.com' : `[redacted:${kind}]`);
    expect(value).not.toMatch(/hunter2|k3y-9f8e|4539|DE89|GB82|anna|7946|xoxb|ghp_|S3cr3t|abcdefghij/);
    expect(redactions).toEqual([expect.objectContaining({ kind, place: '/message' })]);
    expect(JSON.stringify(redactions)).not.toMatch(
      /hunter2|k3y-9f8e|4539|DE89|GB82|anna|7946|xoxb|ghp_|S3cr3t|abcdefghij/,
    );
  });

  it.each([
    'Order PO-2026-0042 for 120 units at 1,234.56 EUR, delivery 2026-06-10T09:00:00Z',
    'ts 1733112345.000100 in C0123ABCD by U024BE7LH',
    'id 4f6c1c9e-1b2a-4a43-9c1e-2a6f1d3e9b11, sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    // Its digits 6172239-6923-47 are a Luhn-valid run of 13: inside a hex word, not a card.
    'vpc_uuid f6172239-6923-47fe-9cea-75c61e1051f8',
    // A digest that starts with a run of 20 digits, whose first 19 are a Luhn-valid card number.
    'digest 41111111111111111103deee0b2bd7fbb34e526bda6f1a3c315a92bdb324589a42',
    'write to buyer@acme-manufacturing.example or ops@example.com',
    '<k3j2h1.42@nordic-fasteners.se>',
    'totals 4539 1488 and 0343 6467 (two amounts, not one card); invoice 1234567890123',
    'the token_type is bearer; next_page_token=dGVzdDEyMw; password: <your password>',
    'api_key: ${API_KEY} and secret: xxxxxxxx and token: changeme',
    'IBAN-like code DE00 0000 0000 0000 0000 00 fails its check',
    'call (212) 555-0123 at 10:30',
    // Prose about credentials in a spec's descriptions: the word after Bearer or Basic is no credential.
    'Configure Username and/or Password for Basic authentication.',
    '### Authenticate with a Bearer Authorization Header',
  ])('leaves %j alone', (text) => {
    expect(sut.text(text)).toEqual({ value: text, redactions: [] });
  });

  it('keeps the world’s own values, compared the way they are written anywhere', () => {
    const world = AllowedValues.of({
      people: new Map([['p1', { email: 'Anna.Berg@gmail.com', phone: '+44 20 7946 0958', iban }]]),
    });
    const text = `anna.berg@gmail.com, +442079460958, ${iban.replace(/ /g, '')} and mine: other@gmail.com`;

    const { value } = new Redactor(world).text(text);

    expect(value).toBe(
      `anna.berg@gmail.com, +442079460958, ${iban.replace(/ /g, '')} and mine: redacted-email@gmail.com`,
    );
  });

  it('redacts JSON strings and credential-named fields in place, recording each by its pointer', () => {
    const event = {
      type: 'record.created',
      record: {
        text: `card ${card}`,
        password: 'hunter2hunter2',
        token_type: 'bearer',
        next_token: 'abc123def456',
        n: 4,
      },
      list: ['fine', 'mail me at x.y@gmail.com'],
    };

    const { value, redactions } = sut.json(event, '/event');

    expect(value).toEqual({
      type: 'record.created',
      record: {
        text: 'card [redacted:card]',
        password: '[redacted:credential]',
        token_type: 'bearer',
        next_token: 'abc123def456',
        n: 4,
      },
      list: ['fine', 'mail me at redacted-email@gmail.com'],
    });
    expect(redactions).toEqual([
      { kind: 'card', place: '/event/record/text', detector: 'card-luhn' },
      { kind: 'credential', place: '/event/record/password', detector: 'credential-name' },
      { kind: 'email', place: '/event/list/1', detector: 'email-address' },
    ]);
    expect(event.record.password).toBe('hunter2hunter2');
  });

  it('gives back the same object when nothing is found, and redacting twice changes nothing more', () => {
    const clean = { a: ['b', { c: 'd' }] };
    expect(sut.json(clean).value).toBe(clean);

    const once = sut.json({ note: `token ${slackToken} card ${card}` }).value;
    expect(sut.json(once)).toEqual({ value: once, redactions: [] });
  });
});
