// The profile files Hotline opens besides its runs: which format a file is, and what the flame
// graph (speedscope) needs to show it.
export {
  detectFormat,
  type FlameInput,
  type FlameSource,
  flameSource,
  formatOfFile,
  prepareForFlame,
  preprocessProfLog,
  PROF_PROCESS_TIMEOUT_MS,
  type ProfileFormat,
} from './formats.ts';
