/**
 * Many waits on one AbortSignal, each needing to hear when it fires. Node's
 * EventTarget walks its whole list of listeners on every add and remove (to
 * ignore duplicates), so a run holding thousands of retries on the run's
 * signal paid for each new wait in proportion to all the others (under a
 * fault mix, a noticeable share of the run's CPU: docs/performance.md).
 * Here each signal gets one listener of
 * its own, and the waits join and leave a set in constant time.
 */

type Listener = () => void;

const listenersOf = new WeakMap<AbortSignal, Set<Listener>>();

/**
 * Calls `listener` once when `signal` fires (at once, synchronously, when it
 * already has), in the order the listeners were added. Returns the function
 * that takes the listener off again: call it when the wait ends another way.
 * Adding and removing take constant time however many listeners a signal has.
 *
 * @param signal - the signal to listen to
 * @param listener - what to call when it fires
 * @returns a function that removes the listener (harmless to call twice, or after the signal fired)
 */
export function onAbort(signal: AbortSignal, listener: Listener): () => void {
  if (signal.aborted) {
    listener();
    return noop;
  }
  const listeners = listenersOf.get(signal) ?? listenTo(signal);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** The signal's one listener, calling those in the set it returns. */
function listenTo(signal: AbortSignal): Set<Listener> {
  const listeners = new Set<Listener>();
  listenersOf.set(signal, listeners);
  const fire = (): void => {
    listenersOf.delete(signal);
    // Over a copy: a listener may take others off (they are then skipped, as EventTarget skips them) or add
    // new ones (which run at once: the signal has fired).
    for (const each of [...listeners]) if (listeners.delete(each)) each();
  };
  signal.addEventListener('abort', fire, { once: true });
  return listeners;
}

function noop(): void {}
