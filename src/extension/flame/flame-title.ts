/** "Flame Graph 13:45:02" for run 20261121-134502-ab12: one title per run's flame graph panel. */
export function flameTitle(runId: string): string {
  const m = /^\d{8}-(\d{2})(\d{2})(\d{2})/.exec(runId);
  return m ? `Flame Graph ${m[1]}:${m[2]}:${m[3]}` : `Flame Graph ${runId}`;
}
