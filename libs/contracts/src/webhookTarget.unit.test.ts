import { checkWebhookUrl, isForbiddenAddress } from './webhookTarget';

const strict = { allowPrivate: false };
const local = { allowPrivate: true };

describe('webhook target rules', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '2002:7f00:1::1',
    '224.0.0.1',
  ])('when the address is %s, then it is not public', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '41.58.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '2a00:1450:4001::1'])(
    'when the address is %s, then it is public',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );

  it('when the URL uses https and names a public host, then it is accepted', () => {
    const check = checkWebhookUrl('https://hooks.lender.ng/loan-events', strict);
    expect(check).toEqual({ ok: true, url: new URL('https://hooks.lender.ng/loan-events') });
  });

  it('when private targets are not allowed and the URL uses http, then it is refused', () => {
    expect(checkWebhookUrl('http://hooks.lender.ng/x', strict)).toEqual({
      ok: false,
      reason: 'the webhook URL must use https',
    });
  });

  it.each([
    'https://127.0.0.1:8443/x',
    'https://[::1]/x',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost/x',
    'https://api.localhost/x',
  ])('when private targets are not allowed and the URL is %s, then it is refused', (url) => {
    const check = checkWebhookUrl(url, strict);
    expect(check.ok).toBe(false);
  });

  it('when private targets are allowed, then http on loopback is accepted', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9000/hook', local).ok).toBe(true);
  });

  it.each(['ftp://lender.ng/x', 'file:///etc/passwd', 'javascript:alert(1)'])(
    'when the scheme is not http(s) (%s), then it is refused even locally',
    (url) => {
      const check = checkWebhookUrl(url, local);
      expect(check.ok).toBe(false);
    },
  );

  it('when the URL cannot be parsed, then it is refused with that reason', () => {
    expect(checkWebhookUrl('not a url', local)).toEqual({ ok: false, reason: 'the webhook URL is not a valid URL' });
  });
});
