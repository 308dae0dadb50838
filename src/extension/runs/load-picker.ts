// What load to send: from the settings when `hotline.requests` (a mix file) or `hotline.url` is
// set, otherwise a short quick-pick flow (URL, method, body) whose answers are remembered per
// workspace and offered next time, or a request mix from a file (JSON, YAML, HAR).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isJson, type LoadSettings, mixUrl, readRequestMix } from '../../core/index.ts';
import type { HotlineSettings } from '../settings.ts';

const REMEMBERED = 'hotline.load';

interface RememberedLoad {
  url: string;
  method: string;
  body?: string;
  headers?: Record<string, string>;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export async function pickLoad(
  settings: HotlineSettings,
  state: vscode.Memento,
  folder: string,
): Promise<LoadSettings | undefined> {
  const common = {
    connections: settings.connections,
    pipelining: settings.pipelining,
    durationS: settings.duration,
    warmupS: settings.warmup,
    samplingIntervalUs: settings.samplingInterval,
    stallThresholdMs: settings.stallThresholdMs,
    waits: settings.threadpoolWaits,
    stackRateHz: settings.stackCaptureRate,
    ...(settings.heapSampling ? { heap: {} } : {}),
    timeoutS: settings.timeout,
  };
  if (settings.requests)
    return requestMix(common, settings.headers, path.resolve(folder, settings.requests), ' (setting hotline.requests)');
  if (settings.url) {
    return {
      ...common,
      url: settings.url,
      method: settings.method,
      headers: settings.headers,
      body: settings.body || undefined,
    };
  }
  const last = state.get<RememberedLoad>(REMEMBERED);
  const picked = await vscode.window.showQuickPick(
    [
      ...(last
        ? [{ label: `$(debug-rerun) ${last.method} ${last.url}`, description: 'as last time', pick: 'again' }]
        : []),
      { label: last ? '$(edit) Another URL…' : '$(edit) A URL…', pick: 'url' },
      { label: '$(file) Requests from a file…', description: 'JSON, YAML or HAR: a mix of routes', pick: 'file' },
    ],
    { title: 'Hotline: what to load?', ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  if (picked.pick === 'file') return requestsFromFile(common, settings.headers);
  if (last && picked.pick === 'again')
    return {
      ...common,
      url: last.url,
      method: last.method,
      body: last.body,
      headers: last.headers ?? settings.headers,
    };
  const url = await vscode.window.showInputBox({
    title: 'Hotline: URL to load (1/3)',
    prompt: 'A path on the port the app opens (/login), or a full http://127.0.0.1:PORT/… URL',
    value: last?.url ?? '/',
    ignoreFocusOut: true,
    validateInput: (v) =>
      v.startsWith('/') || /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(v)
        ? undefined
        : 'A path starting with / or a URL on 127.0.0.1 / localhost',
  });
  if (url === undefined) return undefined;
  const method = await vscode.window.showQuickPick(METHODS, {
    title: 'Hotline: HTTP method (2/3)',
    ignoreFocusOut: true,
    placeHolder: last?.method ?? 'GET',
  });
  if (!method) return undefined;
  let body: string | undefined;
  const headers = { ...settings.headers };
  if (method !== 'GET' && method !== 'DELETE') {
    body = await vscode.window.showInputBox({
      title: 'Hotline: request body (3/3)',
      prompt: 'JSON is sent with content-type: application/json; leave empty for none',
      value: last?.body ?? '',
      ignoreFocusOut: true,
    });
    if (body === undefined) return undefined;
    if (body === '') body = undefined;
    else if (isJson(body) && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  await state.update(REMEMBERED, { url, method, body, headers } satisfies RememberedLoad);
  return { ...common, url, method, body, headers };
}

/** A request mix from a file (core/load/request-mix.ts), as the CLI's --requests reads it. */
async function requestsFromFile(
  common: Omit<LoadSettings, 'url'>,
  headers: Record<string, string>,
): Promise<LoadSettings | undefined> {
  const files = await vscode.window.showOpenDialog({
    title: 'Hotline: requests to load',
    canSelectMany: false,
    filters: { 'Request mix': ['json', 'yaml', 'yml', 'har'] },
  });
  if (!files?.[0]) return undefined;
  return requestMix(common, headers, files[0].fsPath);
}

/** The load of a mix file; a file that cannot be read or holds no request says so in one line, and nothing starts. */
function requestMix(
  common: Omit<LoadSettings, 'url'>,
  headers: Record<string, string>,
  file: string,
  from = '',
): LoadSettings | undefined {
  try {
    const mix = readRequestMix(file);
    return { ...common, url: mixUrl(mix), headers, requests: mix.requests, requestsNotes: mix.notes };
  } catch (err) {
    void vscode.window.showErrorMessage(`Hotline: ${(err as Error).message}${from}`);
    return undefined;
  }
}
