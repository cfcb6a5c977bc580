import { purposeMeta } from './mono';

describe('the meta that names the lender and the loan in the widget', () => {
  it('when the loan is ₦425,000 over 9 months from a named lender, then it sends the amount in kobo, the tenor and the name', () => {
    expect(purposeMeta({ lenderName: 'Kobo Credit', loanAmount: 425_000, tenorMonths: 9 })).toEqual({
      lender_name: 'Kobo Credit',
      loan_amount: 42_500_000,
      loan_tenor: 9,
    });
  });

  // An initiate of amount 5e-324 (a valid positive number) made 0 kobo, which the provider refused,
  // and the lender read a 500 "provider could not be reached".
  it('when the amount rounds to no kobo or past a safe integer, then the amount is left out and the rest is sent', () => {
    expect(purposeMeta({ lenderName: 'Kobo Credit', loanAmount: 5e-324, tenorMonths: 1 })).toEqual({
      lender_name: 'Kobo Credit',
      loan_tenor: 1,
    });
    expect(purposeMeta({ lenderName: null, loanAmount: 1e300, tenorMonths: 1.5 })).toEqual({});
  });

  it('when the lender name is blank or longer than the widget shows, then it is left out or cut to 120 characters', () => {
    expect(purposeMeta({ lenderName: '   ', loanAmount: 1, tenorMonths: 700 })).toEqual({ loan_amount: 100 });
    const long = purposeMeta({ lenderName: 'K'.repeat(300), loanAmount: 1, tenorMonths: 12 }).lender_name as string;
    expect(long).toHaveLength(120);
    expect(long.endsWith('…')).toBe(true);
  });
});
