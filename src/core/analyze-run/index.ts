// The second half of a run: read a run folder, analyze it, write report.json (the CLI does it
// in-process, the editor in its language server).
export {
  analyzeFile,
  analyzeRunDir,
  exportPprof,
  HEAP_PPROF,
  isPprofFile,
  readPprofFile,
  readProfileFile,
  writeSourceSnapshot,
  writeTimeline,
  writeTimelineFile,
} from './analyze-run.ts';
export { type ProfiledRun, profileUnderLoad } from './profile-under-load.ts';
