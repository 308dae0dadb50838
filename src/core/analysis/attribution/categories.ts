// Where a frame's code lives, and which bucket of "where the CPU went" its self time falls in.
import * as path from 'node:path';

import { isBelow } from '../../common/index.ts';
import { HOTLINE_SCRIPT_PREFIX } from '../../profile/index.ts';
import { CATEGORIES, type Category } from '../model.ts';

export { CATEGORIES, type Category };

/** The folder whose code is "yours": everything below it except node_modules. */
export class Workspace {
  readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }
  contains(file: string): boolean {
    return isBelow(this.root, file) && !path.relative(this.root, file).split(path.sep).includes('node_modules');
  }
}

const SYNTHETIC: Record<string, Category> = {
  '(idle)': 'idle',
  '(garbage collector)': 'gc',
  '(program)': 'program',
  '(root)': 'program',
};

/** `file` is the frame's file after source mapping (see fileOfUrl). */
export function categoryOf(functionName: string, url: string, file: string, workspace: Workspace): Category {
  if (url === '') return Object.hasOwn(SYNTHETIC, functionName) ? SYNTHETIC[functionName] : 'native';
  // Scripts Hotline itself evaluates in the app (the stack captures): the profiler's own cost.
  if (url.startsWith(HOTLINE_SCRIPT_PREFIX)) return 'program';
  if (file.startsWith('node:')) return 'nodeInternals';
  return workspace.contains(file) ? 'user' : 'dependencies';
}
