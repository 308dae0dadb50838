// Installs the demo apps' and the test apps' own dependencies (start commands, data stores; each
// has its own lock file, pinned versions) when they are missing, so `npm test` and `npm run demo`
// work on a fresh clone.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
for (const app of ['examples/login-api', 'test/apps/start-commands', 'test/apps/datastores']) {
  if (existsSync(join(app, 'node_modules'))) continue;
  process.stderr.write(`installing ${app} dependencies\n`);
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--prefix', app], { stdio: 'inherit' });
}
