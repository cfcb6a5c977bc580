import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/**
 * docker-compose.yml as Docker Compose reads it, with nothing set in the environment: each
 * service's environment (`${VAR:-default}` resolved to its default, YAML merge keys applied)
 * and how its container runs. The wiring test replays the environment on plain processes; the
 * container tier runs the images with it.
 */
const ROOT = path.resolve(__dirname, '..');

export interface ComposeService {
  name: string;
  image?: string;
  env: Record<string, string>;
  readOnly: boolean;
  tmpfs: string[];
  init: boolean;
  capDrop: string[];
  securityOpt: string[];
  /** `mem_limit` in bytes. */
  memLimit?: number;
  /** The healthcheck's command, `CMD` or `CMD-SHELL` first as compose writes it. */
  healthcheck?: string[];
  stopGracePeriod?: string;
  entrypoint?: string[];
  /** The profiles that start it (`--profile`); none: `up` starts it by default. */
  profiles: string[];
}

/** `${VAR}`, `${VAR:-default}` and `${VAR-default}` with nothing set in the environment. */
export const interpolate = (value: string) =>
  value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_m, _name: string, fallback?: string) => fallback ?? '');

const bytes = (size: string) => {
  const m = /^(\d+)([kmg]?)b?$/i.exec(size.trim());
  if (!m) throw new Error(`unreadable mem_limit ${size}`);
  return Number(m[1]) * { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
};

export function composeServices(file = path.join(ROOT, 'docker-compose.yml')): ComposeService[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- compose's schema is wide; the fields read are checked below
  const doc = YAML.parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, any> };
  return Object.entries(doc.services).map(([name, svc]) => {
    const raw = svc.environment ?? {};
    const pairs: string[][] = Array.isArray(raw)
      ? raw.map((line: string) => line.split(/=(.*)/s).slice(0, 2))
      : Object.entries(raw);
    const env = Object.fromEntries(pairs.map(([k, v]) => [String(k), interpolate(String(v ?? ''))]));
    const list = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
    return {
      name,
      image: svc.image === undefined ? undefined : interpolate(String(svc.image)),
      env,
      readOnly: svc.read_only === true,
      tmpfs: list(svc.tmpfs),
      init: svc.init === true,
      capDrop: list(svc.cap_drop),
      securityOpt: list(svc.security_opt),
      memLimit: svc.mem_limit === undefined ? undefined : bytes(String(svc.mem_limit)),
      healthcheck: svc.healthcheck?.test === undefined ? undefined : list(svc.healthcheck.test),
      stopGracePeriod: svc.stop_grace_period === undefined ? undefined : String(svc.stop_grace_period),
      entrypoint: svc.entrypoint === undefined ? undefined : list(svc.entrypoint),
      profiles: list(svc.profiles),
    };
  });
}
