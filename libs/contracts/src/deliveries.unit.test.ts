import { DeliveryListQuery } from './deliveries';

const firstMessage = (query: unknown) => {
  const result = DeliveryListQuery.safeParse(query);
  return result.success ? undefined : result.error.issues.map((i) => i.message).join('; ');
};

describe('the delivery log query', () => {
  it('when a filter is too long, then the message names the field and its bounds', () => {
    expect(firstMessage({ applicationId: 'a'.repeat(300) })).toBe('applicationId must be 1 to 100 characters');
    expect(firstMessage({ eventId: '' })).toBe('eventId must be 1 to 100 characters');
    expect(firstMessage({ cursor: 'c'.repeat(501) })).toBe(
      'cursor is not valid; use the nextCursor of a previous page',
    );
  });

  it('when the status is unknown, then the message lists the statuses', () => {
    expect(firstMessage({ status: 'LOST' })).toBe('status must be one of: PENDING, DELIVERED, FAILED, SKIPPED');
  });

  it('when the query is empty, then the first page of twenty is asked', () => {
    expect(DeliveryListQuery.parse({})).toEqual({ limit: 20 });
  });
});
