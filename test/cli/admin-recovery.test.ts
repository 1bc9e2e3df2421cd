/**
 * The README's "When the admin's token is lost", followed as written on the embedded database
 * while the server runs: the new token works on the server, and the revoked one stops working.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';
import { quietLogging, useCliProject, useServer } from '../helpers/cli.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The README's recovery commands, without their comments. */
function recoverySteps(): string[] {
  const section = README.split("\n### When the admin's token is lost\n")[1]!.split('\n#')[0]!;
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .trim()
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim());
}

describe("the README's recovery of a lost admin token, on the embedded database", () => {
  let port: number;
  beforeAll(async () => {
    port = await freePort();
  });
  const project = useCliProject(null, () => ({ ...quietLogging, server: { port } }));
  const server = useServer(project, []);

  const session = (secret: string) =>
    fetch(`${server.url}/auth/session`, { headers: { authorization: `Bearer ${secret}` } });

  it('issues a new admin token that the running server accepts, and revokes the lost one', async () => {
    const lost = /hbk_[A-Za-z0-9_-]+/.exec(server.stdout())![0];
    expect((await session(lost)).status).toBe(200);

    const [create, list, revoke] = recoverySteps();
    const run = async (line: string) => {
      const words = line.split(/\s+/);
      expect(words.slice(0, 2), line).toEqual(['npx', 'workspace-hub']);
      const result = await project.run(...words.slice(2));
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      return result.stdout;
    };

    const created = await run(create!);
    const lines = created.split('\n');
    const secret = lines[lines.indexOf('Store this token now; it will not be shown again:') + 1]!;
    expect(secret).toMatch(/^hbk_/);
    const res = await session(secret);
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({ name: 'admin', role: 'admin' });

    // The first start's token is named after the account.
    const listed = await run(list!);
    // A table: id, token name, owner's name, …
    const lostId = /^([0-9a-f-]{36})\s+admin\s+admin\s/m.exec(listed)![1]!;
    expect(listed).toMatch(/^[0-9a-f-]{36}\s+recovery\s+admin\s/m);
    expect(revoke).toBe('npx workspace-hub user token revoke <token-id>');
    await run(revoke!.replace('<token-id>', lostId));

    expect((await session(lost)).status).toBe(401);
    expect((await session(secret)).status).toBe(200);
  });
});
