/**
 * The CLI on Deno (`deno task start`, or `deno run -A cli/deno.ts <command>`): the same commands
 * as the Node entry `bin.mjs`, without tsx, since Deno runs TypeScript itself. `start` serves with
 * `Deno.serve` when it finds itself on Deno.
 */
import { main } from './main.ts';

await main(process.argv.slice(2));
