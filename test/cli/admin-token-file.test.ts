/**
 * WORKSPACE_HUB_ADMIN_TOKEN_FILE: the first admin's token comes from a file the operator wrote (a
 * container platform's secret), through the real `start` on the embedded database.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { quietLogging, startServer, useCliProject } from '../helpers/cli.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The shell lines of the README's "The first admin's token from a file". */
function readmeSteps(): string[] {
  const section = README.split("\n### The first admin's token from a file\n")[1]!.split('\n#')[0]!;
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim().split('\n');
}

describe('the first admin token from WORKSPACE_HUB_ADMIN_TOKEN_FILE, on the embedded database', () => {
  const project = useCliProject(null, quietLogging);
  // Port 0: each start picks a free port.
  const start = (file: string) =>
    startServer(project.dir, ['--port', '0'], { env: { WORKSPACE_HUB_ADMIN_TOKEN_FILE: file } });

  it('refuses to start on a file that is missing or holds no token', async () => {
    const missing = join(project.dir, 'missing-token');
    await expect(start(missing)).rejects.toThrow(
      `server exited with 3 before listening: WORKSPACE_HUB_ADMIN_TOKEN_FILE: cannot read ${missing} (ENOENT).`,
    );
    const bad = join(project.dir, 'bad-token');
    await writeFile(bad, 'hunter2\n', { mode: 0o600 });
    await expect(start(bad)).rejects.toThrow(
      `server exited with 3 before listening: WORKSPACE_HUB_ADMIN_TOKEN_FILE: ${bad} must hold one token`,
    );
  });

  // The first start that succeeds: the refusals above created nothing.
  it('creates the admin with the token in the file, and never prints it', async () => {
    // The README's commands as printed: the first line writes the file, the second starts.
    const [write, run] = readmeSteps();
    expect(run).toBe('WORKSPACE_HUB_ADMIN_TOKEN_FILE=$PWD/admin-token npx workspace-hub start');
    await promisify(execFile)('/bin/sh', ['-c', write!], { cwd: project.dir });
    const file = join(project.dir, 'admin-token');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const secret = (await readFile(file, 'utf8')).trim();
    expect(secret).toMatch(/^hbk_[0-9a-f]{64}$/);
    const server = await start(file);
    try {
      expect(server.stdout()).toContain(`First start: created the admin account "admin" (`);
      expect(server.stdout()).toContain(`with the token in ${file}.`);
      expect(server.stdout() + server.stderr()).not.toMatch(/hbk_/);
      const res = await fetch(`${server.url}/auth/session`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(res.status).toBe(200);
      expect((await res.json()).user).toMatchObject({ name: 'admin', role: 'admin' });
      const { tokens } = await project.json('user', 'token', 'list', '--user', 'admin');
      expect(tokens).toHaveLength(1);
      expect(secret.startsWith(tokens[0].tokenPrefix)).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Read on the first start only: later starts need neither the variable's file nor print a token.
    await rm(file);
    const again = await start(file);
    try {
      expect(again.stdout()).not.toContain('First start');
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
