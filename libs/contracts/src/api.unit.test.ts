import { ApplicationListQuery, InitiateRequest } from './api';
import { zonedDayRange } from './zonedDays';
import { InitiateTerms } from './commands';

const ask = {
  firstName: 'Ada',
  lastName: 'Obi',
  email: 'ada@example.com',
  amount: 100_000,
  tenor: 6,
  interestRate: 5,
  idempotencyKey: 'k-1',
};

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

describe('days in the lender’s time zone as a range of instants', () => {
  it('when a day range is given, then it runs from the start of the first day in Lagos (UTC+1, the default) to the start of the day after the last', () => {
    expect(zonedDayRange('2026-11-27', '2026-11-27', 'Africa/Lagos')).toEqual({
      createdFrom: '2026-11-26T23:00:00.000Z',
      createdBefore: '2026-11-27T23:00:00.000Z',
    });
    expect(zonedDayRange(undefined, '2026-12-31', 'Africa/Lagos')).toEqual({
      createdBefore: '2026-12-31T23:00:00.000Z',
    });
    expect(zonedDayRange(undefined, undefined, 'Africa/Lagos')).toEqual({});
  });

  it('when the list is asked for by decision and days, then the query is read as lists and days, and a day that is not one is refused', () => {
    expect(
      ApplicationListQuery.parse({ decision: 'APPROVED,DECLINED', from: '2026-11-01', to: '2026-11-30' }),
    ).toMatchObject({
      decision: ['APPROVED', 'DECLINED'],
      from: '2026-11-01',
      to: '2026-11-30',
    });
    expect(ApplicationListQuery.safeParse({ from: '2026-02-30' }).success).toBe(false);
    expect(ApplicationListQuery.safeParse({ decision: ['APPROVED', 'MAYBE'] }).success).toBe(false);
  });
});
