import { InitiateRequest } from './api';
import { InitiateTerms } from './commands';

const ask = { firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com', amount: 100_000, tenor: 6, interestRate: 5, idempotencyKey: 'k-1' };

describe('an applicant name at initiate', () => {
  it.each([' a', '\u009e ', 'a\u00a0', '\ufeffa', 'O'.repeat(99) + '  '])(
    'when the name %j has fewer than two characters once trimmed or is longer than 100 as sent, then it is refused as the documents say',
    (lastName) => {
      const parsed = InitiateRequest.safeParse({ ...ask, lastName });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('lastName must be between 2 and 100 characters');
    },
  );

  it('when a name has surrounding spaces, then it is accepted trimmed', () => {
    expect(InitiateRequest.parse({ ...ask, lastName: '  Obi ' }).lastName).toBe('Obi');
  });

  it('when a command written before the pattern carries a name, then it is still read', () => {
    // The command topic's schema is unchanged: the registry holds it to backward compatibility.
    expect(InitiateTerms.parse({ ...ask, lastName: ' Ob ' }).lastName).toBe('Ob');
  });
});
