/**
 * Every command the pages of docs/ without a suite of their own show (architecture.md, its detail
 * pages and every how-to), read from the Markdown: a `workspace-hub` command is run as printed
 * (through `sh`, the package's command on PATH) in a project directory with a hub started there,
 * as a reader at the checkout would; npm's commands and vitest runs build this checkout or run
 * suites (CI runs them), so they are named instead: the npm script exists, and so does every file
 * or folder a vitest run names. A command that is neither fails the test.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type Project } from '../helpers/cli.ts';
import {
  linkCommand,
  readDoc,
  runShell,
  shownCommands,
  startShell,
  type DocFile,
  type ShellServer,
} from '../helpers/docs.ts';
import { freePort } from '../helpers/net.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
const HOW_TOS = (await readdir(new URL('../../docs/how-to/', import.meta.url)))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/how-to/${name}` as DocFile);
const PAGES: DocFile[] = [
  'docs/architecture.md',
  'docs/storage.md',
  'docs/internals.md',
  ...HOW_TOS,
];

/** Each page's commands, as [page, command] pairs. */
async function commandsOfPages(): Promise<[DocFile, string][]> {
  const found: [DocFile, string][] = [];
  for (const page of PAGES)
    for (const command of shownCommands(await readDoc(page))) found.push([page, command]);
  return found;
}

/** Why a named command is right, or undefined when it is not one the test may name. */
function named(command: string): string | undefined {
  const script = /^npm (?:run ([\w:]+)|(test|install|start))$/.exec(command);
  if (script) {
    const name = script[1] ?? script[2]!;
    if (name === 'install') return 'installs the checkout';
    expect(PACKAGE.scripts, command).toHaveProperty([name]);
    return `the npm script ${name}`;
  }
  const vitest = /^npx vitest run((?: [\w./-]+)+)$/.exec(command);
  if (vitest) {
    for (const path of vitest[1]!.trim().split(' '))
      expect(existsSync(`${ROOT}${path}`), `${command}: ${path} exists`).toBe(true);
    return 'runs suites that exist';
  }
  return undefined;
}

describe('every command of the docs pages, as printed', () => {
  let project: Project;
  let bin: string;
  let server: ShellServer;

  beforeAll(async () => {
    project = await createProject({ server: { port: await freePort() } });
    bin = await linkCommand(project.dir);
    server = await startShell('workspace-hub start', { cwd: project.dir, path: [bin] });
  });
  afterAll(async () => {
    await server?.stop();
    await project?.remove();
  });

  it('reads the pages: architecture.md, storage.md, internals.md and the how-tos', () => {
    expect(HOW_TOS).toEqual(
      expect.arrayContaining([
        'docs/how-to/plugin.md',
        'docs/how-to/config-section.md',
        'docs/how-to/storage-driver.md',
      ]),
    );
  });

  it('runs every workspace-hub command a page shows, with a hub running for reload', async () => {
    const run = (await commandsOfPages()).filter(([, command]) =>
      /^(npx )?workspace-hub /.test(command),
    );
    expect(run.map(([, command]) => command)).toEqual(
      expect.arrayContaining(['workspace-hub migrate', 'workspace-hub reload']),
    );
    for (const [page, command] of run) {
      const result = await runShell(command, { cwd: project.dir, path: [bin] });
      expect([page, command, result.code, result.stderr]).toEqual([page, command, 0, '']);
    }
  });

  it('names every other command: npm scripts that exist, vitest runs of suites that exist', async () => {
    const other = (await commandsOfPages()).filter(
      ([, command]) => !/^(npx )?workspace-hub /.test(command),
    );
    expect(other.length).toBeGreaterThan(0);
    for (const [page, command] of other)
      expect(named(command), `${page}: ${command}: run it in this test, or name it`).toBeDefined();
  });
});
