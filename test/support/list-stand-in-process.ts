/**
 * The list stand-in in a process of its own, so that a benchmark measures
 * the reader and not the stand-in sharing its thread: `tsx
 * list-stand-in-process.ts <conversations> <delayMs> <inclusive|exclusive> [time|newest|shuffled]`
 * serves /v1/conversations on 127.0.0.1 and prints its URL on one line.
 * It stops when its parent closes stdin.
 */
import { SERVICE_RESOURCES } from '../../src/sdk/index.js';
import { ListStandIn, standInConversation } from './list-stand-in.js';

const [count = '10000', delayMs = '20', bounds = 'exclusive', order = 'time'] = process.argv.slice(2);
const standIn = new ListStandIn({
  items: Array.from({ length: Number(count) }, (_, i) => standInConversation(i)),
  window: SERVICE_RESOURCES.conversations.window!,
  itemsKey: 'conversations',
  bounds: bounds === 'inclusive' ? 'inclusive' : 'exclusive',
  order: order === 'newest' || order === 'shuffled' ? order : 'time',
  delayMs: Number(delayMs),
});
const server = await standIn.listen('/v1/conversations');
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
