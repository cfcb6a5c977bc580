import { createLogger } from '@loan/runtime';
import { logMailer } from './staffAccounts';

const invitation = {
  email: 'ada@acme.example',
  lenderName: 'Acme Lending',
  role: 'viewer' as const,
  url: 'http://127.0.0.1:8080/console#/invitation/secret-token-of-the-link',
  expiresAt: new Date('2026-11-24T10:00:00Z'),
};

function mailer(logLink: boolean) {
  const lines: string[] = [];
  const logger = createLogger('gateway', 'info', { write: (line: string) => void lines.push(line) });
  return { lines, mailer: logMailer(logger, { logLink }) };
}

describe('invitations without a mailer', () => {
  it('when the stack is local, then the link is written to the log, and the answer must carry it', async () => {
    const { lines, mailer: local } = mailer(true);
    await local.send(invitation);
    expect(local.delivers).toBe(false);
    expect(lines.join('\n')).toContain(invitation.url);
  });

  it('when the gateway runs in production, then the log holds neither the link nor the address', async () => {
    const { lines, mailer: production } = mailer(false);
    await production.send(invitation);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('secret-token-of-the-link');
    expect(lines[0]).not.toContain(invitation.email);
  });
});
