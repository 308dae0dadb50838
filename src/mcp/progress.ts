// A run's progress as MCP progress notifications, when the client asked for them (a
// progressToken in the request's _meta): the phase and its seconds, as `hotline profile` prints.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RunProgress } from '../core/index.ts';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function progressSender(extra: Extra): ((p: RunProgress) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  // The spec wants `progress` to grow with every notification: one step per report.
  let step = 0;
  return (p) => {
    step++;
    const message = p.of !== undefined ? `${p.message} [${p.second ?? 0}/${p.of} s]` : p.message;
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, message } })
      .catch(() => undefined); // a client gone mid-run: the run is being cancelled anyway
  };
}
