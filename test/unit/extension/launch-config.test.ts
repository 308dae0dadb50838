// launch.json → the app to start: what a VS Code user's Node configurations mean to Hotline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  nodeConfigsFromLaunchJson,
  parseEnvFile,
  substitute,
  type LaunchJsonContext,
} from '../../../src/extension/runs/launch-config.ts';

const folder = '/work/app';
const ctx = (over: Partial<LaunchJsonContext> = {}): LaunchJsonContext => ({
  folder,
  env: { HOME: '/home/u', API: 'x' },
  homeDir: '/home/u',
  ...over,
});

test('a Node launch configuration with comments and trailing commas gives program, args, cwd, env and runtimeArgs', () => {
  const text = `{
    // the usual generated file
    "version": "0.2.0",
    "configurations": [
      {
        "type": "node",
        "request": "launch",
        "name": "Launch API",
        "program": "\${workspaceFolder}/src/server.js",
        "args": ["--port", "0"],
        "cwd": "\${workspaceFolder}/src",
        "env": { "NODE_ENV": "production", "TOKEN": "\${env:API}", "DROP": null },
        "runtimeArgs": ["--max-old-space-size=512"],
      },
      { "type": "chrome", "request": "launch", "name": "Browser" },
      { "type": "node", "request": "attach", "name": "Attach" },
    ],
  }`;
  const { choices, skipped } = nodeConfigsFromLaunchJson(text, ctx());
  assert.deepEqual(skipped, []);
  assert.equal(choices.length, 1, 'browser and attach configurations are not apps to start');
  const spec = choices[0].spec;
  assert.equal(choices[0].label, 'Launch API');
  assert.equal(spec.entry, path.join(folder, 'src/server.js'));
  assert.equal(spec.cwd, path.join(folder, 'src'));
  assert.deepEqual(spec.args, ['--port', '0']);
  assert.deepEqual(spec.runtimeArgs, ['--max-old-space-size=512']);
  assert.deepEqual(spec.env, { NODE_ENV: 'production', TOKEN: 'x', DROP: undefined });
  assert.equal(spec.nodePath, undefined);
});

test('a relative program is relative to cwd; pwa-node counts as node; a node runtimeExecutable is kept', () => {
  const text = JSON.stringify({
    configurations: [
      {
        type: 'pwa-node',
        request: 'launch',
        name: 'n',
        program: 'index.js',
        runtimeExecutable: '/opt/node22/bin/node',
      },
    ],
  });
  const [choice] = nodeConfigsFromLaunchJson(text, ctx()).choices;
  assert.equal(choice.spec.entry, path.join(folder, 'index.js'));
  assert.equal(choice.spec.nodePath, '/opt/node22/bin/node');
});

test('an npm runtimeExecutable runs the package.json script when it is a node command', () => {
  const text = JSON.stringify({
    configurations: [
      {
        type: 'node',
        request: 'launch',
        name: 'npm start',
        runtimeExecutable: 'npm',
        runtimeArgs: ['run-script', 'start'],
      },
    ],
  });
  const { choices } = nodeConfigsFromLaunchJson(
    text,
    ctx({ npmScript: (_cwd, name) => (name === 'start' ? 'NODE_ENV=production node server.js --verbose' : undefined) }),
  );
  assert.equal(choices[0].spec.entry, 'server.js');
  assert.deepEqual(choices[0].spec.args, ['--verbose']);
  assert.equal(choices[0].spec.env?.NODE_ENV, 'production');
});

test('configurations Hotline cannot start are skipped with the reason', () => {
  const text = JSON.stringify({
    configurations: [
      { type: 'node', request: 'launch', name: 'no program' },
      { type: 'node', request: 'launch', name: 'file var', program: '${file}' },
    ],
  });
  const { choices, skipped } = nodeConfigsFromLaunchJson(text, ctx());
  assert.equal(choices.length, 0);
  assert.equal(skipped.length, 2);
  assert.match(skipped[0], /no "program"/);
  assert.match(skipped[1], /\$\{file\}/);
});

test('a runtimeExecutable that is not node, or an npm script that is not plain node, runs as a command line', () => {
  const text = JSON.stringify({
    configurations: [
      {
        type: 'node',
        request: 'launch',
        name: 'tsx',
        runtimeExecutable: 'tsx',
        runtimeArgs: ['watch'],
        program: '${workspaceFolder}/src/a b.ts',
        args: ['--port', '3000'],
      },
      {
        type: 'node',
        request: 'launch',
        name: 'nodemon script',
        runtimeExecutable: 'npm',
        runtimeArgs: ['run', 'dev'],
      },
    ],
  });
  const { choices, skipped } = nodeConfigsFromLaunchJson(text, ctx({ npmScript: () => 'nodemon server.js' }));
  assert.deepEqual(skipped, []);
  const folder = ctx().folder;
  assert.equal(choices[0].spec.command, `tsx watch '${folder}/src/a b.ts' --port 3000`);
  assert.equal(choices[1].spec.command, 'nodemon server.js');
  assert.equal(choices[1].spec.script, 'dev');
});

test('an envFile is read and env entries override it', () => {
  const text = JSON.stringify({
    configurations: [
      {
        type: 'node',
        request: 'launch',
        name: 'e',
        program: 'a.js',
        envFile: '${workspaceFolder}/.env',
        env: { B: '2' },
      },
    ],
  });
  const seen: string[] = [];
  const { choices } = nodeConfigsFromLaunchJson(
    text,
    ctx({
      readEnvFile: (f) => {
        seen.push(f);
        return 'A=1\nB=1\n';
      },
    }),
  );
  assert.deepEqual(seen, [path.join(folder, '.env')]);
  assert.deepEqual(choices[0].spec.env, { A: '1', B: '2' });
  const missing = nodeConfigsFromLaunchJson(text, ctx({ readEnvFile: () => undefined }));
  assert.match(missing.skipped[0], /envFile .* cannot be read/);
});

test('a broken launch.json gives no choices, never throws', () => {
  assert.deepEqual(nodeConfigsFromLaunchJson('{ "configurations": 3 }', ctx()).choices, []);
  assert.deepEqual(nodeConfigsFromLaunchJson('not json at all', ctx()).choices, []);
  assert.deepEqual(nodeConfigsFromLaunchJson('', ctx()).choices, []);
});

test('variables: workspace folder, basename, home and env; others refused', () => {
  assert.equal(substitute('${workspaceFolder}/a', ctx()), '/work/app/a');
  assert.equal(substitute('${workspaceFolderBasename}', ctx()), 'app');
  assert.equal(substitute('${userHome}/x', ctx()), '/home/u/x');
  assert.equal(substitute('${env:MISSING}', ctx()), '');
  assert.throws(() => substitute('${command:pickProcess}', ctx()), /command:pickProcess/);
});

test('env files: comments, export, quotes, inline comments', () => {
  assert.deepEqual(parseEnvFile('# c\nexport A=1\nB="two words"\nC=3 # note\nD=\'x#y\'\nbad line\n'), {
    A: '1',
    B: 'two words',
    C: '3',
    D: 'x#y',
  });
});
