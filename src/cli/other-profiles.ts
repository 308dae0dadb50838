// `hotline analyze` of a file that is not a CPU profile: a heap profile is analyzed (bytes per
// function of your code); a `node --prof` log or `perf script` text has no line-level CPU model
// to build, so the user learns what the file is and what opens it, instead of a JSON error.
// (Which format a file is: core/profile-files, formatOfFile.)
import type { ProfileFormat } from '../core/index.ts';

const FLAME_VIEW =
  'In VS Code, Hotline opens it as a flame graph (Explorer, or "Hotline: Open Profile in Flame Graph…")';

/** What the file is and what opens it, for the formats `analyze` cannot turn into line costs. */
export function notAnalysable(
  shown: string,
  format: Exclude<ProfileFormat, 'cpuprofile' | 'heapprofile' | 'pprof'> | 'text',
): string {
  switch (format) {
    case 'text':
      return `${shown} is not a profile: \`hotline analyze\` reads .cpuprofile files (V8/Chrome CPU profiles) and .heapprofile files.`;
    case 'prof-log':
      return `${shown} is a \`node --prof\` log (V8 ticks), not a CPU profile: \`hotline analyze\` reads .cpuprofile files. ${FLAME_VIEW}; \`node --prof-process ${shown}\` prints its summary; \`hotline profile\` puts costs on your lines.`;
    case 'v8log':
      return `${shown} is a preprocessed \`node --prof\` log (JSON), not a CPU profile: \`hotline analyze\` reads .cpuprofile files. ${FLAME_VIEW}; \`hotline profile\` puts costs on your lines.`;
    case 'perf-script':
      return `${shown} is \`perf script\` output (native stacks sampled by Linux perf), not a CPU profile: \`hotline analyze\` reads .cpuprofile files. ${FLAME_VIEW}, as does speedscope; \`hotline profile\` puts costs on your lines.`;
  }
}
