/**
 * What README.md and the pages of docs/ show, read from the Markdown itself, so a block or command
 * added to the docs is covered by the docs suites (or fails them until it is): YAML blocks, and
 * commands — every line of a ```sh block (a here-document together with the line that opens it)
 * and every inline code span that starts like one (`workspace-hub …`, `npx …`, `sudo …`, `npm …`,
 * `curl …`, `kill …`, `systemctl …`). Also how to run such a command as printed: through `sh`, in
 * a directory that stands for the checkout or the service's directory.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliResult } from './cli.ts';

export type DocFile = 'README.md' | `docs/${string}.md`;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI's entry, as `npm install` links it into node_modules/.bin. */
export const BIN = join(ROOT, 'cli/bin.mjs');

export const readDoc = (file: DocFile) => readFile(join(ROOT, file), 'utf8');

/** A fenced block, also one indented under a list item (its indent is removed from its lines). */
const FENCE = /^( *)```(\w*)\n([\s\S]*?)^\1```$/gm;

/** The fenced blocks of a Markdown text: language and content. */
function blocks(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(FENCE)].map((m) => ({
    lang: m[2]!,
    body: m[3]!.replace(new RegExp(`^${m[1]}`, 'gm'), ''),
  }));
}

/**
 * The command-line synopsis (the plain block whose lines start with `workspace-hub `): each
 * command it names, with the options it gives that command. `a | b` alternates commands of one
 * group (`user list | show <user>`), or options when what follows the bar is one (`--name N |
 * --user <user>`).
 */
export function synopsis(text: string): { path: string[]; options: string[] }[] {
  const block = blocks(text).find((b) => b.lang === '' && b.body.startsWith('workspace-hub '));
  if (!block) return [];
  const lines = block.body
    .replace(/\n\s+(?=\S)/g, ' ')
    .split('\n')
    .filter(Boolean);
  const found: { path: string[]; options: string[] }[] = [];
  for (const line of lines) {
    let path: string[] = [];
    for (const [index, segment] of line
      .replace(/^workspace-hub /, '')
      .split(' | ')
      .entries()) {
      const words = segment.trim().split(/\s+/);
      const command = words.findIndex((word) => !/^[a-z]+$/.test(word));
      const lead = command === -1 ? words : words.slice(0, command);
      const options = [...segment.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]);
      if (lead.length === 0) found.at(-1)!.options.push(...options);
      else {
        path = index === 0 ? lead : [...path.slice(0, -1), ...lead];
        found.push({ path, options });
      }
    }
  }
  return found;
}

/** Every ```yaml block of the text. */
export function yamlBlocks(text: string): string[] {
  return blocks(text)
    .filter((block) => block.lang === 'yaml')
    .map((block) => block.body);
}

/** The lines of a ```sh block as commands: comments dropped, a here-document kept whole. */
function shellCommands(body: string): string[] {
  const commands: string[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\s+#\s.*$/, '').trimEnd();
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const heredoc = /<<'?(\w+)'?/.exec(line);
    if (!heredoc) {
      commands.push(line.trim());
      continue;
    }
    const end = lines.indexOf(heredoc[1]!, i + 1);
    commands.push(lines.slice(i, end + 1).join('\n'));
    i = end;
  }
  return commands;
}

const COMMAND_SPAN =
  /^(?:(?:sudo |npx )?workspace-hub (?:--config|start|reload|migrate|user|tenant|audit|backup|export|import)\b|(?:npx|sudo|npm|curl|kill|systemctl) )/;

/** Every command the text shows, in order, each once. */
export function shownCommands(text: string): string[] {
  const found: string[] = [];
  for (const block of blocks(text))
    if (block.lang === 'sh') found.push(...shellCommands(block.body));
  // Inline spans, which may wrap across lines of the Markdown source.
  const prose = text.replace(FENCE, '');
  for (const match of prose.matchAll(/`([^`]+)`/g)) {
    const span = match[1]!.replace(/\s*\n\s*/g, ' ').trim();
    if (COMMAND_SPAN.test(span)) found.push(span);
  }
  return [...new Set(found)];
}

/** Where and with what a doc command runs: `env` on top of this process's, `path` before PATH. */
export interface ShellOptions {
  cwd: string;
  env?: Record<string, string>;
  path?: readonly string[];
}

const shellEnv = (options: ShellOptions) => ({
  ...process.env,
  NO_COLOR: '1',
  ...options.env,
  PATH: [...(options.path ?? []), process.env.PATH].join(':'),
});

/** Runs a command line with `sh -c`, as a terminal would. */
export function runShell(command: string, options: ShellOptions): Promise<CliResult> {
  const env = shellEnv(options);
  return new Promise((resolve) =>
    execFile(
      '/bin/sh',
      ['-c', command],
      { cwd: options.cwd, env, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** A server a doc command started (`… workspace-hub start`), found by the PID it prints. */
export interface ShellServer {
  url: string;
  /** The hub's own process (the shell and npx sit above it). */
  pid: number;
  stdout(): string;
  stderr(): string;
  /** SIGTERM to the hub; resolves with the shell's exit code once it has exited. */
  stop(): Promise<number | null>;
}

/** Runs a command line that starts the hub, as {@link runShell} does, until it is listening. */
export function startShell(command: string, options: ShellOptions): Promise<ShellServer> {
  const env = shellEnv(options);
  const child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (\S+) .*, pid (\d+)/.exec(stdout);
      if (!match) return;
      child.stdout.removeAllListeners('data');
      child.stdout.on('data', (more) => (stdout += more));
      const pid = Number(match[2]);
      resolve({
        url: match[1]!,
        pid,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: () => {
          if (child.exitCode === null) process.kill(pid, 'SIGTERM');
          return exited;
        },
      });
    });
    exited.then((code) => reject(new Error(`"${command}" exited ${code}: ${stderr}`)));
  });
}

/**
 * Makes `dir` look like the checkout after `npm install` to `npx workspace-hub`: the package's
 * command in node_modules/.bin. Returns that directory (for PATH, where the command is installed).
 */
export async function linkCommand(dir: string): Promise<string> {
  const bin = join(dir, 'node_modules', '.bin');
  await mkdir(bin, { recursive: true });
  await symlink(BIN, join(bin, 'workspace-hub'));
  return bin;
}

/** The line of `output` after `label` (the secret under "Store this token now…", say). */
export function lineAfter(output: string, label: string): string | undefined {
  const lines = output.split('\n');
  const at = lines.findIndex((line) => line.startsWith(label));
  return at === -1 ? undefined : lines[at + 1]?.trim();
}
