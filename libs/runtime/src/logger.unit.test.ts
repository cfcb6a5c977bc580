import { Writable } from 'node:stream';
import { createLogger } from './logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('redaction-test', 'info', stream), text: () => lines.join('') };
}

describe('log redaction', () => {
  it('when a logged object carries credentials, cookies or an applicant’s identity at any depth, then none of their values reaches the line', () => {
    const { logger, text } = capture();
    const probes = {
      cookie: 'console_session=probe-cookie-value',
      authorization: 'Bearer probe-bearer-token',
      'x-internal-token': 'probe-internal-token',
      firstName: 'Probefirst',
      lastName: 'Probelast',
      email: 'probe.applicant@example.com',
      phone: '08099990000',
    };
    logger.info({ req: { headers: { ...probes, 'Set-Cookie': ['probe-set-cookie'] } } }, 'request');
    logger.info(
      { deep: { a: { b: { c: { d: { applicant: probes, list: [{ Email: 'probe.list@example.com' }] } } } } } },
      'nested',
    );
    logger.info({ err: new Error('kept as it is'), count: 3, event: 'application.failed' }, 'kept');
    const out = text();
    for (const value of [...Object.values(probes), 'probe-set-cookie', 'probe.list@example.com'])
      expect(out).not.toContain(value);
    expect(out).toContain('[redacted]');
    expect(out).toContain('kept as it is');
    expect(out).toContain('"count":3');
    expect(out).toContain('application.failed');
  });
});
