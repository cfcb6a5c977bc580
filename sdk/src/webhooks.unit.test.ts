import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EventNames, WebhookEnvelope } from '@loan/contracts';
import { WebhookVerificationError } from './errors';
import { EVENT_NAMES } from './types';
import { VERSION } from './version';
import { signStandardWebhook, signWebhook, verifyWebhook } from './webhooks';

const secret = 'whsec_current_0123456789abcdef';
const previous = 'whsec_previous_0123456789abcdef';
const event = {
  id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  event: 'application.ready_for_analysis',
  data: {
    applicationId: '0b3c8f2e-5d1a-4e7b-9c6f-2a1b3c4d5e6f',
    applicantId: '1c4d9a3f-6e2b-4f8c-8d7a-3b2c4d5e6f70',
    accountCount: 2,
    message: 'All linked accounts are enriched',
  },
  timestamp: '2026-11-20T09:15:00.123Z',
};
// Spacing and key order as a sender might write them: the signature covers these bytes, not JSON.stringify's.
const raw = Buffer.from(
  `{"id":"${event.id}",  "event":"${event.event}","data":${JSON.stringify(event.data, null, 1)},"timestamp":"${event.timestamp}"}`,
);
const hmac = (body: Buffer | string, key: string) => createHmac('sha256', key).update(body).digest('hex');

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verifyWebhook', () => {
  it('when the signature is the hex HMAC-SHA256 of the raw bytes, then it returns the event as sent', () => {
    const verified = verifyWebhook(raw, hmac(raw, secret), [secret]);
    expect(verified).toEqual(event);
    expect(WebhookEnvelope.parse(verified)).toEqual(event);
    expect(verifyWebhook(raw.toString('utf8'), hmac(raw, secret), secret)).toEqual(event);
    expect(signWebhook(raw, secret)).toBe(hmac(raw, secret));
  });

  it('when the event is checked by name, then its data is the one of that event', () => {
    const verified = verifyWebhook(raw, hmac(raw, secret), [secret]);
    if (verified.event !== 'application.ready_for_analysis') throw new Error('wrong event');
    expect(verified.data.accountCount).toBe(2);
  });

  it('when the body was re-serialised, then the signature of the original bytes no longer matches', () => {
    const reserialised = JSON.stringify(JSON.parse(raw.toString('utf8')));
    expect(failure(() => verifyWebhook(reserialised, hmac(raw, secret), [secret])).reason).toBe('signature_mismatch');
  });

  it('when one byte of the body changed, then it is refused as a mismatch', () => {
    const tampered = Buffer.from(raw.toString('utf8').replace('"accountCount": 2', '"accountCount": 3'));
    expect(tampered.equals(raw)).toBe(false);
    expect(failure(() => verifyWebhook(tampered, hmac(raw, secret), [secret])).reason).toBe('signature_mismatch');
  });

  it('when signed with another secret, then it is refused', () => {
    const e = failure(() => verifyWebhook(raw, hmac(raw, 'whsec_someone_else'), [secret]));
    expect(e.reason).toBe('signature_mismatch');
    expect(e.retriable).toBe(false);
  });

  it('when the secret was rotated, then a delivery signed with either trusted secret passes', () => {
    expect(verifyWebhook(raw, hmac(raw, previous), [secret, previous]).id).toBe(event.id);
    expect(verifyWebhook(raw, hmac(raw, secret), [secret, previous]).id).toBe(event.id);
    // x-signature with the new secret, x-signature-previous with the old: a receiver still on the old one passes.
    expect(verifyWebhook(raw, [hmac(raw, secret), hmac(raw, previous)], [previous]).id).toBe(event.id);
    expect(verifyWebhook(raw, [hmac(raw, secret), undefined], [secret]).id).toBe(event.id);
  });

  it('when the signature is missing or empty, then it is refused as missing', () => {
    for (const given of [undefined, null, '', [], [undefined, '']]) {
      expect(failure(() => verifyWebhook(raw, given as never, [secret])).reason).toBe('missing_signature');
    }
  });

  it('when the signature is not 64 hex characters, then it is a mismatch, not a crash', () => {
    const good = hmac(raw, secret);
    for (const given of [good.slice(0, 63), `${good}00`, good.slice(0, 32), 'zz'.repeat(32), `sha256=${good}`]) {
      expect(failure(() => verifyWebhook(raw, given, [secret])).reason).toBe('signature_mismatch');
    }
    expect(verifyWebhook(raw, good.toUpperCase(), [secret]).id).toBe(event.id);
  });

  it('when a signed body is not an event of the spec, then it says so', () => {
    const notJson = Buffer.from('not json');
    expect(failure(() => verifyWebhook(notJson, hmac(notJson, secret), [secret])).reason).toBe('invalid_payload');
    const noData = Buffer.from(JSON.stringify({ id: 'x', event: 'account.linked', timestamp: 't' }));
    expect(failure(() => verifyWebhook(noData, hmac(noData, secret), [secret])).reason).toBe('invalid_payload');
    const unknown = Buffer.from(JSON.stringify({ ...event, event: 'loan.disbursed' }));
    expect(failure(() => verifyWebhook(unknown, hmac(unknown, secret), [secret])).reason).toBe('unknown_event');
  });

  it('when given parsed JSON or no secret, then it is a programming error, not a verdict', () => {
    expect(() => verifyWebhook(event as never, hmac(raw, secret), [secret])).toThrow(TypeError);
    expect(() => verifyWebhook(raw, hmac(raw, secret), [])).toThrow(TypeError);
    expect(() => verifyWebhook(raw, hmac(raw, secret), [''])).toThrow(TypeError);
  });
});

