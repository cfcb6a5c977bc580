import { maskAccountNumber } from './maskAccountNumber';

describe('scrubbing a stored webhook body', () => {
  it('when the body carries an account number, then only its last four digits stay, in the same shape', () => {
    const body = JSON.stringify({
      id: 'e1',
      event: 'account.linked',
      data: { accountId: 'a1', institution: 'GTBank', accountNumber: '0123456785' },
      timestamp: 't',
    });
    const masked = maskAccountNumber(body)!;
    expect(JSON.parse(masked)).toEqual({
      id: 'e1',
      event: 'account.linked',
      data: { accountId: 'a1', institution: 'GTBank', accountNumber: '******6785' },
      timestamp: 't',
    });
    expect(masked).not.toContain('0123456785');
    expect(maskAccountNumber(masked)).toBeNull();
  });

  it('when the body carries no account number, then there is nothing to scrub', () => {
    expect(
      maskAccountNumber(JSON.stringify({ id: 'e2', event: 'application.decision', data: { score: 700 } })),
    ).toBeNull();
  });
});
