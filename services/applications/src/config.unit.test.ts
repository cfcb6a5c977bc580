import { loadApplicationsConfig } from './config';

const production = { NODE_ENV: 'production', DATA_KEY: 'a-production-data-key-of-our-own-1234' };

describe('the applications configuration', () => {
  it('when RECORD_RETENTION_YEAR is unset, then retention runs in calendar years; set, it is a duration, and production refuses it by name', () => {
    expect(loadApplicationsConfig(production).RECORD_RETENTION_YEAR).toBeUndefined();
    expect(loadApplicationsConfig({ RECORD_RETENTION_YEAR: '' }).RECORD_RETENTION_YEAR).toBeUndefined();
    expect(loadApplicationsConfig({ RECORD_RETENTION_YEAR: '2s' }).RECORD_RETENTION_YEAR).toBe(2_000);
    expect(() => loadApplicationsConfig({ RECORD_RETENTION_YEAR: 'a year' })).toThrow(
      /RECORD_RETENTION_YEAR: must be a positive duration such as 2s or 365d/,
    );
    expect(() => loadApplicationsConfig({ RECORD_RETENTION_YEAR: '0s' })).toThrow(/must be a positive duration/);
    expect(() => loadApplicationsConfig({ ...production, RECORD_RETENTION_YEAR: '365d' })).toThrow(
      /^Refusing to start with NODE_ENV=production: RECORD_RETENTION_YEAR is set/,
    );
  });
});
