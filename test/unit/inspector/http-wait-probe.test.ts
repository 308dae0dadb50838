// The wait probe's HTTP part (src/core/inspector/wait-probe.ts) run in this very process, on a
// real server on 127.0.0.1 that answers after 30 ms: an http.get and a fetch are noted on the
// lines that made them, with their targets, each waiting at least the delay; and taking the probe
// puts http.Agent back and leaves no diagnostics-channel subscriber: the app is left as found.
import assert from 'node:assert/strict';
import * as dc from 'node:diagnostics_channel';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { startWaitProbe, takeWaitTrace } from '../../../src/core/inspector/wait-probe.ts';
import { markedLine, REPO_ROOT } from '../../helpers/integration.ts';

const DELAY_MS = 30;
/** `addRequest` is Node's, not in @types/node: what the probe wraps. */
const agentProto = http.Agent.prototype as unknown as { addRequest: unknown };
const CALLS_JS = path.join(REPO_ROOT, 'test', 'helpers', 'http-calls.cjs');
const calls = createRequire(__filename)(CALLS_JS) as {
  getOnce(url: string): Promise<void>;
  fetchOnce(url: string): Promise<string>;
};
const evaluate = async (expression: string): Promise<unknown> => (0, eval)(expression);
const CHANNELS = [
  'http.client.response.finish',
  'http.client.request.error',
  'undici:request:create',
  'undici:request:trailers',
  'undici:request:error',
];

test('http.get and fetch: noted on their lines with their targets, and the app left as found', async (t) => {
  const server = http.createServer((_req, res) => setTimeout(() => res.end('ok'), DELAY_MS));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const addRequest = agentProto.addRequest;

  await startWaitProbe(evaluate);
  assert.notEqual(agentProto.addRequest, addRequest, 'the probe is on');
  await calls.getOnce(`http://127.0.0.1:${port}/`);
  await calls.fetchOnce(`http://127.0.0.1:${port}/`);
  const trace = await takeWaitTrace(evaluate);

  assert.equal(agentProto.addRequest, addRequest, 'http.Agent is put back');
  for (const name of CHANNELS) assert.equal(dc.hasSubscribers(name), false, `no subscriber left on ${name}`);
  assert.ok(trace);
  const noted = trace.requests
    .filter(([, type]) => /^(http|fetch):/.test(trace.types[type]))
    .map(([site, type, made, done]) => ({
      type: trace.types[type],
      site: trace.sites[site],
      ms: (done - made) / 1000,
    }));
  assert.deepEqual(
    noted.map((c) => c.type),
    [`http:GET 127.0.0.1:${port}`, `fetch:GET 127.0.0.1:${port}`],
  );
  assert.deepEqual(
    noted.map((c) => [c.site?.[0], c.site?.[1]]),
    [
      [CALLS_JS, markedLine(CALLS_JS, 'GET LINE')],
      [CALLS_JS, markedLine(CALLS_JS, 'FETCH LINE')],
    ],
  );
  for (const c of noted) assert.ok(c.ms >= DELAY_MS * 0.9, `${c.type} waited ${c.ms} ms`);
});
