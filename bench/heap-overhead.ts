// What allocation sampling (--heap) costs the app, measured in one app process under one load:
// windows of the same length alternate between heap sampling off and on (off, on, on, off, off,
// on, … so neither side always comes first), after a warm-up; nothing else changes (no CPU
// profiler). Prints each window and the ratio of mean req/s with sampling to without (1.00 = free).
// Writes bench/out/heap-overhead.json.
//
//   node --import tsx bench/heap-overhead.ts [--app test/apps/heap-app] [--url /rows] [--windows 8] [--window-s 3] [--interval BYTES]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { AppProcess } from '../src/core/app/launch.ts';
import { InspectorSession } from '../src/core/inspector/session.ts';
import { LoadRun } from '../src/core/load/load-run.ts';
import { DEFAULT_HEAP_INTERVAL_BYTES } from '../src/core/capture/extras/extras.ts';
import { freePort } from '../src/core/app/ports.ts';

const REPO = path.resolve(__dirname, '..');
const { values } = parseArgs({
  options: {
    app: { type: 'string', default: 'test/apps/heap-app' },
    entry: { type: 'string', default: 'server.js' },
    url: { type: 'string', default: '/rows' },
    windows: { type: 'string', default: '8' },
    'window-s': { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    interval: { type: 'string', default: String(DEFAULT_HEAP_INTERVAL_BYTES) },
    method: { type: 'string', default: 'GET' },
    body: { type: 'string' },
    header: { type: 'string', multiple: true },
  },
});

const sleep = (s: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, s * 1000));

async function main(): Promise<void> {
  const cwd = path.resolve(REPO, values.app!);
  const port = await freePort();
  const { app, inspectorUrl } = await AppProcess.start({ cwd, entry: values.entry!, env: { PORT: String(port) } });
  const inspector = await InspectorSession.connect(inspectorUrl);
  let load: LoadRun | undefined;
  try {
    const listening = new Promise<void>((resolve) => inspector.onListening(() => resolve()));
    await inspector.release();
    await listening;
    const headers = Object.fromEntries(
      (values.header ?? []).map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1)]),
    );
    load = await LoadRun.start({
      url: `http://127.0.0.1:${port}${values.url}`,
      method: values.method!,
      headers,
      body: values.body,
      connections: Number(values.connections),
      pipelining: 1,
      timeoutS: 10,
      maxDurationS: 600,
    });
    await sleep(3); // warm-up
    const windowS = Number(values['window-s']);
    const rows: Array<{ heap: boolean; perSecond: number }> = [];
    for (let i = 0; i < Number(values.windows); i++) {
      const heap = [false, true, true, false][i % 4];
      if (heap) await inspector.startHeapSampling(Number(values.interval));
      await load.switchPhase('measured');
      await sleep(windowS);
      const r = await load.switchPhase('warmup');
      if (heap) await inspector.stopHeapSampling();
      rows.push({ heap, perSecond: r.requests.perSecond });
      console.log(`${heap ? 'heap on ' : 'heap off'}  ${r.requests.perSecond.toFixed(1)} req/s`);
    }
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const on = mean(rows.filter((r) => r.heap).map((r) => r.perSecond));
    const off = mean(rows.filter((r) => !r.heap).map((r) => r.perSecond));
    console.log(
      `mean req/s: off ${off.toFixed(1)}, on ${on.toFixed(1)}; with heap sampling ÷ without = ${(on / off).toFixed(3)}`,
    );
    fs.mkdirSync(path.join(REPO, 'bench', 'out'), { recursive: true });
    fs.writeFileSync(
      path.join(REPO, 'bench', 'out', 'heap-overhead.json'),
      JSON.stringify(
        { app: values.app, url: values.url, intervalBytes: Number(values.interval), rows, off, on, ratio: on / off },
        null,
        1,
      ),
    );
  } finally {
    load?.kill();
    await inspector.close();
    await app.stop();
  }
}

void main().catch((err: Error) => {
  console.error(err.message);
  process.exitCode = 1;
});
