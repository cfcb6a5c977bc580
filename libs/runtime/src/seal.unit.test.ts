import { createSealer, isSealed } from './seal';

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

  it('when a value is sealed, then it names its key; values sealed before key ids still open', () => {
    const rotated = createSealer('the-new-data-key-5678', ['the-old-data-key-1234']);
    expect(rotated.keyIdOf(old.seal('x'))).toBe(old.keyId);
    expect(rotated.keyIdOf(rotated.seal('x'))).toBe(rotated.keyId);
    expect(rotated.keyId).not.toBe(old.keyId);
    // The format of values sealed before key ids: a bare 16-character IV.
    const legacy = old.seal('written long ago').replace(`v1.${old.keyId}`, 'v1.');
    expect(rotated.keyIdOf(legacy)).toBeNull();
    expect(rotated.open(legacy)).toBe('written long ago');
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
