// The docs' tables from the code, between marker comments: docs/cli.md's options (src/cli/options.ts,
// with the engine's defaults), docs/vscode.md's settings and commands (package.json `contributes`)
// and the flag ↔ setting mapping. `npx tsx scripts/docs-tables.ts` rewrites them;
// test/unit/cli/docs-tables.test.ts fails when a doc and the code disagree.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APP_AND_LOAD, COMMAND_OPTIONS, type CommandName, type OptionSpec } from '../src/cli/options.ts';

export const ROOT = path.resolve(__dirname, '..');

interface Setting {
  default?: unknown;
  description?: string;
  markdownDescription?: string;
}

export interface Manifest {
  contributes: {
    configuration: { properties: Record<string, Setting> };
    commands: Array<{ command: string; title: string; category?: string }>;
    menus?: Record<string, Array<{ command: string; when?: string }>>;
  };
}

/** A table cell: one line, its pipes escaped. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
const code = (text: string): string => `\`${text}\``;
const row = (cells: string[]): string => `| ${cells.map(cell).join(' | ')} |`;
const table = (head: string[], rows: string[][]): string =>
  [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');

function flag(o: OptionSpec): string {
  const long = `--${o.name}${o.arg !== undefined ? ` ${o.arg}` : ''}`;
  return code(o.short !== undefined ? `-${o.short}, ${long}` : long);
}

const optionRows = (specs: OptionSpec[]): string[][] =>
  specs.map((o) => [flag(o), o.default !== undefined ? code(String(o.default)) : '', o.help]);

/** One table per command; gate's lists what it adds to the app and load options it shares with profile. */
export function cliOptionsTables(): string {
  const head = ['option', 'default', 'what it does'];
  const shared = new Set(APP_AND_LOAD.map((o) => o.name));
  return (Object.keys(COMMAND_OPTIONS) as CommandName[])
    .map((command) => {
      const own =
        command === 'gate' ? COMMAND_OPTIONS.gate.filter((o) => !shared.has(o.name)) : COMMAND_OPTIONS[command];
      const note =
        command === 'gate' ? `\n\nand profile's ${APP_AND_LOAD.map((o) => code(`--${o.name}`)).join(', ')}.` : '';
      return `**${command}**\n\n${table(head, optionRows(own))}${note}`;
    })
    .join('\n\n');
}

/** Each flag with a setting that does the same, and both defaults (they must agree: the test checks). */
export function flagSettingTable(manifest: Manifest): string {
  const props = manifest.contributes.configuration.properties;
  const seen = new Set<string>();
  const rows: string[][] = [];
  for (const o of Object.values(COMMAND_OPTIONS).flat()) {
    if (o.setting === undefined || seen.has(o.name)) continue;
    seen.add(o.name);
    const setting = props[o.setting];
    if (setting === undefined) throw new Error(`--${o.name} names ${o.setting}, which package.json does not have`);
    rows.push([
      code(`--${o.name}`),
      code(o.setting),
      o.default !== undefined ? code(String(o.default)) : '',
      code(JSON.stringify(setting.default)),
    ]);
  }
  return table(['CLI flag', 'setting', 'CLI default', 'setting default'], rows);
}

export function settingsTable(manifest: Manifest): string {
  const rows = Object.entries(manifest.contributes.configuration.properties).map(([name, s]) => [
    code(name),
    code(JSON.stringify(s.default)),
    s.markdownDescription ?? s.description ?? '',
  ]);
  return table(['setting', 'default', 'what it does'], rows);
}

/**
 * What each command does, in a sentence: package.json has titles only. Where it is found comes from
 * package.json's menus; a command without a sentence here is an error (the test names it).
 */
