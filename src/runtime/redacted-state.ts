/**
 * State writes that hold free text (a dead-letter entry's reason, bodies and
 * source record; a run's error) pass through the SDK's redactor before they
 * are stored, so a secret a record or a message echoes never lands in the
 * state file. Everything else goes to the store untouched.
 */
import { redact, redactValue } from '../sdk/redact.js';
import type { FailureWrite, StateStore } from '../state/index.js';

const MASKED_NOTE = ' (a secret inside this record was masked in the stored copy; `failures retry` would push the masked text)';

/**
 * The store with `recordFailure` and `finishRun` redacting what they write.
 * A Proxy rather than a delegating class, so every other method (and any
 * added later, sync or async) reaches the store as it is.
 */
export function withRedactedWrites(store: StateStore): StateStore {
  const redacting: Partial<StateStore> = {
    recordFailure: (failure) => store.recordFailure(redactFailure(failure)),
    finishRun: (runId, result) => store.finishRun(runId, { ...result, error: result.error == null ? result.error : redact(result.error) }),
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      if (typeof property === 'string' && Object.hasOwn(redacting, property)) return redacting[property as keyof StateStore];
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Bound once, not on every call: the ledger is consulted for every record.
      if (!bound.has(property)) bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(property);
    },
  });
}

/**
 * A dead-letter entry with the config's secrets masked: messages fully
 * redacted; the record and body (data a retry pushes) only where a secret
 * appears, and then the reason says so.
 */
export function redactFailure(failure: FailureWrite): FailureWrite {
  const sourceRecord = redactValue(failure.sourceRecord, [], { patterns: false });
  const masked = JSON.stringify(sourceRecord) !== JSON.stringify(failure.sourceRecord);
  return {
    ...failure,
    reason: redact(failure.reason) + (masked ? MASKED_NOTE : ''),
    errorBody: redactValue(failure.errorBody),
    body: redactValue(failure.body, [], { patterns: false }),
    sourceRecord,
  };
}
