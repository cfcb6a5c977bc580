import { createHmac } from 'node:crypto';
import { sign, signatureHeaders } from './signature';

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

  it('when the client has one secret, then only x-signature is sent', () => {
    const headers = signatureHeaders(body, [{ secret: 'whsec_new', validUntil: null }], new Date());
    expect(headers).toEqual({ 'x-signature': sign(body, 'whsec_new') });
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
    );
    expect(headers).toEqual({
      'x-signature': sign(body, 'whsec_new'),
      'x-signature-previous': sign(body, 'whsec_old'),
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
    );
    expect(headers).toEqual({ 'x-signature': sign(body, 'whsec_new') });
  });

  it('when the client has no secret, then there is nothing to sign with', () => {
    expect(signatureHeaders(body, [], new Date())).toBeNull();
  });
});
