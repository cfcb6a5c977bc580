import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@loan/runtime';
import { startSandbox } from '@testing/stack';
import { CLEAN_BVN, DELINQUENT_BVN, NO_RECORD_BVN, crcCleanHit } from './__tests__/crc';
import { createHttpBureau } from './httpBureau';

/**
 * The bureau client against a local server answering as CRC does, and as a broken or hostile
 * bureau might: what it reads is checked before use, and its size is capped.
 */
async function bureauServer(answer: () => unknown) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const logger = createLogger('bureau-contract', 'silent');

/** A clean CRC hit with one part replaced. */
function cleanHitWith(patch: (body: Record<string, unknown>) => void) {
  const answer = crcCleanHit();
  patch(answer.ConsumerHitResponse.BODY as unknown as Record<string, unknown>);
  return answer;
}

describe('credit bureau answers', () => {
  it('when the bureau answers a CRC report, then it is read as a hit with its facilities', async () => {
    const server = await bureauServer(() => crcCleanHit());
    try {
      const outcome = await createHttpBureau({ baseUrl: server.url, apiKey: 'k', timeoutMs: 2_000, logger }).lookup(
        CLEAN_BVN,
      );
      expect(outcome.status).toBe('HIT');
      expect(outcome.status === 'HIT' && outcome.report.facilities.length).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('when the sandbox bureau answers for its BVNs, then every answer passes the checks', async () => {
    const sandbox = await startSandbox('http://127.0.0.1:9/unused');
    try {
      const bureau = createHttpBureau({ baseUrl: sandbox.url, apiKey: 'sandbox-bureau-key', timeoutMs: 5_000, logger });
      expect((await bureau.lookup(CLEAN_BVN)).status).toBe('HIT');
      expect((await bureau.lookup(DELINQUENT_BVN)).status).toBe('HIT');
      expect((await bureau.lookup(NO_RECORD_BVN)).status).toBe('NO_HIT');
    } finally {
      await sandbox.stop();
    }
  });

  it.each([
    [
      'a facility list that is text',
      (b: Record<string, unknown>) => void (b.CreditFacilityHistory24 = 'see attached'),
      'BODY.CreditFacilityHistory24',
    ],
    [
      'a facility whose balance is an object',
      (b: Record<string, unknown>) =>
        void ((b.CreditFacilityHistory24 as Record<string, unknown>[])[0]!.CURRENT_BALANCE_CAL = { amount: 400_000 }),
      'BODY.CreditFacilityHistory24',
    ],
    [
      'a score that is a list',
      (b: Record<string, unknown>) =>
        void ((
          b.CREDIT_SCORE_DETAILS as { CREDIT_SCORE_SUMMARY: Record<string, unknown> }
        ).CREDIT_SCORE_SUMMARY.CREDIT_SCORE = [762]),
      'BODY.CREDIT_SCORE_DETAILS.CREDIT_SCORE_SUMMARY.CREDIT_SCORE',
    ],
    ['a body that is text', (b: Record<string, unknown>) => void Object.keys(b).forEach((k) => delete b[k]), null],
  ])(
    'when a hit has %s, then the lookup is UNAVAILABLE naming the field, never scored as a clean file',
    async (_what, patch, field) => {
      const answer =
        field === null
          ? { ConsumerHitResponse: { ...crcCleanHit().ConsumerHitResponse, BODY: 'no data' } }
          : cleanHitWith(patch);
      const server = await bureauServer(() => answer);
      try {
        const outcome = await createHttpBureau({ baseUrl: server.url, apiKey: 'k', timeoutMs: 2_000, logger }).lookup(
          CLEAN_BVN,
        );
        expect(outcome).toEqual({ status: 'UNAVAILABLE', reason: `MALFORMED_RESPONSE: ${field ?? 'BODY'}` });
      } finally {
        await server.close();
      }
    },
  );

  it('when the answer is larger than the cap, then it is refused unread and the lookup is UNAVAILABLE', async () => {
    const server = await bureauServer(() => cleanHitWith((b) => void (b.Padding = 'x'.repeat(50_000))));
    try {
      const bureau = createHttpBureau({
        baseUrl: server.url,
        apiKey: 'k',
        timeoutMs: 2_000,
        logger,
        maxResponseBytes: 20_000,
      });
      const outcome = await bureau.lookup(CLEAN_BVN);
      expect(outcome.status).toBe('UNAVAILABLE');
      expect(outcome.status === 'UNAVAILABLE' && outcome.reason).toMatch(/maxContentLength/);
    } finally {
      await server.close();
    }
  });
});
