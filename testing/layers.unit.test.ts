import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The skeleton every service promises (README, "Each service is one process with the same
 * skeleton"): `domain/` is pure, and a service's message handlers are found in
 * `src/entry-points/consumers/`, mapped topic -> handler in its `index.ts`. Read from the
 * source tree; nothing is run.
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
});
