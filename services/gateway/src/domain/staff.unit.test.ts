import { generateSync } from 'otplib';
import { checkTotp, hashPassword, newTotpSecret, roleAllows, verifyPassword, waitAfterFailures } from './staff';

describe('staff accounts', () => {
  it('when a password is hashed, then only that password verifies, with scrypt at N=2^17 and a salt of its own', async () => {
    const one = await hashPassword('correct horse battery staple');
    const two = await hashPassword('correct horse battery staple');
    expect(one).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(one).not.toBe(two);
    await expect(verifyPassword('correct horse battery staple', one)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', one)).resolves.toBe(false);
    await expect(verifyPassword('anything', 'not-a-hash')).resolves.toBe(false);
  });

  it('when a TOTP code is checked, then the current one and a step either side pass, others fail, and a used step is refused', () => {
    const { secret, uri } = newTotpSecret('Acme Lending', 'ada@acme.example');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Acme%20Lending:ada%40acme\.example\?.*secret=/);
    const now = new Date('2026-11-24T10:00:10Z');
    const at = (ms: number) => generateSync({ secret, epoch: Math.floor((now.getTime() + ms) / 1000) });
    const step = checkTotp(secret, at(0), now, null);
    expect(step).toBe(Math.floor(now.getTime() / 30_000));
    expect(checkTotp(secret, at(-30_000), now, null)).not.toBeNull();
    expect(checkTotp(secret, at(30_000), now, null)).not.toBeNull();
    expect(checkTotp(secret, at(-90_000), now, null)).toBeNull();
    expect(checkTotp(secret, at(0), now, step)).toBeNull();
    expect(checkTotp(secret, 'abcdef', now, null)).toBeNull();
  });

  it('when sign-ins keep failing, then the account waits longer each time, never more than 15 minutes', () => {
    expect([0, 4, 5, 6, 7, 20].map(waitAfterFailures)).toEqual([0, 0, 30_000, 60_000, 120_000, 15 * 60_000]);
  });

  it('when roles are asked what they may do, then each has its own set', () => {
    expect(roleAllows('owner', 'users')).toBe(true);
    expect(roleAllows('developer', 'developer')).toBe(true);
    expect(roleAllows('developer', 'applications')).toBe(false);
    expect(roleAllows('credit_officer', 'applications')).toBe(true);
    expect(roleAllows('credit_officer', 'manage')).toBe(false);
    expect(roleAllows('credit_manager', 'manage')).toBe(true);
    expect(roleAllows('viewer', 'read')).toBe(true);
    expect(roleAllows('viewer', 'applications')).toBe(false);
    expect(roleAllows('credit_manager', 'users')).toBe(false);
  });
});
