// Windows that got very different CPU (verdicts/window-cpu.ts): their req/s are not set side by
// side as the profiler's cost; the report names both windows' cores instead. The captured
// login-api run, its profiled window's CPU edited to what a busy machine gave (issue 24: 0.49
// cores measured, 0.97 profiled).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { windowsCpuApart } from '../../../src/core/verdicts/window-cpu.ts';
import { renderReport } from '../../../src/cli/render.ts';
import { FIXTURES_DIR, fixtureReport } from '../../helpers/fixtures.ts';

test('0.49 cores measured, 0.97 profiled: named, and no req/s change printed for the profiler', () => {
  const r = structuredClone(fixtureReport('login-api', 'a'));
  r.eventLoop = { ...r.eventLoop!, cpu: 0.49, profiled: { ...r.eventLoop!.profiled!, cpu: 0.97 } };
  assert.deepEqual(windowsCpuApart(r), { measured: 0.49, profiled: 0.97 });
  const text = renderReport(r, { cwd: FIXTURES_DIR, color: false });
  assert.match(
    text,
    /against profiler off: req\/s not compared: the app got 0\.49 cores in the measured window and 0\.97 in the profiled one/,
  );
});

test('close CPU (0.90 and 0.97): compared as before; unknown CPU: nothing said', () => {
  const r = structuredClone(fixtureReport('login-api', 'a'));
  r.eventLoop = { ...r.eventLoop!, cpu: 0.9, profiled: { ...r.eventLoop!.profiled!, cpu: 0.97 } };
  assert.equal(windowsCpuApart(r), undefined);
  assert.match(renderReport(r, { cwd: FIXTURES_DIR, color: false }), /against profiler off: req\/s [+−]\d/);
  assert.equal(windowsCpuApart({ eventLoop: undefined }), undefined);
});
