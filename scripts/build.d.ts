/** Compile src/ and connectors/ to dist/, copy the connector templates, write the demo seed. */
export function build(): Promise<void>;
/** Build when a source changed since the last build; true when it built. */
export function buildIfStale(): Promise<boolean>;
