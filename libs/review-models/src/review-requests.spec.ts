import { ReviewError } from './review-input.error';
import { parseAnnotationRequest, parseReportQuery, parseSignOffRequest } from './review-requests';

const message = (parse: () => unknown) => {
  try {
    parse();
  } catch (error) {
    return error instanceof ReviewError ? `${error.code} ${error.field ?? '-'}: ${error.message}` : String(error);
  }
  throw new Error('accepted');
};

describe(parseAnnotationRequest.name, () => {
  it('takes a rule, a stance and a comment, trimmed', () => {
    expect(parseAnnotationRequest({ rule: ' least-role ', stance: 'dispute', comment: ' read only \n' })).toEqual({
      rule: 'least-role',
      stance: 'dispute',
      comment: 'read only',
    });
  });

  it.each([
    [undefined, /JSON object/],
    ['text', /JSON object/],
    [[], /JSON object/],
    [{ rule: 'r', stance: 'agree', comment: 'c', by: 'me' }, /by: unknown field/],
    [{ stance: 'agree', comment: 'c' }, /rule: name the verdict's rule/],
    [{ rule: 'r', stance: 'yes', comment: 'c' }, /stance: must be agree or dispute/],
    [{ rule: 'r', stance: 'agree' }, /comment: say why/],
    [{ rule: 'r', stance: 'agree', comment: 5 }, /comment: must be text/],
    [{ rule: 'r', stance: 'agree', comment: ' ' }, /comment: say why/],
    [{ rule: 'r', stance: 'agree', comment: 'x'.repeat(4001) }, /at most 4000 characters \(got 4001\)/],
    // Under the limit as typed, over it once each address is stored as its marker: refused before anything is saved.
    [
      { rule: 'r', stance: 'agree', comment: 'a@b.co '.repeat(560).trim() },
      /at most 4000 characters as stored, with the addresses, numbers and secrets it quotes redacted \(got \d+\)/,
    ],
  ])('refuses %j', (body, expected) => {
    expect(message(() => parseAnnotationRequest(body))).toMatch(/^INVALID_INPUT/);
    expect(message(() => parseAnnotationRequest(body))).toMatch(expected);
  });
});

describe(parseSignOffRequest.name, () => {
  it('needs a comment only to reject', () => {
    expect(parseSignOffRequest({ decision: 'approved' })).toEqual({ decision: 'approved', comment: '', expected: {} });
    expect(message(() => parseSignOffRequest({ decision: 'rejected' }))).toMatch(/comment: say why/);
    expect(parseSignOffRequest({ decision: 'rejected', comment: 'pass^2 is 0' })).toEqual({
      decision: 'rejected',
      comment: 'pass^2 is 0',
      expected: {},
    });
    expect(message(() => parseSignOffRequest({ decision: 'fine' }))).toMatch(/decision: must be approved or rejected/);
  });

  it("reads what the reviewer was shown of the rollout's close, and refuses what is not a SHA-256", () => {
    const closedEntryHash = 'a'.repeat(64);
    const merkleRoot = 'b'.repeat(64);
    expect(parseSignOffRequest({ decision: 'approved', closedEntryHash, merkleRoot }).expected).toEqual({
      entryHash: closedEntryHash,
      merkleRoot,
    });
    // A form whose page showed no close sends empty fields: nothing is expected.
    expect(parseSignOffRequest({ decision: 'approved', closedEntryHash: '', merkleRoot: '' }).expected).toEqual({});
    expect(message(() => parseSignOffRequest({ decision: 'approved', merkleRoot: 'A'.repeat(64) }))).toMatch(
      /merkleRoot: must be a SHA-256 in lowercase hex/,
    );
    expect(message(() => parseSignOffRequest({ decision: 'approved', closedEntryHash: 7 }))).toMatch(
      /closedEntryHash: must be a SHA-256/,
    );
  });
});

describe(parseReportQuery.name, () => {
  it('reads html (the default) or pdf', () => {
    expect(parseReportQuery({})).toBe('html');
    expect(parseReportQuery({ format: 'pdf' })).toBe('pdf');
  });

  it.each([
    [{ format: 'docx' }, /INVALID_INPUT format: format: must be html or pdf, not "docx"/],
    [{ format: ['html', 'pdf'] }, /format: give it once/],
    [{ format: '' }, /must be html or pdf, not ""/],
    [{ format: 'pdf', download: '1' }, /download: unknown parameter/],
  ])('refuses %j naming the parameter', (query, expected) => {
    expect(message(() => parseReportQuery(query))).toMatch(expected);
  });
});
