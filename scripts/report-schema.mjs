// report.json's JSON Schema (dist/report.schema.json), generated from the report's TypeScript types
// (ReportV1 in src/core/report/schema.ts) by ts-json-schema-generator. `npm run build` writes it
// (esbuild.mjs); generating takes 2–3 s, so it is skipped while the types' files are unchanged: their
// hash is kept in the schema's $comment. `node scripts/report-schema.mjs` writes it alone.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const SCHEMA_SOURCE = 'src/core/report/schema.ts';
export const SCHEMA_FILE = 'dist/report.schema.json';

/** schema.ts and the files of this checkout it imports, transitively: what the schema depends on. */
export function inputsOf(file = path.join(ROOT, SCHEMA_SOURCE), seen = new Set()) {
  if (seen.has(file)) return [...seen];
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g))
    inputsOf(path.resolve(path.dirname(file), m[1]), seen);
  return [...seen].sort();
}

/** What a schema was made from: the generator's version, this script and the types' files. */
function inputsHash() {
  const hash = createHash('sha256');
  const generator = createRequire(import.meta.url)('ts-json-schema-generator/package.json').version;
  hash.update(`ts-json-schema-generator@${generator}\n`);
  for (const f of [fileURLToPath(import.meta.url), ...inputsOf()])
    hash.update(`${path.relative(ROOT, f)}\n`).update(readFileSync(f));
  return hash.digest('hex').slice(0, 16);
}

/** The schema, generated now. Objects allow fields beyond the listed ones: report.json adds fields within a version. */
export async function generateReportSchema(hash = inputsHash()) {
  const { createGenerator } = await import('ts-json-schema-generator');
  const schema = createGenerator({
    path: path.join(ROOT, SCHEMA_SOURCE),
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    type: 'ReportV1',
    skipTypeCheck: true, // typecheck is its own step; here it would double the time
    additionalProperties: true,
  }).createSchema('ReportV1');
  return {
    $schema: schema.$schema,
    title: 'Hotline report.json, version 1',
    $comment: `Generated from ${SCHEMA_SOURCE} (ReportV1) by scripts/report-schema.mjs; inputs ${hash}.`,
    ...schema,
  };
}

/** Writes dist/report.schema.json unless the one there was made from the same inputs. */
export async function writeReportSchema() {
  const out = path.join(ROOT, SCHEMA_FILE);
  const hash = inputsHash();
  if (existsSync(out) && JSON.parse(readFileSync(out, 'utf8')).$comment?.endsWith(`inputs ${hash}.`)) return false;
  const schema = await generateReportSchema(hash);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(schema, null, 2)}\n`);
  return true;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeReportSchema().then(
    (wrote) => process.stdout.write(`${wrote ? 'wrote' : 'unchanged:'} ${SCHEMA_FILE}\n`),
    (err) => {
      process.stderr.write(`${err.stack ?? err}\n`);
      process.exitCode = 1;
    },
  );
}
