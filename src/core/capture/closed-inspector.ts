// The measured sub-windows run the app with its inspector closed. While an inspector is open, Node
// hands every console call to V8's inspector console as well as to the stream, whatever domains
// are on: a console.log costs 3.7 µs instead of 1.0 µs (Node 20, docs/measurement.md), and an app
// that logs each request ran at 0.84 of its plain CPU per request in a measured window that kept
// a quiet session. So, for an app Hotline launched, the inspector is closed at each measured
// sub-window's start and reopened (SIGUSR1) for the profiled one that follows, with a new session.
// Not for an app attached to (its inspector is the user's, and it runs with it open anyway) or
// one that handles SIGUSR1 itself (the inspector could not be reopened). Worker threads are
// watched again through each new session and continue their profiles (ProfiledExtras.useSession);
// one that starts while the inspector is closed cannot be profiled (WorkerSession.bornUnwatched).
import type { AppProcess } from '../app/index.ts';
import { InspectorSession } from '../inspector/index.ts';

export class InspectorCycle {
  private closed = false;
  readonly notes: string[] = [];

  private constructor(private readonly app: AppProcess) {}

  /** A cycle for an app Hotline launched; undefined for one it attached to. */
  static for(app: AppProcess | undefined): InspectorCycle | undefined {
    return app ? new InspectorCycle(app) : undefined;
  }

  /** The inspector is closed now (a measured sub-window runs). */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Closes the app's inspector; `session` ends with it. False when it stays open (the app handles
   * SIGUSR1, or its event loop did not come round to close it): then it stays open for the rest
   * of the run, and the report says why.
   */
  async close(session: InspectorSession): Promise<boolean> {
    const outcome = await session.closeAppInspector();
    this.closed = outcome === 'closed';
    if (outcome === 'handles-sigusr1')
      this.notes.push(
        'The app handles SIGUSR1 itself, so its inspector stayed open in the measured sub-windows (Node then passes each console call to the inspector too): they may be slower than the app alone.',
      );
    if (outcome === 'loop-blocked')
      this.notes.push(
        "The app's event loop did not come round to close its inspector, which stayed open in the measured sub-windows.",
      );
    return this.closed;
  }

  /** Reopens the inspector and connects a new session to it, quiet from its start. */
  async reopen(): Promise<InspectorSession> {
    const url = await this.app.reopenInspector();
    const session = await InspectorSession.connect(url, { quiet: true });
    this.closed = false;
    return session;
  }
}
