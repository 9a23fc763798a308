/** A small typed event emitter: listeners get one payload object; a throwing listener never breaks the queue. */
export type Listener<T> = (payload: T) => void;

export class Emitter<E extends object> {
  private readonly listeners = new Map<keyof E, Set<Listener<never>>>();
  /** Receives errors thrown by listeners (default: a process warning). */
  protected onListenerError: (err: unknown) => void = (err) => {
    process.emitWarning(`queue event listener failed: ${err instanceof Error ? err.message : String(err)}`);
  };

  /** Subscribes; returns a function that unsubscribes. */
  on<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => this.off(event, listener);
  }

  off<K extends keyof E>(event: K, listener: Listener<E[K]>): void {
    this.listeners.get(event)?.delete(listener as Listener<never>);
  }

  protected emit<K extends keyof E>(event: K, payload: E[K]): void {
    const set = this.listeners.get(event);
    if (!set || set.size === 0) return;
    for (const l of [...set]) {
      try {
        (l as Listener<E[K]>)(payload);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  protected hasListeners(event: keyof E): boolean {
    return (this.listeners.get(event)?.size ?? 0) > 0;
  }
}
