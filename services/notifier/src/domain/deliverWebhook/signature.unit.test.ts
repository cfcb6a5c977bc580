import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { sign, signatureHeaders, standardSignature } from './signature';

const body = '{"id":"e1","event":"application.failed","data":{"reason":"Ẹ̀rọ"},"timestamp":"2025-01-01T00:00:00.000Z"}';

describe('webhook signature', () => {
  it('when a body is signed, then the signature is the hex HMAC-SHA256 of its UTF-8 bytes', () => {
    const expected = createHmac('sha256', 'whsec_1').update(Buffer.from(body, 'utf8')).digest('hex');
    expect(sign(body, 'whsec_1')).toBe(expected);
    expect(sign(Buffer.from(body, 'utf8'), 'whsec_1')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when one byte of the body differs, then the signature differs', () => {
    expect(sign(`${body} `, 'whsec_1')).not.toBe(sign(body, 'whsec_1'));
  });

  it('when the client has one secret, then x-signature and one Standard Webhooks signature are sent', () => {
    const now = new Date('2025-01-01T12:00:00.900Z');
    const headers = signatureHeaders(body, [{ secret: 'whsec_new', validUntil: null }], now, 'd1');
    expect(headers).toEqual({
      'x-signature': sign(body, 'whsec_new'),
      'webhook-id': 'd1',
      'webhook-timestamp': '1735732800',
      'webhook-signature': standardSignature('d1', 1735732800, body, 'whsec_new'),
    });
    const expected = createHmac('sha256', 'whsec_new').update(`d1.1735732800.${body}`).digest('base64');
    expect(headers!['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('when a Standard Webhooks library verifies the headers with the secret as raw bytes, or as whsec_ and its base64, then they pass; another body or an old timestamp does not', () => {
    const secret = 'whsec_Zm9vYmFyLXNlY3JldC1rZXktb2YtMjQ';
    const headers = signatureHeaders(body, [{ secret, validUntil: null }], new Date(), 'd2')!;
    for (const verifier of [
      new Webhook(secret, { format: 'raw' }),
      new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`),
    ]) {
      expect(verifier.verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => verifier.verify(`${body} `, headers)).toThrow();
    }
    const old = signatureHeaders(body, [{ secret, validUntil: null }], new Date(Date.now() - 10 * 60_000), 'd2')!;
    expect(() => new Webhook(secret, { format: 'raw' }).verify(body, old)).toThrow(/timestamp/i);
  });

  it('when a rotated-out secret is still within its overlap, then x-signature-previous carries its signature', () => {
    const now = new Date('2025-01-01T12:00:00Z');
    const headers = signatureHeaders(
      body,
      [
        { secret: 'whsec_new', validUntil: null },
        { secret: 'whsec_old', validUntil: new Date('2025-01-02T12:00:00Z') },
      ],
      now,
      'd1',
    );
    expect(headers).toMatchObject({
      'x-signature': sign(body, 'whsec_new'),
      'x-signature-previous': sign(body, 'whsec_old'),
      'webhook-signature': `${standardSignature('d1', 1735732800, body, 'whsec_new')} ${standardSignature('d1', 1735732800, body, 'whsec_old')}`,
    });
  });

  it('when the overlap of the older secret has ended, then only the newest signs', () => {
    const headers = signatureHeaders(
      body,
      [
        { secret: 'whsec_new', validUntil: null },
        { secret: 'whsec_old', validUntil: new Date('2025-01-01T11:59:59Z') },
      ],
      new Date('2025-01-01T12:00:00Z'),
      'd1',
    );
    expect(headers).toMatchObject({
      'x-signature': sign(body, 'whsec_new'),
      'webhook-signature': standardSignature('d1', 1735732800, body, 'whsec_new'),
    });
    expect(headers).not.toHaveProperty('x-signature-previous');
  });

  it('when the client has no secret, then there is nothing to sign with', () => {
    expect(signatureHeaders(body, [], new Date(), 'd1')).toBeNull();
  });
});
