/**
 * Five tiers, told apart by file name: `*.unit.test.ts` (pure, no I/O), `*.int.test.ts`
 * (real broker, registry and database), `*.e2e.test.ts` (the whole stack over HTTP),
 * `*.fault.test.ts` (the whole stack while the broker or database is stopped: run alone, after
 * the others, because they stop the infrastructure every suite shares) and `*.container.test.ts`
 * (our images from the Dockerfile run as containers with their own broker, registry and database
 * on a Docker network of their own; nothing shared, skipped when no Docker engine can be had).
 */
const base = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    // Packages published only as ES modules (otplib's base32 and hashes, jose), which Node
    // requires natively and jest does not: compiled to CommonJS for the tests.
    '/node_modules/(@(scure|noble)|jose)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@scure/|@noble/|jose/)'],
  moduleNameMapper: {
    '^@loan/(contracts|runtime|provider)$': '<rootDir>/libs/$1/src',
    '^@loan/(gateway|applications|enrichment|scoring|notifier|janitor)$': '<rootDir>/services/$1/src',
    '^@loan/(gateway|applications|enrichment|scoring|notifier|janitor)/domain$': '<rootDir>/services/$1/src/domain',
    '^@loan/sandbox$': '<rootDir>/sandbox/src',
    '^@loan/client$': '<rootDir>/sdk/src',
    // The tests' shared harness (testing/), however deep the test file is.
    '^@testing/(.*)$': '<rootDir>/testing/$1',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  rootDir: __dirname,
};

module.exports = {
  projects: [
    // No I/O, but some work is CPU-bound (scrypt at 128 MiB, the scorecard's golden set): jest's
    // 5 s default is a duration a loaded machine can exceed, not a hang.
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.test.ts'], testTimeout: 60_000 },
    {
      ...base,
      displayName: 'int',
      testMatch: ['<rootDir>/**/*.int.test.ts'],
      globalSetup: '<rootDir>/testing/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/testing/long-timeout.js', '<rootDir>/testing/kafkajs-timers.js'],
    },
    {
      ...base,
      displayName: 'fault',
      testMatch: ['<rootDir>/**/*.fault.test.ts'],
      globalSetup: '<rootDir>/testing/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/testing/long-timeout.js', '<rootDir>/testing/kafkajs-timers.js'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/**/*.e2e.test.ts'],
      globalSetup: '<rootDir>/testing/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/testing/long-timeout.js', '<rootDir>/testing/kafkajs-timers.js'],
    },
    {
      ...base,
      displayName: 'container',
      testMatch: ['<rootDir>/**/*.container.test.ts'],
      globalSetup: '<rootDir>/testing/container-setup.js',
      setupFilesAfterEnv: ['<rootDir>/testing/long-timeout.js', '<rootDir>/testing/kafkajs-timers.js'],
    },
  ],
};
