// What starting the app gives a run, however it was started (run-start.ts, start-command.ts):
// the address the load goes to, checked, and the profilers of its Node child processes.
import { accepts, type AppProcess, loopbackHostOf } from '../app/index.ts';
import { ProcessProfilers } from '../inspector/index.ts';
import { type ListenAddress, RunError } from '../common/index.ts';
import type { RunControl } from './run-control.ts';
import { DEFAULT_STACK_RATE_HZ, StackSampler } from './stacks/stack-sampler.ts';

/** What a start gives the run's later steps beside the address the load goes to. */
export interface StartedApp {
  address: ListenAddress;
  /** Set when the run started the app itself (so it may close and reopen its inspector). */
  launched?: AppProcess;
  /** The app's Node child processes (cluster workers, forks), profiled with it, each with its stack captures. */
  processes?: ProcessProfilers<StackSampler>;
  /** Said in the report when the app attached to has Node children the run cannot profile. */
  childrenNote?: string;
  /** The launched app's Node ("v20.20.0"): runs on two Nodes do not compare (verdicts/comparable.ts). */
  nodeVersion?: string;
}

/** Each process's calling lines are measured as the main one's are, at the same rate, in the same sub-windows. */
export function childProfilers(run: RunControl): ProcessProfilers<StackSampler> {
  const rateHz = run.opts.stackRateHz ?? DEFAULT_STACK_RATE_HZ;
  const processes = new ProcessProfilers<StackSampler>(
    rateHz > 0 ? (channel) => StackSampler.start(channel, rateHz, { paused: true }) : undefined,
  );
  run.disposers.push(() => void processes.dispose());
  return processes;
}

/** The address the load goes to: a loopback one that accepts connections. */
export async function checkReachable(address: ListenAddress, output: string): Promise<ListenAddress> {
  const host = loopbackHostOf(address);
  if (host === undefined) {
    throw new RunError(
      'never-listened',
      `The app listens on ${address.address}:${address.port} only, not on a loopback address: Hotline loads only 127.0.0.1 or ::1. Make it listen on all interfaces or on localhost.`,
      output,
    );
  }
  if (!(await accepts(address.port, host))) {
    throw new RunError(
      'never-listened',
      `The app reported listening on port ${address.port} but refuses connections on ${host}.`,
      output,
    );
  }
  return address;
}
