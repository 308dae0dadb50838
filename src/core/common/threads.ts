/**
 * A thread Node starts for itself, not the app's: the loader-hooks thread that `module.register`
 * starts (tsx under `node --import tsx`, other ESM loaders). The inspector reports it as a worker
 * like any other (Node 20: title "[worker 1]", url "node:internal/modules/esm/worker"; Node 24
 * does not report it); only its url, a module of Node's own, tells it apart: an app's worker has
 * its file's URL, or none (eval code, a data: URL), never a `node:internal/` one. Hotline neither
 * profiles nor reports such a thread.
 */
export function isNodeInternalThread(url: string): boolean {
  return url.startsWith('node:internal/');
}
