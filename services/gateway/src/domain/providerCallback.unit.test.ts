import { toProviderCallback } from './providerCallback';

const now = new Date('2026-11-20T09:00:00.000Z');
const callback = (body: unknown) => toProviderCallback(body, Buffer.from(JSON.stringify(body)), now);

describe('toProviderCallback', () => {
  it.each([
    ['data.account._id', { account: { _id: 'acc-1' } }],
    ['data.account.id', { account: { id: 'acc-1' } }],
    ['data.account as the id', { account: 'acc-1' }],
    ['data.id', { id: 'acc-1' }],
    ['data.accountId', { accountId: 'acc-1' }],
    ['data.id beside an account object without one', { account: { status: 'AVAILABLE' }, id: 'acc-1' }],
  ])('when the account is named by %s, then the callback is about that account', (_where, data) => {
    expect(callback({ event: 'mono.events.account_updated', data })).toMatchObject({
      providerAccountId: 'acc-1',
      kind: 'account_updated',
    });
  });

  it.each([
    ['no event', { data: { id: 'acc-1' } }],
    ['an empty event', { event: '', data: { id: 'acc-1' } }],
    ['no data', { event: 'mono.events.account_updated' }],
    ['data without an account', { event: 'mono.events.account_updated', data: {} }],
    ['an empty account id', { event: 'mono.events.account_updated', data: { account: { _id: '' } } }],
    ['an array', [{ event: 'mono.events.account_updated', data: { id: 'acc-1' } }]],
  ])('when the body has %s, then it is not a webhook we understand', (_what, body) => {
    expect(callback(body)).toBeNull();
  });
});
