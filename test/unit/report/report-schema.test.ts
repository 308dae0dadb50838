// report.json's JSON Schema (scripts/report-schema.mjs, generated from ReportV1's types) accepts real
// reports: the recorded runs' and the current analysis's of them. Checked twice: as shipped (fields
// beyond the listed ones allowed, as report.json adds fields within a version), and closed (no
// field the types do not declare), so a report and its types cannot drift apart unseen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
// @ts-expect-error a plain .mjs script without declarations
import { generateReportSchema, inputsOf, SCHEMA_SOURCE } from '../../../scripts/report-schema.mjs';
import { analyzeRunDir } from '../../../src/core/index.ts';
import { recordedReport, recordedRun, removeRecordedRuns, type Recording } from '../../helpers/recorded.ts';

const RECORDINGS: Recording[] = ['login-sync', 'login-async', 'stall-timeline', 'worker-app', 'heap-app'];

type Schema = Record<string, unknown>;

/** The schema with every object closed: a field the types do not name is an error. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)])) as Schema;
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

let shipped: ValidateFunction;
let strict: ValidateFunction;

before(async () => {
  const schema = (await generateReportSchema()) as Schema;
  shipped = new Ajv({ allErrors: true }).compile(schema);
  strict = new Ajv({ allErrors: true }).compile(closed(schema) as Schema);
});
after(removeRecordedRuns);

const problems = (v: ValidateFunction): string =>
  (v.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');

function assertValid(report: unknown, what: string): void {
  assert.ok(shipped(report), `${what} against the schema:\n${problems(shipped)}`);
  assert.ok(strict(report), `${what}: fields the types do not declare:\n${problems(strict)}`);
}

for (const name of RECORDINGS) {
  test(`the recorded run ${name}'s report.json fits the schema`, () => {
    assertValid(recordedReport(name), name);
  });
}

for (const name of ['worker-app', 'heap-app'] as const) {
  test(`${name} analyzed again by this engine: its report fits the schema`, () => {
    const dir = recordedRun(name);
    assertValid(analyzeRunDir(dir, recordedReport(name).app.cwd), `${name}, analyzed now`);
  });
}

test('the schema refuses a report that is not one: a wrong type, a renamed field', () => {
  const report = structuredClone(recordedReport('login-sync')) as unknown as Record<string, unknown>;
  const wrongType = structuredClone(report);
  (wrongType.load as { requests: { total: unknown } }).requests.total = '1200';
  assert.equal(shipped(wrongType), false);
  assert.match(problems(shipped), /\/load\/requests\/total must be number/);
  const renamed = structuredClone(report);
  renamed.funcs = renamed.functions;
  delete renamed.functions;
  assert.equal(shipped(renamed), false, 'functions is required');
  const extra = { ...report, notInTheTypes: 1 };
  assert.equal(shipped(extra), true, 'v1 readers accept fields added later');
  assert.equal(strict(extra), false);
});

test("the schema's inputs are schema.ts and the model it imports (a change to either regenerates it)", () => {
  const root = path.resolve(__dirname, '../../..');
  const inputs = (inputsOf() as string[]).map((f) => path.relative(root, f));
  assert.ok(inputs.includes(SCHEMA_SOURCE as string), inputs.join(', '));
  assert.ok(inputs.includes('src/core/analysis/model.ts'), inputs.join(', '));
  for (const f of inputs) assert.ok(fs.existsSync(path.join(root, f)), f);
});
