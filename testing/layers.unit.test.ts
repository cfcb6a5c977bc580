import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The skeleton every service promises (README, "Each service is one process with the same
 * skeleton"): the same folders at the top of every `src`, `domain/` is pure, a service's
 * message handlers are found in `src/entry-points/consumers/`, mapped topic -> handler in its
 * `index.ts`, and services share nothing but topics and `libs/`: no service imports another,
 * and `libs/` imports no service. Read from the source tree; nothing is run.
 */
const ROOT = join(__dirname, '..');
const SERVICES = join(ROOT, 'services');

/** Adapters and shared I/O plumbing: a decision takes what they fetch as a parameter. */
const ADAPTER_PACKAGES = ['@loan/provider', '@loan/runtime'];
/** Libraries that do I/O (a bare Node module and its `node:` name alike). */
const IO_LIBRARIES = [
  'mongoose',
  'mongodb',
  'kafkajs',
  '@kafkajs/confluent-schema-registry',
  'axios',
  'express',
  'prom-client',
  'node:http',
  'node:https',
  'node:net',
  'node:fs',
  'http',
  'https',
  'net',
  'fs',
];
/** The layers a domain folder must not reach into. */
const OUTER_LAYERS = ['data-access', 'entry-points'];

/** What the top of every service's `src` holds: the three layers and the wiring, nothing else. */
const SKELETON = {
  /** Every service has these. */
  required: ['data-access/', 'domain/', 'entry-points/', 'config.ts', 'index.ts', 'service.ts', 'start.ts'],
  /** A service may have these: its own metrics, its test harness. */
  optional: ['metrics.ts', '__tests__/'],
};
/** Tests of the whole service sit at the top of `src` too (the tier is in the name). */
const isTestFile = (name: string) => /\.(unit|int|e2e|fault|container)\.test\.ts$/.test(name);

/** Why an entry at the top of a service's `src` is not part of the skeleton, or null when it is. */
function outOfSkeleton(name: string, isDirectory: boolean): string | null {
  const entry = isDirectory ? `${name}/` : name;
  if ([...SKELETON.required, ...SKELETON.optional].includes(entry)) return null;
  if (!isDirectory && isTestFile(name)) return null;
  return isDirectory ? 'a folder outside the skeleton' : 'a file outside the skeleton';
}

const names = (specifier: string, name: string) => specifier === name || specifier.startsWith(`${name}/`);

/** Why a domain file may not import `specifier`, or null when it may. */
function forbiddenInDomain(specifier: string): string | null {
  if (ADAPTER_PACKAGES.some((name) => names(specifier, name))) return 'an adapter or I/O plumbing package';
  if (IO_LIBRARIES.some((name) => names(specifier, name))) return 'an I/O library';
  const layer = specifier.split('/').find((segment) => OUTER_LAYERS.includes(segment));
  if (layer) return `the ${layer} layer`;
  return null;
}

/** Every module a file names: static imports and re-exports, `import()` and `require()`. */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

const services = readdirSync(SERVICES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(SERVICES, entry.name, 'src')))
  .map((entry) => entry.name)
  .sort();

const LIBS = join(ROOT, 'libs');
const libs = readdirSync(LIBS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(LIBS, entry.name, 'src')))
  .map((entry) => entry.name)
  .sort();

/** The service a module specifier names (`@loan/<service>`, or a path that resolves into `services/<service>`), or null. */
function serviceNamedBy(specifier: string, fromFile: string, known: readonly string[]): string | null {
  const pkg = /^@loan\/([^/]+)/.exec(specifier)?.[1];
  if (pkg) return known.includes(pkg) ? pkg : null;
  if (!specifier.startsWith('.')) return null;
  const into = relative(SERVICES, resolve(dirname(fromFile), specifier));
  if (into.startsWith('..') || isAbsolute(into)) return null;
  return into.split(sep)[0] ?? null;
}

/** Every source file under a folder, tests and harnesses included (they may not reach into another service either). */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The production code of a domain folder: tests and their fixtures excluded. */
function domainFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' ? [] : domainFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

