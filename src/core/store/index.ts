// The run folders on disk: their files, the run lock, run.json, the app's sources.
export {
  type ChildProcessRecord,
  type ExtrasRecord,
  readRunRecord,
  type StallsRecord,
  writeRunRecord,
} from './run-record.ts';
export { loadSources } from './sources.ts';
export { ROUTES_FILE, type RoutesFile } from './routes-file.ts';
export {
  readRuntimeScriptsBeside,
  type RuntimeScript,
  RUNTIME_SCRIPTS_FILE,
  writeRuntimeScripts,
} from './scripts-file.ts';
export {
  acquireRunLock,
  createRunDir,
  HEAP_FILE,
  WAITS_FILE,
  listRuns,
  LOG_FILE,
  newRunId,
  processProfileFile,
  processStacksFile,
  PROFILE_FILE,
  readRun,
  readRunSources,
  readSourceSnapshot,
  REPORT_FILE,
  runsDirOf,
  SOURCES_FILE,
  STACKS_FILE,
  StoreError,
  workerProfileFile,
  writeFileAtomic,
  writeFileAtomicParts,
  writeReport,
} from './store.ts';
