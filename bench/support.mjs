/** Small pieces the bench scripts share. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago (the hub under test binds it next). */
export async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** `--help`: prints the script's opening doc comment (its usage) and exits. */
export function printUsageAndExit(scriptUrl) {
  process.stdout.write(
    readFileSync(new URL(scriptUrl), 'utf8')
      .split('*/')[0]
      .replace(/^[\s\S]*?\/\*\*\n/, '')
      .replace(/^ \* ?/gm, ''),
  );
  process.exit(0);
}
