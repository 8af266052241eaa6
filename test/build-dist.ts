/**
 * Vitest global setup: the end-to-end tests run bin/ferry.js, which runs the
 * compiled dist/, and plugins import `ferry/sdk` from dist/. Build it once
 * before any test when a source is newer than the last build, so every test
 * runs the current sources.
 */
import { buildIfStale } from '../scripts/build.js';

export default function setup(): void {
  buildIfStale();
}
