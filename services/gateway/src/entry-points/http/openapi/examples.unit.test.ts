import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { BUILTIN_POLICY, SCORE_BREAKDOWN_MAX } from '@loan/contracts';
import { parse } from 'yaml';
import { adminOperations, auditOperations, providerOperations } from './adminApi';
import { adminDocument, lenderDocument } from './document';
import { lenderOperations, lenderWebhooks } from './lenderApi';

/**
 * Every example of the published documents (the lender and operator OpenAPI documents, the
 * AsyncAPI document of the topics) is valid for the schema it illustrates, and holds to the real
 * ranges: a score is 0-100 and equals its breakdown's total, each part within the scorecard's
 * maximum, the band the one of the score.
 */

type Zod = { safeParse(value: unknown): { success: boolean; error?: unknown } };
type Content = Record<string, { schema?: unknown; example?: unknown; examples?: Record<string, { value?: unknown }> }>;

/** Each example of a route table, by where the generated document puts it, with the zod schema it illustrates. */
function examplesOfRoutes(routes: RouteConfig[], section: 'paths' | 'webhooks') {
  const found = new Map<string, { schema: unknown; example: unknown }>();
  const add = (where: string, content: Content | undefined) => {
    for (const [mediaType, body] of Object.entries(content ?? {})) {
      if (body.example !== undefined)
        found.set(`${where} ${mediaType} example`, { schema: body.schema, example: body.example });
      for (const [name, one] of Object.entries(body.examples ?? {})) {
        found.set(`${where} ${mediaType} examples.${name}`, { schema: body.schema, example: one.value });
      }
    }
  };
  for (const route of routes) {
    const at = `${section} ${route.path} ${route.method}`;
    add(`${at} request`, route.request?.body?.content as Content | undefined);
    for (const [status, response] of Object.entries(route.responses)) {
      add(`${at} ${status}`, (response as { content?: Content }).content);
    }
  }
  return found;
}

/** Where each example of a generated document is, in the same terms. */
function examplesOfDocument(document: { paths?: object; webhooks?: object }) {
  const found: string[] = [];
  const add = (where: string, content: Content | undefined) => {
    for (const [mediaType, body] of Object.entries(content ?? {})) {
      if (body.example !== undefined) found.push(`${where} ${mediaType} example`);
      for (const name of Object.keys(body.examples ?? {})) found.push(`${where} ${mediaType} examples.${name}`);
    }
  };
  for (const section of ['paths', 'webhooks'] as const) {
    for (const [route, methods] of Object.entries(document[section] ?? {})) {
      for (const [method, operation] of Object.entries(
        methods as Record<
          string,
          { requestBody?: { content?: Content }; responses?: Record<string, { content?: Content }> }
        >,
      )) {
        add(`${section} ${route} ${method} request`, operation.requestBody?.content);
        for (const [status, response] of Object.entries(operation.responses ?? {}))
          add(`${section} ${route} ${method} ${status}`, response.content);
      }
    }
  }
  return found;
}

const BREAKDOWN_PARTS = Object.keys(SCORE_BREAKDOWN_MAX) as (keyof typeof SCORE_BREAKDOWN_MAX)[];
const BAND_THRESHOLDS = BUILTIN_POLICY.bands.thresholds;

/** The band of a total score, as the built-in policy draws them. */
const bandOf = (score: number) =>
  score >= BAND_THRESHOLDS.LOW_RISK
    ? 'LOW_RISK'
    : score >= BAND_THRESHOLDS.MEDIUM_RISK
      ? 'MEDIUM_RISK'
      : score >= BAND_THRESHOLDS.HIGH_RISK
        ? 'HIGH_RISK'
        : 'VERY_HIGH_RISK';

