// What a call frame's URL names: a file on disk, a Node internal, or a script Hotline evaluated.
import { fileURLToPath } from 'node:url';

/**
 * The filesystem path of a script URL (`file:///a/b.js` → `/a/b.js`); Node internals keep their
 * `node:` name; native code has `""`. Old Node versions report plain paths for CommonJS.
 */
export function fileOfUrl(url: string): string {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return url; // a file URL that names no local path (another host): keep it readable as is
    }
  }
  if (url.startsWith('internal/')) return `node:${url}`;
  return url;
}

/** What Hotline names the scripts it evaluates in the app (capture/stacks/stack-sampler.ts). */
export const HOTLINE_SCRIPT_PREFIX = 'hotline:';
