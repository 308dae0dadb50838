// Figures the help, the docs tables and the settings repeat: each is written once, here, beside
// the measurement it comes from, and the docs are generated from it (scripts/docs-tables.ts).
import { DEFAULT_STACK_RATE_HZ } from '../core/index.ts';

/** A stack capture's CPU cost to the app (docs/attribution.md, "What the captures cost"). */
export const STACK_CAPTURE_COST = `20–35 µs of CPU per capture at ${DEFAULT_STACK_RATE_HZ}/s`;

/** How close a line's share is at the default rate in a 10 s window (docs/attribution.md). */
export const STACK_RATE_PRECISION = `a line's share within ±1–2 points in 10 s at ${DEFAULT_STACK_RATE_HZ}/s, its 95% interval printed`;
