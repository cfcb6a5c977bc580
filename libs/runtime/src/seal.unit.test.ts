import { createDecipheriv, createHash, createHmac, hkdfSync } from 'node:crypto';
import { legacyPurposeOf } from './reseal';
import { sealedBeforePurposes } from './__tests__/legacySealed';
import { createSealer, isLegacySealed, isSealed, SealPurposes } from './seal';

describe('sealing with a data key, and rotating it', () => {
  const old = createSealer('the-old-data-key-1234');

  it('when a value is sealed, then it opens to the same text and looks sealed, never like the text', () => {
    const sealed = old.seal('22291827364');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('22291827364');
    expect(old.open(sealed)).toBe('22291827364');
    expect(old.reveal(sealed)).toBe('22291827364');
    expect(old.reveal('written before sealing')).toBe('written before sealing');
  });

  it('when DATA_KEY is rotated with the old key kept as previous, then old values still open and new values use the new key', () => {
    const sealedBefore = old.seal('Ifeyinwa');
    const rotated = createSealer('the-new-data-key-5678', ['the-old-data-key-1234']);
    expect(rotated.open(sealedBefore)).toBe('Ifeyinwa');
    const sealedAfter = rotated.seal('Onyekachukwu');
    expect(createSealer('the-new-data-key-5678').open(sealedAfter)).toBe('Onyekachukwu');
    expect(() => old.open(sealedAfter)).toThrow();
  });

  it('when DATA_KEY is rotated, then only values sealed under the new key count as current', () => {
    const rotated = createSealer('the-new-data-key-5678', ['the-old-data-key-1234']);
    expect(rotated.isCurrent(rotated.seal('x'))).toBe(true);
    expect(rotated.isCurrent(old.seal('x'))).toBe(false);
    expect(rotated.isCurrent(sealedBeforePurposes('the-new-data-key-5678', 'x'))).toBe(false);
  });

  it('when a value was sealed under a key that is neither current nor previous, then opening it fails', () => {
    const stranger = createSealer('somebody-elses-key-999').seal('x');
    expect(() => createSealer('the-new-data-key-5678', ['the-old-data-key-1234']).open(stranger)).toThrow();
  });
});

