/**
 * `ferry/sdk` as a contract. The API report (src/sdk/api-report.txt: every
 * exported name with its signature) must match the sources, so a change to
 * what plugins program against shows as a diff of that file; the type-level
 * checks pin the shapes a connector author writes against.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
// @ts-expect-error -- a plain ES module script, without type declarations
import { REPORT, sdkApiReport } from '../../../scripts/sdk-api-report.js';
import * as sdk from '../../../src/sdk/index.js';
import { defineDestination, defineSource, FerryError } from '../../../src/sdk/index.js';
import type { ConnectorContext, CursorPosition, DestinationWriter, ReadContext, SourceDefinition, SourceRecord } from '../../../src/sdk/index.js';

describe('the ferry/sdk API report', () => {
  it('matches the sources (after an intended change: node scripts/sdk-api-report.js --write, and review the diff)', () => {
    const checkedIn = readFileSync(REPORT as string, 'utf8');
    expect((sdkApiReport as () => string)(), 'the sdk API changed: run node scripts/sdk-api-report.js --write and review src/sdk/api-report.txt').toBe(checkedIn);
  });

  it('lists every value the package exports, and keeps the retry primitives behind the transport', () => {
    const report = readFileSync(REPORT as string, 'utf8');
    for (const name of Object.keys(sdk)) expect(report).toMatch(new RegExp(`^[a-z]+ ${name}$`, 'm'));
    for (const internal of ['nextRetry', 'classifyFailure', 'parseRetryAfter', 'backoffDelay', 'CircuitBreaker', 'clearSecrets']) expect(Object.keys(sdk)).not.toContain(internal);
  });
});

describe('the types a connector author writes against', () => {
  it('types a source\'s options from its zod schema and its records as SourceRecord', () => {
    const source = defineSource({
      name: 'demo',
      options: z.object({ path: z.string(), limit: z.number().default(10) }),
      async check() {},
      async discover() {
        return [];
      },
      async *read(ctx) {
        expectTypeOf(ctx).toExtend<ReadContext<{ path: string; limit: number }>>();
        expectTypeOf(ctx.options.path).toEqualTypeOf<string>();
        yield { data: { id: 1 }, origin: { file: ctx.options.path, line: 1 } };
      },
    });
    expectTypeOf(source).toExtend<SourceDefinition>();
    expectTypeOf<Parameters<NonNullable<typeof source.read>>[0]['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<SourceRecord['data']>().toBeObject();
    expectTypeOf<CursorPosition>().not.toBeAny();
  });

  it('types a destination\'s writer and the errors a connector throws', () => {
    const destination = defineDestination({
      name: 'demo-out',
      options: z.object({ file: z.string() }),
      async check(ctx: ConnectorContext<{ file: string }>) {
        expectTypeOf(ctx.options.file).toEqualTypeOf<string>();
      },
      async open() {
        const writer: DestinationWriter = { async write() {}, async close() {} };
        return writer;
      },
    });
    expectTypeOf(destination.name).toEqualTypeOf<string>();
    expectTypeOf(new FerryError('FERRY_SOURCE_READ_FAILED', 'x').code).toEqualTypeOf<sdk.ErrorCode>();
    // @ts-expect-error -- an error code outside the catalogue does not compile
    new FerryError('FERRY_NOT_A_CODE', 'x');
  });
});
