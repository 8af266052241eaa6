/** Compile src/ and connectors/ to dist/ and copy the connector templates. */
export function build(): void;
/** Build when a source changed since the last build; true when it built. */
export function buildIfStale(): boolean;
