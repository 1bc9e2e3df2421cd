/**
 * The walls between the kernel, the plugins and the CLI, read from the sources' import lines: the
 * kernel imports no feature; a plugin or a CLI command reaches another plugin only through that
 * plugin's face (its index.ts), and only a plugin it declares as a dependency; no two files import
 * each other, directly or round a longer circle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plugins } from '../../plugins/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter(
      (entry) =>
        entry.isFile() && /\.(ts|tsx|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts'),
    )
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Each file's imports of other files of the tree, as paths from the repository root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ['kernel', 'plugins', 'cli'].flatMap(sourceFiles)) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(SPECIFIER)]
      .map((match) => match[1]!)
      .filter((specifier) => specifier.startsWith('.'));
    graph.set(
      file,
      targets.map((specifier) => relative(root, resolve(root, dirname(file), specifier))),
    );
  }
  return graph;
}

const graph = importGraph();
const pluginOf = (file: string) => /^plugins\/([^/]+)\//.exec(file)?.[1];
const declared = new Map(plugins.map((plugin) => [plugin.name, plugin.dependencies ?? []]));

/** Every import line of a plugin or the CLI that names another plugin's file. */
function crossPluginImports(): {
  file: string;
  target: string;
  from: string | undefined;
  to: string;
}[] {
  const found = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith('plugins/') && !file.startsWith('cli/')) continue;
    for (const target of targets) {
      const to = pluginOf(target);
      if (to && to !== pluginOf(file)) found.push({ file, target, from: pluginOf(file), to });
    }
  }
  return found;
}

describe('the import walls of the source tree', () => {
  it('reads the import lines of every source folder', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('kernel/hub.ts')).toContain('kernel/http/pipeline.ts');
  });

  it('has one plugin folder per registered plugin, named after it', () => {
    const folders = new Set(sourceFiles('plugins').map(pluginOf).filter(Boolean));
    expect([...folders].sort()).toEqual(plugins.map((plugin) => plugin.name).sort());
  });

  it('keeps the kernel free of imports from plugins and the CLI', () => {
    const leaks = [...graph].flatMap(([file, targets]) =>
      file.startsWith('kernel/')
        ? targets
            .filter((target) => /^(plugins|cli)\//.test(target))
            .map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(leaks).toEqual([]);
  });

  it('lets plugins and CLI commands reach another plugin only through its index.ts', () => {
    const internal = crossPluginImports().filter(
      ({ target, to }) => target !== `plugins/${to}/index.ts`,
    );
    expect(internal.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('has every plugin declare the plugins it imports as dependencies', () => {
    const undeclared = crossPluginImports().filter(
      ({ from, to }) => from && !declared.get(from)?.includes(to),
    );
    expect(
      undeclared.map(({ file, to }) => `${file} imports plugin "${to}" without declaring it`),
    ).toEqual([]);
  });

  it('has no circle of imports between files', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });
});
