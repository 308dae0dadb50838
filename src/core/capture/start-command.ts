// Starting the app by a command line (app/command.ts): its Node processes open their inspector
// once they listen, the first to report is the app (the one on PORT among servers opened
// together), later ones are its children. The app already runs when the session connects:
// nothing is awaited before it.
import { type ChildInspector, ChildInspectors, CommandApp } from '../app/index.ts';
import { InspectorSession, nodeVersionOf } from '../inspector/index.ts';
import { RunError } from '../common/index.ts';
import { RUN_DEFAULTS } from './run-settings.ts';
import type { RunControl } from './run-control.ts';
import { checkReachable, childProfilers, type StartedApp } from './started-app.ts';

export async function startCommand(run: RunControl, port: number, command: string): Promise<StartedApp> {
  const target = run.opts.target;
  run.progress('starting', `running ${command}`);
  const children = ChildInspectors.create();
  run.disposers.push(() => children.dispose());
  const base = target.env && 'NODE_OPTIONS' in target.env ? target.env.NODE_OPTIONS : process.env.NODE_OPTIONS;
  // Flags for node itself go to every Node process the command starts.
  const nodeOptions = [withoutInspectorFlags(base), ...(target.runtimeArgs ?? [])].filter(Boolean).join(' ');
  const app = CommandApp.start({
    cwd: target.cwd,
    command,
    script: target.script,
    nodePath: target.nodePath,
    env: { PORT: String(port), ...(target.env ?? {}), ...children.env(nodeOptions, { command: true }) },
    onOutput: run.opts.onOutput,
  });
  run.watchApp(app);
  const processes = childProfilers(run);
  let server: ChildInspector | undefined;
  const found = new Promise<ChildInspector>((resolve) => {
    children.watch((c) => {
      if (server !== undefined || !c.listening) {
        if (server !== undefined && run.opts.childProcesses !== false) processes.add(c);
        return;
      }
      server = c;
      resolve(c);
    });
  });
  const c = await firstServer(run, found, port, command, () => app.output());
  run.inspector = await run.owned(InspectorSession.connect(c.url), (i) => i.close());
  const nodeVersion = await run.race(nodeVersionOf(c.url));
  const address = c.listening!.find((l) => l.port === port) ?? c.listening![0];
  app.serving(c.pid, address.port);
  await run.race(run.inspector.endGroupWithOwner(process.pid));
  run.progress('starting', `the app is process ${c.pid} (${c.argv.join(' ')}), listening on port ${address.port}`);
  await run.race(run.inspector.quiet());
  return { address: await checkReachable(address, app.output()), processes, nodeVersion };
}

/** The first Node process of the command to listen, within the listen timeout. */
async function firstServer(
  run: RunControl,
  found: Promise<ChildInspector>,
  port: number,
  command: string,
  output: () => string,
): Promise<ChildInspector> {
  const timeoutS = run.opts.listenTimeoutS ?? RUN_DEFAULTS.listenTimeoutS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RunError(
            'never-listened',
            `No Node process of \`${command}\` started listening within ${timeoutS} s (Hotline set PORT=${port} and watched every server.listen() of every Node process it started). Does the command start the server, and does it need other settings (env, args)?`,
            output(),
          ),
        ),
      timeoutS * 1000,
    );
  });
  try {
    return await run.race(Promise.race([found, timedOut]));
  } finally {
    clearTimeout(timer);
  }
}

const INSPECTOR_FLAG = /^--(inspect|inspect-brk|inspect-port|debug-port|inspect-wait|inspect-publish-uid)(=|$)/;

/** NODE_OPTIONS without an --inspect of its own (it would open a second, wider door). */
function withoutInspectorFlags(options: string | undefined): string {
  return (options ?? '')
    .split(/\s+/)
    .filter((a) => a && !INSPECTOR_FLAG.test(a))
    .join(' ');
}
