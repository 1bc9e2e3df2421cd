/**
 * Every configuration the hub's documents show loads: server.yaml.example exactly as shipped (read
 * by the configuration loader, and copied to server.yaml for a real command), and every ```yaml
 * block of README.md and docs/deploy.md, read from the Markdown so a new block is covered at
 * once. What a block needs to load, it gets here, and says so:
 * - `${NAME}` without a default: the variable is set (to a 32-character value, long enough for
 *   `metrics.token`), as the hub's environment would set it;
 * - README's database block shows alternatives, one `db:` per line: each line is loaded alone;
 * - a block of `scrape_configs` is Prometheus's configuration, not the hub's: it is parsed and its
 *   scrape target checked against the hub's port and metrics path.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pluginSections } from '../../cli/context.ts';
import { loadConfig, parseConfig } from '../../kernel/config/load.ts';
import { withProject } from '../helpers/cli.ts';
import { readDoc, yamlBlocks, type DocFile } from '../helpers/docs.ts';

const EXAMPLE = fileURLToPath(new URL('../../server.yaml.example', import.meta.url));

/** The environment a block needs: each `${NAME}` it uses without a default, set. */
function envFor(text: string): Record<string, string> {
  const names = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
  return Object.fromEntries(names.map((name) => [name, 'x'.repeat(32)]));
}

/** The hub configurations a block holds (alternatives one per line, else the block). */
function configsOf(text: string): string[] {
  const lines = text.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));
  const alternatives = lines.length > 1 && lines.every((line) => /^db: \{.*\}/.test(line));
  return alternatives ? lines : [text];
}

describe('server.yaml.example', () => {
  it('loads exactly as shipped, with an empty environment', async () => {
    const { config } = await loadConfig({
      explicitPath: EXAMPLE,
      cwd: process.cwd(),
      env: {},
      pluginSections: pluginSections(),
    });
    expect(config.db).toMatchObject({ driver: 'sqlite', path: './data/hub.db' });
    expect(config.server.port).toBe(8788);
  });

  it('runs commands once copied to server.yaml, as the README says', async () => {
    await withProject(undefined, async (project) => {
      await copyFile(EXAMPLE, join(project.dir, 'server.yaml'));
      for (const command of [['migrate'], ['user', 'list']]) {
        const { code, stderr } = await project.run(...command);
        expect([command.join(' '), code, stderr]).toEqual([command.join(' '), 0, '']);
      }
    });
  }, 60_000);
});

describe.each<DocFile>(['README.md', 'docs/deploy.md'])('the YAML blocks of %s', (file) => {
  it('each load as the hub reads them (or, for Prometheus, as Prometheus would scrape the hub)', async () => {
    const blocks = yamlBlocks(await readDoc(file));
    expect(blocks.length).toBeGreaterThan(0);
    let hub = 0;
    for (const block of blocks) {
      if (/^scrape_configs:/m.test(block)) {
        const document = parse(block) as Record<string, unknown>;
        const [job] = document['scrape_configs'] as Record<string, any>[];
        expect(job!['job_name']).toBe('workspace-hub');
        expect(job!['metrics_path'] ?? '/metrics').toBe('/metrics');
        expect(job!['authorization']).toMatchObject({ type: 'Bearer' });
        for (const target of job!['static_configs'][0].targets)
          expect(target).toMatch(/^[\d.]+:8788$/);
        continue;
      }
      for (const text of configsOf(block)) {
        expect(() => parseConfig(text, pluginSections(), envFor(text), file), text).not.toThrow();
        hub++;
      }
    }
    expect(hub).toBeGreaterThan(0);
  });
});
