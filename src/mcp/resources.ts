// Run reports as MCP resources: hotline://runs/{id}/report is a run's report.json, for clients
// that attach a whole report to the context (the tools give it in small pieces).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listRuns, REPORT_FILE } from '../core/index.ts';
import type { Workspace } from './workspace.ts';

export const reportUri = (id: string): string => `hotline://runs/${id}/report`;

export function registerReportResource(server: McpServer, ws: Workspace): void {
  server.registerResource(
    'run-report',
    new ResourceTemplate('hotline://runs/{id}/report', {
      list: () => ({
        resources: listRuns(ws.runsDir).runs.map((r) => ({
          uri: reportUri(r.report.id),
          name: `run ${r.report.id}`,
          description: `${r.report.settings.method} ${r.report.settings.url}, ${r.report.startedAt}`,
          mimeType: 'application/json',
        })),
      }),
    }),
    { title: 'Run report', description: "A run's report.json", mimeType: 'application/json' },
    (uri, vars) => {
      const id = String(vars.id);
      const run = ws.run(id); // throws a one-line reason for an unknown id
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: fs.readFileSync(path.join(run.dir, REPORT_FILE), 'utf8'),
          },
        ],
      };
    },
  );
}
