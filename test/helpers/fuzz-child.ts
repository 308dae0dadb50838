// One fuzzing process (test/fuzz/fuzz.test.ts forks two): builds its workspace of traps and
// loads the fixtures once, then runs the cases it is sent, one at a time, and answers each with
// its outcome. A case that hangs or kills this process is detected by the parent, which starts
// a fresh one. argv[2]: this process' own temporary folder.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generate, loadFixtureData, makeWorkspace, runCase, type CaseResult, type RunContext } from './fuzz-gen.ts';

export interface CaseRequest {
  id: number;
  seed: number;
  family: string;
  index: number;
}

export interface CaseReply {
  id: number;
  result: CaseResult;
  ms: number;
}

const base = process.argv[2];
const caseDirs: string[] = [];
const scratch = path.join(base, 'scratch');
fs.mkdirSync(scratch, { recursive: true });
const ctx: RunContext = {
  fixtures: loadFixtureData(),
  ws: makeWorkspace(base),
  scratch,
  newDir: () => {
    const dir = fs.mkdtempSync(path.join(base, 'case-'));
    caseDirs.push(dir);
    return dir;
  },
};

process.on('message', (req: CaseRequest) => {
  const t = performance.now();
  let result: CaseResult;
  try {
    const input = generate(req.seed, req.family, req.index, ctx);
    // Said before running, so a case that hangs or kills this process can still be described.
    process.send!({ started: req.id, note: input.note });
    result = runCase(input, ctx);
  } catch (err) {
    // The harness itself failed (the generator threw): report it, it is not a pass.
    const e = err as Error;
    result = {
      outcome: 'crash',
      type: 'fuzzer',
      note: 'the generator or runner threw',
      message: String(e?.message ?? e),
      stack: String(e?.stack ?? ''),
    };
  }
  for (const dir of caseDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  const reply: CaseReply = { id: req.id, result, ms: performance.now() - t };
  process.send!(reply);
});

process.send!({ ready: true });
