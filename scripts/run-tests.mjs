// Runs `node --test …` within an outer time limit:  node scripts/run-tests.mjs MINUTES <node args…>
//
// Node's --test-timeout bounds each test, but a test file that leaves a handle open keeps its
// process alive after its last test, and the runner waits for it for ever. --test-force-exit ends
// it, but drops results from the report (nodejs/node#54327; here 416 of 418 unit tests were
// reported once, with exit code 0). So the tests run without it, in a process group of their own,
// and this script stops the whole group (the apps, load generators and browsers the tests started
// too) when the limit passes or when it is interrupted, and says why.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

const [minutes, ...nodeArgs] = process.argv.slice(2);
const limitMs = Number(minutes) * 60_000;
if (!(limitMs > 0) || nodeArgs.length === 0) {
  console.error('usage: node scripts/run-tests.mjs MINUTES <node args…>');
  process.exit(2);
}

// A group of its own: a stop reaches every process the tests started (not on Windows, where the
// child alone is stopped).
const ownGroup = process.platform !== 'win32';
const tests = spawn(process.execPath, nodeArgs, { stdio: 'inherit', detached: ownGroup });

/** Signals the tests' process group; false once nothing of it is left. */
function signalGroup(signal) {
  try {
    if (ownGroup) process.kill(-tests.pid, signal);
    else tests.kill(signal);
    return true;
  } catch {
    return false;
  }
}

function stop(signal) {
  signalGroup(signal);
  setTimeout(() => signalGroup('SIGKILL'), 10_000).unref();
}

let timedOut = false;
const limit = setTimeout(() => {
  timedOut = true;
  console.error(
    `\n✖ the tests did not end within ${minutes} min (a test hung, or left a handle open after its last test): stopped.`,
  );
  stop('SIGTERM');
}, limitMs);

// Ctrl-C reaches this script (the terminal's foreground group), not the tests' own group: pass it on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));

/**
 * Whether a process of the tests' group still runs. From /proc where there is one: a killed
 * process whose parent died first stays a zombie until it is reaped, and signal 0 still reaches it.
 */
function groupRuns() {
  if (!fs.existsSync('/proc/self/stat')) return signalGroup(0);
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after its last ')'.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === tests.pid && state !== 'Z') return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

tests.on('exit', (code, signal) => {
  clearTimeout(limit);
  const status = timedOut ? 1 : (code ?? (signal ? 128 : 1));
  // What a test started and left running goes too, and is named (a browser's helpers may take a
  // moment to follow it out: a second's grace).
  setTimeout(() => {
    if (ownGroup && groupRuns()) {
      console.error('note: processes the tests started were still running a second after them: stopped.');
      signalGroup('SIGKILL');
    }
    process.exit(status);
  }, 1000);
});