describe('verifyWebhook with the request headers (Standard Webhooks)', () => {
  const raw = JSON.stringify({
    id: '6f1c3c1e-0000-4000-8000-000000000001',
    event: 'application.failed',
    data: { applicationId: 'a', applicantId: 'b', status: 'FAILED', reason: 'x' },
    timestamp: '2025-01-01T00:00:00.000Z',
  });
  const now = new Date('2026-01-01T12:00:00Z');
  const at = (date: Date) => Math.floor(date.getTime() / 1000);
  const headersOf = (secrets: string[], time: number, body = raw) => ({
    'webhook-id': 'delivery-1',
    'webhook-timestamp': String(time),
    'webhook-signature': secrets.map((s) => signStandardWebhook('delivery-1', time, body, s)).join(' '),
    'x-signature': signWebhook(body, secrets[0]!),
  });

  it('when the Standard Webhooks signature matches within 5 minutes, then the event is returned, also from Fetch Headers', () => {
    expect(verifyWebhook(raw, headersOf(['whsec_a'], at(now) - 299), 'whsec_a', { now }).event).toBe(
      'application.failed',
    );
    expect(verifyWebhook(raw, new Headers(headersOf(['whsec_a'], at(now) + 299)), 'whsec_a', { now }).event).toBe(
      'application.failed',
    );
  });

  it('when a rotation overlap signs with two secrets, then either trusted secret passes', () => {
    expect(verifyWebhook(raw, headersOf(['whsec_new', 'whsec_old'], at(now)), ['whsec_old'], { now }).event).toBe(
      'application.failed',
    );
  });

  it('when the timestamp is more than 5 minutes off, or was changed, then it is refused', () => {
    const old = headersOf(['whsec_a'], at(now) - 301);
    expect(() => verifyWebhook(raw, old, 'whsec_a', { now })).toThrow(
      expect.objectContaining({ reason: 'timestamp_out_of_tolerance' }),
    );
    const moved = { ...headersOf(['whsec_a'], at(now) - 400), 'webhook-timestamp': String(at(now)) };
    expect(() => verifyWebhook(raw, moved, 'whsec_a', { now })).toThrow(
      expect.objectContaining({ reason: 'signature_mismatch' }),
    );
  });

  it('when the Standard Webhooks headers are absent, then x-signature is checked, unless a timestamp is required', () => {
    const onlySpec = { 'x-signature': signWebhook(raw, 'whsec_a') };
    expect(verifyWebhook(raw, onlySpec, 'whsec_a', { now }).event).toBe('application.failed');
    expect(() => verifyWebhook(raw, onlySpec, 'whsec_a', { now, requireTimestamp: true })).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(raw, { 'x-signature': signWebhook(raw, 'whsec_b') }, 'whsec_a', { now })).toThrow(
      expect.objectContaining({ reason: 'signature_mismatch' }),
    );
  });
});

describe('the package', () => {
  it('when asked for its events, then it knows every event of the contracts, in their order', () => {
    expect(EVENT_NAMES).toEqual(EventNames);
    expect(EVENT_NAMES).toHaveLength(14);
  });

  it('reports the version of its package.json', () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(manifest.version);
  });
});

describe('the published package', () => {
  it('is self-contained: its code imports only its own modules and Node built-ins, and it has no dependencies', () => {
    const dir = __dirname;
    const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.includes('.test.'));
    expect(sources.length).toBeGreaterThan(3);
    for (const file of sources) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);
      for (const specifier of specifiers) expect(`${file}: ${specifier}`).toMatch(/: (\.\/|node:)/);
    }
    const manifest = JSON.parse(readFileSync(path.join(dir, '..', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
  });
});
