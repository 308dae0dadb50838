// The port Hotline gives an app it starts (src/core/app/ports.ts freePort): free, and on Linux
// below the kernel's ephemeral range, where no outgoing connection takes it meanwhile.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { test } from 'node:test';
import { ephemeralLow, firstFree, freePort } from '../../../src/core/app/ports.ts';

test('freePort: a port an app can listen on, below the ephemeral range where Linux has one', async () => {
  const low = ephemeralLow();
  for (let i = 0; i < 10; i++) {
    const port = await freePort();
    if (low !== undefined) assert.ok(port >= 10_000 && port < low, `${port} not in [10000, ${low})`);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  }
});

test('firstFree: a port something listens on is passed over', async () => {
  const held = net.createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => held.listen(port, '127.0.0.1', resolve));
  try {
    const other = await freePort();
    assert.equal(await firstFree([port, other]), other);
    assert.equal(await firstFree([port]), undefined);
  } finally {
    await new Promise((resolve) => held.close(resolve));
  }
});
