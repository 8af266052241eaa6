/**
 * The stand-in service in a process of its own, so that its CPU is not the
 * client's: prints its URL on the first line of stdout, then serves until
 * killed. The bench changes its mode over HTTP (`/__stand-in/mode`).
 */
import { StandInService } from './service.js';

const service = await new StandInService().start();
process.stdout.write(`${service.url}\n`);
process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