/** What in an example is out of the real ranges, as `path: problem`. */
function outOfRange(value: unknown, at = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => outOfRange(item, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const problems: string[] = [];
  const score = object.score;
  if (typeof score === 'number') {
    if (score < 0 || score > 100) problems.push(`${at}.score: ${score} is not within 0-100`);
    if (typeof object.score_band === 'string' && object.score_band !== bandOf(score)) {
      problems.push(`${at}.score_band: ${object.score_band} is not the band of a score of ${score} (${bandOf(score)})`);
    }
  }
  const breakdown = object.score_breakdown as Record<string, number> | undefined;
  if (breakdown && typeof breakdown === 'object') {
    for (const part of BREAKDOWN_PARTS) {
      const points = breakdown[part];
      if (typeof points !== 'number' || points < 0 || points > SCORE_BREAKDOWN_MAX[part]) {
        problems.push(`${at}.score_breakdown.${part}: ${points} is not within 0-${SCORE_BREAKDOWN_MAX[part]}`);
      }
    }
    const sum = BREAKDOWN_PARTS.reduce((total, part) => total + (breakdown[part] ?? 0), 0);
    if (Math.abs(sum - breakdown.total!) > 0.01)
      problems.push(`${at}.score_breakdown.total: ${breakdown.total} is not the sum of its parts (${sum})`);
    if (typeof score === 'number' && score !== breakdown.total)
      problems.push(`${at}.score: ${score} is not its breakdown's total (${breakdown.total})`);
  }
  for (const [key, inner] of Object.entries(object)) problems.push(...outOfRange(inner, `${at}.${key}`));
  return problems;
}

const ROOT = path.resolve(__dirname, '../../../../../..');

describe('every example of the documents', () => {
  const documents = [
    [
      'lender',
      lenderDocument('http://localhost'),
      [...examplesOfRoutes(lenderOperations, 'paths'), ...examplesOfRoutes(lenderWebhooks, 'webhooks')],
    ],
    [
      'operator',
      adminDocument('http://localhost'),
      [...examplesOfRoutes([...adminOperations, ...auditOperations, ...providerOperations], 'paths')],
    ],
  ] as const;

  it.each(documents)(
    'when the %s OpenAPI document is published, then each of its examples is read with the schema it illustrates',
    (_name, document, fromRoutes) => {
      const known = new Map(fromRoutes);
      const inDocument = examplesOfDocument(document as never);
      expect(inDocument.length).toBeGreaterThan(10);
      expect(inDocument.filter((where) => !known.has(where))).toEqual([]);
    },
  );

  it.each(documents)(
    'when the %s OpenAPI document is published, then every example is valid for its schema and within the real ranges',
    (_name, _document, fromRoutes) => {
      const invalid: string[] = [];
      for (const [where, { schema, example }] of fromRoutes) {
        const zod = schema as Partial<Zod> | undefined;
        if (typeof zod?.safeParse !== 'function') {
          invalid.push(`${where}: no schema to read it with`);
          continue;
        }
        const parsed = zod.safeParse(example);
        if (!parsed.success) invalid.push(`${where}: ${String(parsed.error)}`);
        invalid.push(...outOfRange(example).map((problem) => `${where}: ${problem}`));
      }
      expect(invalid).toEqual([]);
    },
  );

  it('when the AsyncAPI document of the topics is published, then any example it carries is within the real ranges', () => {
    const asyncapi = parse(readFileSync(path.join(ROOT, 'deploy/asyncapi.yaml'), 'utf8')) as unknown;
    const examples: unknown[] = [];
    const collect = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(collect);
      if (node === null || typeof node !== 'object') return;
      for (const [key, inner] of Object.entries(node)) {
        if (key === 'example') examples.push(inner);
        else if (key === 'examples' && Array.isArray(inner)) examples.push(...inner);
        else collect(inner);
      }
    };
    collect(asyncapi);
    expect(examples.flatMap((example) => outOfRange(example))).toEqual([]);
  });

  it('when an example scores out of range, then the check names it', () => {
    expect(
      outOfRange({
        data: {
          score: 742,
          decision: {
            score: 89.2,
            score_band: 'MEDIUM_RISK',
            score_breakdown: {
              total: 89.2,
              cash_flow_health: 18.4,
              income_stability: 17.2,
              debt_service_capacity: 22.1,
              account_behavior: 19,
              credit_history: 12.5,
            },
          },
        },
        items: [
          {
            score: 90,
            score_breakdown: {
              total: 90,
              cash_flow_health: 30,
              income_stability: 20,
              debt_service_capacity: 20,
              account_behavior: 10,
              credit_history: 10,
            },
          },
        ],
      }),
    ).toEqual([
      '$.data.score: 742 is not within 0-100',
      '$.data.decision.score_band: MEDIUM_RISK is not the band of a score of 89.2 (LOW_RISK)',
      '$.items[0].score_breakdown.cash_flow_health: 30 is not within 0-20',
    ]);
  });
});
