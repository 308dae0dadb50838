// docs/architecture.md's map of the folders names only what exists: every folder it lists, and
// every file it lists as an entry, and every source file it names in a description (found in that
// folder or below it, in the folder above, or at the repository's root, as esbuild.mjs). A move or
// a rename that leaves the map behind fails here.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const REPO = path.resolve(__dirname, '..', '..');
const DOC = fs.readFileSync(path.join(REPO, 'docs', 'architecture.md'), 'utf8');

/** The fenced block under "## The folders". */
function folderMap(): string[] {
  const at = DOC.indexOf('## The folders');
  assert.ok(at >= 0, 'architecture.md has "## The folders"');
  const m = /```\n([\s\S]*?)\n```/.exec(DOC.slice(at));
  assert.ok(m, 'the folders section has a map');
  return m[1].split('\n');
}

/** Files under `dir` (relative to it), recursively; empty for a folder that does not exist. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => !/(^|\/)(node_modules|dist|\.hotline)\//.test(f));
}

/** A file name as the map writes it (`stacks*.ts` is a pattern) found among `files`. */
function found(name: string, files: string[]): boolean {
  const re = new RegExp(`(^|/)${name.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
  return files.some((f) => re.test(f));
}

interface Entry {
  /** The folder the entry is, or holds the file the entry is. */
  folder: string;
  /** The entry's own file, for a file listed as an entry (`analyze.ts  the entry …`). */
  file?: string;
  text: string;
}

/** The map's entries: a folder (its path from the indentation of the lines above) and its description. */
function entries(): Entry[] {
  const out: Entry[] = [];
  const stack: Array<{ indent: number; name: string }> = [];
  for (const line of folderMap()) {
    const m = /^( *)(\S+?)(\/?)(\s{2,}|$)(.*)$/.exec(line);
    const indent = m ? m[1].length : Infinity;
    // A continuation line: deeper than the name column of the entries.
    if (!m || indent >= 16) {
      if (out.length > 0) out[out.length - 1].text += ` ${line.trim()}`;
      continue;
    }
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    const parent = stack.map((s) => s.name).join('');
    if (m[3] === '/') {
      stack.push({ indent, name: `${m[2]}/` });
      out.push({ folder: `${parent}${m[2]}/`, text: m[5] });
    } else {
      out.push({
        folder: `${parent}${path.posix.dirname(m[2]) === '.' ? '' : `${path.posix.dirname(m[2])}/`}`,
        file: path.posix.basename(m[2]),
        text: m[5],
      });
    }
  }
  return out;
}

test("every folder and file listed as an entry in architecture.md's map exists", () => {
  const list = entries();
  assert.ok(list.length >= 15, `entries: ${list.map((e) => e.folder).join(', ')}`);
  const missing = list.filter((e) =>
    e.file
      ? !fs.existsSync(path.join(REPO, e.folder, e.file))
      : !fs.statSync(path.join(REPO, e.folder), { throwIfNoEntry: false })?.isDirectory(),
  );
  assert.deepEqual(
    missing.map((e) => e.folder),
    [],
  );
});

test('every file the map names is in its folder (or below it), or at the root', () => {
  const root = fs.readdirSync(REPO);
  const missing: string[] = [];
  for (const e of entries()) {
    // Its folder and below, and the folder above (`extension.ts's activate()` under commands/).
    const nested = e.folder.split('/').filter(Boolean).length > 1;
    const files = [
      ...filesUnder(path.join(REPO, e.folder)),
      ...(nested ? filesUnder(path.join(REPO, e.folder, '..')) : []),
    ];
    // Source files: `run.json`, `report.json` are a run folder's, not the repository's.
    for (const [name] of e.text.matchAll(/[\w*./-]+\.(?:ts|mjs)\b/g)) {
      const shown = name.startsWith('src/') ? name.slice(name.lastIndexOf('/') + 1) : name;
      if (!found(shown, files) && !root.includes(shown)) missing.push(`${e.folder}: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('the checks fail on a name that is not there', () => {
  assert.equal(found('no-such-module.ts', filesUnder(path.join(REPO, 'src', 'core'))), false);
  assert.equal(found('stack-sampler.ts', filesUnder(path.join(REPO, 'src', 'core'))), true);
  assert.equal(found('cpuprofile*.ts', filesUnder(path.join(REPO, 'src', 'core', 'profile'))), true);
});

test('the unit tests mirror src/: each folder of test/unit is a folder of src/core or src/', () => {
  const unit = path.join(REPO, 'test', 'unit');
  const folders = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  for (const folder of folders(unit)) {
    const mirrored = [path.join(REPO, 'src', 'core', folder), path.join(REPO, 'src', folder)].some((p) =>
      fs.existsSync(p),
    );
    assert.ok(mirrored, `test/unit/${folder}/ mirrors no folder of src/core or src/`);
    for (const part of folders(path.join(unit, folder)))
      assert.ok(
        [path.join(REPO, 'src', 'core', folder, part), path.join(REPO, 'src', folder, part)].some((p) =>
          fs.existsSync(p),
        ),
        `test/unit/${folder}/${part}/ mirrors no folder of src/`,
      );
  }
});
