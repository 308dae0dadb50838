// The raw CDP connection type shared by the inspector session, its workers and the stack sampler.

/** A raw CDP connection: commands and events by name (see InspectorSession.channel). */
export interface CdpChannel {
  /** The inspector's WebSocket address, where another session can be opened (capture-sender.ts). */
  readonly url?: string;
  send(method: string, params?: object): Promise<unknown>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on(event: string, handler: (params: never) => void): () => void;
}