describe('the layers every service is built of', () => {
  it('when the services are listed, then each has a domain folder with code in it (the checks below are not vacuous)', () => {
    expect(services).toEqual(
      expect.arrayContaining(['applications', 'enrichment', 'gateway', 'janitor', 'notifier', 'scoring']),
    );
    for (const service of services) {
      expect({ service, files: domainFiles(join(SERVICES, service, 'src', 'domain')).length > 0 }).toEqual({
        service,
        files: true,
      });
    }
  });

  it('when a domain file imports, then it names no adapter, no data-access or entry-points path and no I/O library', () => {
    const violations: string[] = [];
    for (const service of services) {
      for (const file of domainFiles(join(SERVICES, service, 'src', 'domain'))) {
        for (const specifier of importsOf(file)) {
          const why = forbiddenInDomain(specifier);
          if (why) violations.push(`${relative(ROOT, file)} imports '${specifier}' (${why})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('when a service consumes Kafka, then its handlers are mapped in src/entry-points/consumers/index.ts', () => {
    const consuming = services.filter((service) => {
      const wiring = join(SERVICES, service, 'src', 'service.ts');
      return existsSync(wiring) && readFileSync(wiring, 'utf8').includes('consume(');
    });
    expect(consuming.length).toBeGreaterThan(0);
    const missing = consuming.filter(
      (service) => !existsSync(join(SERVICES, service, 'src', 'entry-points', 'consumers', 'index.ts')),
    );
    expect(missing).toEqual([]);
  });

  it('when an import is classified, then shared vocabulary and the domain itself pass and adapters, outer layers and I/O do not', () => {
    for (const allowed of ['@loan/contracts', 'node:crypto', 'uuid', '../job', './decide', '../../domain/job']) {
      expect(forbiddenInDomain(allowed)).toBeNull();
    }
    for (const refused of [
      '@loan/provider',
      '@loan/runtime',
      '../../data-access/bureau',
      '../entry-points/consumers',
      'mongoose',
      'kafkajs',
      'axios',
      'express',
      'prom-client',
      'node:http',
      'node:net',
      'node:fs',
      'node:fs/promises',
      'fs',
    ]) {
      expect(forbiddenInDomain(refused)).not.toBeNull();
    }
  });

  it("when the top of each service's src is listed, then it holds the three layers and the wiring, and nothing else", () => {
    const problems: string[] = [];
    for (const service of services) {
      const src = join(SERVICES, service, 'src');
      const entries = readdirSync(src, { withFileTypes: true });
      const present = new Set(entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)));
      for (const required of SKELETON.required)
        if (!present.has(required)) problems.push(`services/${service}/src has no ${required}`);
      for (const entry of entries) {
        const why = outOfSkeleton(entry.name, entry.isDirectory());
        if (why) problems.push(`services/${service}/src/${entry.name} is ${why}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('when a file of a service imports, then it names no other service, by package or by path', () => {
    const violations: string[] = [];
    for (const service of services) {
      for (const file of sourceFiles(join(SERVICES, service, 'src'))) {
        for (const specifier of importsOf(file)) {
          const other = serviceNamedBy(specifier, file, services);
          if (other && other !== service) violations.push(`${relative(ROOT, file)} imports '${specifier}' (${other})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('when a file of libs/ imports, then it names no service', () => {
    expect(libs).toEqual(expect.arrayContaining(['contracts', 'provider', 'runtime']));
    const violations: string[] = [];
    for (const lib of libs) {
      for (const file of sourceFiles(join(LIBS, lib, 'src'))) {
        for (const specifier of importsOf(file)) {
          const service = serviceNamedBy(specifier, file, services);
          if (service) violations.push(`${relative(ROOT, file)} imports '${specifier}' (${service})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('when an entry of src or an import is classified, then the skeleton and the other services are told apart', () => {
    for (const [name, isDirectory] of [
      ['domain', true],
      ['data-access', true],
      ['entry-points', true],
      ['__tests__', true],
      ['config.ts', false],
      ['start.ts', false],
      ['metrics.ts', false],
      ['service.int.test.ts', false],
    ] as const) {
      expect(outOfSkeleton(name, isDirectory)).toBeNull();
    }
    for (const [name, isDirectory] of [
      ['golden', true],
      ['__fixtures__', true],
      ['utils', true],
      ['helpers.ts', false],
      ['domain', false],
    ] as const) {
      expect(outOfSkeleton(name, isDirectory)).not.toBeNull();
    }
    const inScoring = join(SERVICES, 'scoring', 'src', 'entry-points', 'consumers', 'x.ts');
    expect(serviceNamedBy('@loan/enrichment/domain', inScoring, services)).toBe('enrichment');
    expect(serviceNamedBy('@loan/applications', inScoring, services)).toBe('applications');
    expect(serviceNamedBy('../../../../enrichment/src/domain', inScoring, services)).toBe('enrichment');
    expect(serviceNamedBy('../../domain/scorecard', inScoring, services)).toBe('scoring');
    for (const shared of [
      '@loan/contracts',
      '@loan/runtime',
      '@loan/provider',
      'mongoose',
      '../../../../../libs/runtime',
    ])
      expect(serviceNamedBy(shared, inScoring, services)).toBeNull();
  });
});
