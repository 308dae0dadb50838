// Captured fixtures (test/fixtures/<name>/): a real profile.cpuprofile and coverage.json from a
// `hotline profile` run of one of the example apps, meta.json ({root, captured}) and a copy of
// the app's own source files the profile names. The profile's file:// URLs point at where it was
// captured; loadFixture moves them to the fixture folder, then reads the sources the way a run
// does (loadSources), so the analysis sees the fixture exactly as it saw the app.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCpuProfile, type CpuProfile } from '../../src/core/profile/cpuprofile.ts';
import type { SourceMapInput } from '../../src/core/analysis/attribution/sourcemaps.ts';
import { analyzeProfile, type AnalyzeInput } from '../../src/core/analysis/analyze.ts';
import type { Analysis } from '../../src/core/analysis/model.ts';
import { buildReport, type EventLoopFigures, type LoadFigures, type ReportV1 } from '../../src/core/report/schema.ts';
import { loadSources } from '../../src/core/store/sources.ts';

export const FIXTURES_DIR = path.resolve(__dirname, '..', 'fixtures');

export interface FixtureMeta {
  /** Absolute folder of the app when the profile was captured. */
  root: string;
  /** The command that captured it. */
  captured: string;
}

export interface Fixture {
  name: string;
  /** The fixture folder: the app's root from the analysis' point of view. */
  root: string;
  meta: FixtureMeta;
  /** The profile JSON with its URLs moved to the fixture folder, as parsed (not checked). */
  raw: RawProfile;
  /** The same, through readCpuProfile. */
  profile: CpuProfile;
  sources: Map<string, string>;
  sourceMaps: SourceMapInput[];
  /** What loadSources had to say (unreadable files, ignored maps). */
  notes: string[];
}

/** The raw .cpuprofile shape, loosely typed: tests read it independently of src/. */
export interface RawProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number };
    hitCount?: number;
    children?: number[];
    positionTicks?: Array<{ line: number; ticks: number }>;
  }>;
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export const FIXTURE_NAMES = [
  'login-api',
  'login-api-async',
  'helper-module',
  'fixed-port',
  'ts-app-work',
  'ts-app-json',
  'file-server',
] as const;
export type FixtureName = (typeof FIXTURE_NAMES)[number];

const cache = new Map<string, Fixture>();

/** `file://<meta.root>/…` → `file://<fixture dir>/…`; other URLs unchanged. */
export function relocateUrl(url: string, fromRoot: string, toRoot: string): string {
  const from = pathToFileURL(fromRoot).href;
  const to = pathToFileURL(toRoot).href;
  return url === from || url.startsWith(`${from}/`) ? to + url.slice(from.length) : url;
}

/**
 * `as`: put the profile in another fixture's folder instead of its own (two runs of one app,
 * e.g. login-api and login-api-async, must name the same files to be compared).
 */
export function loadFixture(name: FixtureName, options: { as?: FixtureName } = {}): Fixture {
  const key = `${name}\u0000${options.as ?? name}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const own = path.join(FIXTURES_DIR, name);
  const root = path.join(FIXTURES_DIR, options.as ?? name);
  const meta = JSON.parse(fs.readFileSync(path.join(own, 'meta.json'), 'utf8')) as FixtureMeta;
  const raw = JSON.parse(fs.readFileSync(path.join(own, 'profile.cpuprofile'), 'utf8')) as RawProfile;
  for (const node of raw.nodes) node.callFrame.url = relocateUrl(node.callFrame.url, meta.root, root);
  const profile = readCpuProfile(raw);
  const loaded = loadSources(profile, root);
  const fixture: Fixture = {
    name,
    root,
    meta,
    raw,
    profile,
    sources: loaded.sources,
    sourceMaps: loaded.sourceMaps,
    notes: loaded.notes,
  };
  cache.set(key, fixture);
  return fixture;
}

/** The analysis of the fixture's profile with its sources (recorded before stack captures existed: calling lines are read from the source). */
export function analyzeFixture(
  name: FixtureName,
  options: { limits?: AnalyzeInput['limits']; as?: FixtureName } = {},
): Analysis {
  const f = loadFixture(name, { as: options.as });
  return analyzeProfile({
    profile: f.profile,
    root: f.root,
    sources: f.sources,
    sourceMaps: f.sourceMaps,
    limits: options.limits,
  });
}

/** The text of a fixture file's 1-based line. */
export function lineOf(file: string, line: number): string {
  return fs.readFileSync(file, 'utf8').split('\n')[line - 1] ?? '';
}

/** The login run's settings, for reports built from fixtures. */
export const FIXTURE_SETTINGS = {
  url: '/login',
  method: 'POST',
  headers: {},
  connections: 20,
  pipelining: 1,
  durationS: 3,
  warmupS: 1,
  samplingIntervalUs: 1000,
  timeoutS: 10,
};

/**
 * A report of a captured fixture with its captured load figures (load.json), analyzed in the
 * login-api folder so runs of both login fixtures name the same files.
 */
export function fixtureReport(name: FixtureName, id: string): ReportV1 {
  const { load, eventLoop } = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, name, 'load.json'), 'utf8')) as {
    load: LoadFigures;
    eventLoop: EventLoopFigures;
  };
  return buildReport({
    id,
    startedAt: '2026-11-21T12:00:00.000Z',
    app: {
      command: ['node', 'server.js'],
      cwd: path.join(FIXTURES_DIR, 'login-api'),
      pid: 1,
      url: 'http://127.0.0.1:3000/login',
    },
    settings: FIXTURE_SETTINGS,
    load,
    eventLoop,
    profileFile: 'profile.cpuprofile',
    analysis: analyzeFixture(name, { as: 'login-api' }),
  });
}

/** The login-api capture's report with no load figures, as the editor's file views read it (test/server). */
export function loginApiReport(): ReportV1 {
  const serverJs = path.join(FIXTURES_DIR, 'login-api', 'server.js');
  return buildReport({
    id: 'r1',
    startedAt: '2026-11-21T12:00:00.000Z',
    app: { command: [], cwd: path.dirname(serverJs), pid: 0, url: '' },
    settings: {
      url: '',
      method: '',
      headers: {},
      connections: 0,
      pipelining: 0,
      durationS: 3,
      warmupS: 0,
      samplingIntervalUs: 1000,
      timeoutS: 0,
    },
    profileFile: 'profile.cpuprofile',
    analysis: analyzeFixture('login-api'),
  });
}