describe('authentication tags', () => {
  it('when a sealed value carries its tag cut to 4 bytes, then it does not open (a short tag is a forgery 2^32 tries away)', () => {
    const sealer = createSealer('a-data-key-of-sixteen-or-more');
    const [version, iv, tag, body] = sealer.seal('22200000001').split('.') as [string, string, string, string];
    const short = [version, iv, Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url'), body].join('.');
    expect(() => sealer.open(short)).toThrow();
  });
});

describe('purposes', () => {
  const keys = createSealer('the-data-key-of-the-platform', ['an-earlier-data-key-1234']);

  it('when a value is sealed for one purpose, then it does not open as any other, under the current key or a previous one', () => {
    for (const sealedFor of SealPurposes) {
      for (const sealer of [keys, createSealer('an-earlier-data-key-1234')]) {
        const sealed = sealer.for(sealedFor).seal('whsec_a-webhook-secret');
        expect(keys.for(sealedFor).open(sealed)).toBe('whsec_a-webhook-secret');
        for (const other of SealPurposes.filter((p) => p !== sealedFor))
          expect(() => keys.for(other).open(sealed)).toThrow();
      }
    }
  });

  it('when a sealer is made without a purpose, then it seals personal data, and `for` names the others', () => {
    expect(keys.purpose).toBe('personal-data');
    expect(keys.for('client-secrets').purpose).toBe('client-secrets');
    expect(
      createSealer('the-data-key-of-the-platform', [], 'client-secrets').open(keys.for('client-secrets').seal('sk')),
    ).toBe('sk');
  });

  it('when a subkey is derived, then it is HKDF-SHA-256 of the data key with the purpose as info, and the purpose is bound as associated data', () => {
    const sealed = keys.for('client-secrets').seal('sk_live_1');
    const [, head, tag, body] = sealed.split('.') as [string, string, string, string];
    const subkey = Buffer.from(
      hkdfSync('sha256', 'the-data-key-of-the-platform', 'loan-data-key', 'loan-seal:client-secrets', 32),
    );
    const open = (aad: string | null) => {
      const d = createDecipheriv('aes-256-gcm', subkey, Buffer.from(head.slice(1), 'base64url'), { authTagLength: 16 });
      if (aad !== null) d.setAAD(Buffer.from(aad));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
    };
    expect(open('loan-seal:client-secrets')).toBe('sk_live_1');
    expect(() => open(null)).toThrow();
    expect(() => open('loan-seal:personal-data')).toThrow();
  });
});

describe('what a sealed value says about its key', () => {
  it('when two values are sealed under one key, then their heads share nothing but the format mark, and no digest of the key appears in them', () => {
    const dataKey = 'the-data-key-of-the-platform';
    const sealer = createSealer(dataKey);
    const [a, b] = [sealer.seal('same'), sealer.seal('same')].map((s) => s.split('.')[1]!) as [string, string];
    expect(a).toHaveLength(17);
    expect(a[0]).toBe(b[0]);
    expect(a.slice(1)).not.toBe(b.slice(1));
    const digests = ['sha256', 'sha1', 'md5'].flatMap((alg) => [
      createHash(alg).update(dataKey).digest('base64url'),
      createHash(alg).update(`loan-data-key-id:${dataKey}`).digest('base64url'),
      createHmac(alg, dataKey).update('key-id').digest('base64url'),
    ]);
    for (const value of [a, b]) for (const digest of digests) expect(value.includes(digest.slice(0, 4))).toBe(false);
    // Under another key the head has the same form: nothing in it tells the keys apart.
    expect(createSealer('somebody-elses-data-key').seal('same').split('.')[1]).toMatch(/^p[A-Za-z0-9_-]{16}$/);
  });
});

describe('values sealed before purposes', () => {
  it('when a value was sealed before purposes (with or without its key id), then it still opens, under the current key or a previous one', () => {
    const rotated = createSealer('the-new-data-key-5678', ['the-old-data-key-1234']);
    for (const legacy of [
      sealedBeforePurposes('the-old-data-key-1234', 'Ifeyinwa'),
      sealedBeforePurposes('the-old-data-key-1234', 'Ifeyinwa', { keyId: false }),
      sealedBeforePurposes('the-new-data-key-5678', 'Ifeyinwa'),
    ]) {
      expect(isLegacySealed(legacy)).toBe(true);
      expect(rotated.open(legacy)).toBe('Ifeyinwa');
      expect(rotated.for('client-secrets').open(legacy)).toBe('Ifeyinwa');
    }
    expect(isLegacySealed(rotated.seal('x'))).toBe(false);
    expect(() => rotated.open(sealedBeforePurposes('a-key-nobody-kept-1234', 'x'))).toThrow();
  });

  it('when a value sealed before purposes is re-sealed, then the field that holds it names its purpose', () => {
    expect(legacyPurposeOf('webhookSecrets.1.secret')).toBe('client-secrets');
    expect(legacyPurposeOf('providerSecretKey')).toBe('client-secrets');
    expect(legacyPurposeOf('state.providerKeySealed')).toBe('client-secrets');
    expect(legacyPurposeOf('totpSecret')).toBe('staff-credentials');
    expect(legacyPurposeOf('sealedResult')).toBe('command-replies');
    expect(legacyPurposeOf('applicant.bvnSealed')).toBe('personal-data');
    expect(legacyPurposeOf('profile.holderName')).toBe('personal-data');
  });
});

describe('blind indexes of personal data', () => {
  it('when a value is indexed, then the index is the same every time, differs by value, purpose and key, never holds the value, and a rotated key still gives the old index', () => {
    const old = createSealer('the-old-data-key-1234');
    const rotated = createSealer('the-new-data-key-5678', ['the-old-data-key-1234']);
    const [index] = old.blindIndexes('name:adaeze');
    expect(old.blindIndexes('name:adaeze')).toEqual([index]);
    expect(old.blindIndexes('name:adaezE')[0]).not.toBe(index);
    expect(old.for('client-secrets').blindIndexes('name:adaeze')[0]).not.toBe(index);
    expect(index).not.toContain('adaeze');
    expect(index).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const both = rotated.blindIndexes('name:adaeze');
    expect(both).toHaveLength(2);
    expect(both[0]).not.toBe(index);
    expect(both[1]).toBe(index);
  });
});