export const COMMAND_PURPOSES: Record<string, string> = {
  'hotline.profileUnderLoad': 'start the app, load it over HTTP and profile it',
  'hotline.attachAndProfile':
    'profile an app that already runs: pick a process, or give its inspector URL, port or pid',
  'hotline.cancelRun': 'stop the run in progress, the app and the load',
  'hotline.openReport': "open a run's report",
  'hotline.openShownReport': 'open the report of the run whose costs the editor shows',
  'hotline.openFlameGraph': "open a run's profile in the flame graph (speedscope)",
  'hotline.openProfileFile':
    'open a `.cpuprofile`, `.heapprofile`, pprof file, `node --prof` log or `perf script` output as a flame graph',
  'hotline.setBaseline': 'make a run the baseline the next runs are compared with',
  'hotline.clearBaseline': 'forget the baseline',
  'hotline.compareWithBaseline': 'compare a run with the baseline',
  'hotline.deleteRun': 'delete a kept run',
  'hotline.refreshRuns': 'read the runs folder again',
  'hotline.showOutput': 'show what the app printed during the run',
  'hotline.clearAnnotations': 'hide the lenses, tints and times on the lines',
  'hotline.exportPprof': "write a run's CPU profile as gzipped pprof",
  'hotline.openReportAt': 'the report at a line: the lenses run it',
  'hotline.explainHint': "a hint's explanation: its diagnostic's quick fix runs it",
};

/** Where a menu puts a command, as a user finds it. */
const MENU_PLACES: Record<string, string> = {
  'editor/title': "the flame button of a JS/TS editor's title bar",
  'view/title': "the Runs view's title bar",
  'view/item/context': "a run's menu in the Runs view",
};

function placesOf(command: string, manifest: Manifest): string[] {
  const menus = manifest.contributes.menus ?? {};
  const palette = (menus.commandPalette ?? []).find((m) => m.command === command);
  const places = [
    palette?.when === 'false'
      ? 'not in the palette'
      : palette?.when === 'hotline.hasBaseline'
        ? 'the palette once a baseline is set'
        : palette?.when !== undefined
          ? `the palette when ${code(palette.when)}`
          : 'the palette',
  ];
  for (const [menu, place] of Object.entries(MENU_PLACES))
    if ((menus[menu] ?? []).some((m) => m.command === command)) places.push(place);
  return places;
}

export function commandsList(manifest: Manifest): string {
  return manifest.contributes.commands
    .map((c) => {
      const purpose = COMMAND_PURPOSES[c.command];
      if (purpose === undefined)
        throw new Error(`${c.command} has no sentence in COMMAND_PURPOSES (scripts/docs-tables.ts)`);
      const title = `${c.category ? `${c.category}: ` : ''}${c.title}`;
      return `- **${title}** (${code(c.command)}): ${purpose} (${placesOf(c.command, manifest).join('; ')}).`;
    })
    .join('\n');
}

/** The generated blocks of each doc, by marker name. */
export function blocksOf(manifest: Manifest): Record<string, Record<string, string>> {
  return {
    'docs/cli.md': { 'cli-options': cliOptionsTables(), 'flag-settings': flagSettingTable(manifest) },
    'docs/vscode.md': {
      settings: settingsTable(manifest),
      commands: commandsList(manifest),
      'flag-settings': flagSettingTable(manifest),
    },
  };
}

const begin = (name: string): string => `<!-- generated: ${name} (scripts/docs-tables.ts; do not edit) -->`;
const end = (name: string): string => `<!-- end of generated: ${name} -->`;

/** The doc with each block replaced; a doc without a block's markers is an error, not skipped. */
export function withBlocks(doc: string, file: string, blocks: Record<string, string>): string {
  let out = doc;
  for (const [name, body] of Object.entries(blocks)) {
    const from = out.indexOf(begin(name));
    const to = out.indexOf(end(name));
    if (from < 0 || to < from) throw new Error(`${file} has no "${begin(name)}" … "${end(name)}" markers`);
    out = `${out.slice(0, from)}${begin(name)}\n\n${body}\n\n${out.slice(to)}`;
  }
  return out;
}

export function readManifest(root = ROOT): Manifest {
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
}

/** Each doc as it should read: its text now, and generated. */
export function generatedDocs(root = ROOT): Array<{ file: string; now: string; generated: string }> {
  return Object.entries(blocksOf(readManifest(root))).map(([file, blocks]) => {
    const now = fs.readFileSync(path.join(root, file), 'utf8');
    return { file, now, generated: withBlocks(now, file, blocks) };
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === __filename) {
  for (const { file, now, generated } of generatedDocs()) {
    if (generated === now) continue;
    fs.writeFileSync(path.join(ROOT, file), generated);
    process.stdout.write(`wrote ${file}\n`);
  }
}
