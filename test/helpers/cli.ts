/**
 * Running the CLI as a real process: `node cli/bin.mjs …` in a temporary project directory with its
 * own server.yaml (on a test database of its own with `useCliProject`), and a started server that
 * can be stopped with SIGTERM.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { stringify } from 'yaml';
import { createTestDatabase, type DriverKind, type TestDatabase } from './databases.ts';

const BIN = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
/** The CLI's Deno entry and the config `deno run` needs for it. */
export const DENO_CLI = fileURLToPath(new URL('../../cli/deno.ts', import.meta.url));
export const DENO_CONFIG = fileURLToPath(new URL('../../deno.json', import.meta.url));
/** The Deno binary the npm `deno` package ships. */
export const DENO = fileURLToPath(new URL('../../node_modules/deno/deno', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary working directory holding server.yaml (when `config` is given). */
export interface Project {
  dir: string;
  /** Runs `workspace-hub <args>` with the project as working directory. */
  run(...args: string[]): Promise<CliResult>;
  /** Runs with `--json`, expects exit code 0 and returns the parsed stdout. */
  json<T = any>(...args: string[]): Promise<T>;
  /** Runs a command that must fail: expects exit code 1 and returns its stderr. */
  fails(...args: string[]): Promise<string>;
  /** Writes another config file into the project and returns its name. */
  writeConfig(name: string, config: Record<string, unknown>): Promise<string>;
  remove(): Promise<void>;
}

const childEnv = () => ({ ...process.env, NO_COLOR: '1' });

/** How to start `node cli/bin.mjs <args>`; with a umask, through a shell that sets it first. */
export interface SpawnOptions {
  /** e.g. '000': the process creates files with whatever mode it asks for. */
  umask?: string;
}

function command(args: readonly string[], options: SpawnOptions = {}): [string, string[]] {
  if (options.umask === undefined) return [process.execPath, [BIN, ...args]];
  return [
    '/bin/sh',
    ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, BIN, ...args],
  ];
}

export function runCli(
  cwd: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Promise<CliResult> {
  const [file, argv] = command(args, options);
  return new Promise((resolve) => {
    execFile(file, argv, { cwd, env: childEnv(), timeout: 90_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function createProject(config?: Record<string, unknown>): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), 'hub-cli-'));
  const writeConfig = async (name: string, value: Record<string, unknown>) => {
    await writeFile(join(dir, name), stringify(value));
    return name;
  };
  if (config) await writeConfig('server.yaml', config);
  const run = (...args: string[]) => runCli(dir, args);
  return {
    dir,
    run,
    async json(...args) {
      const result = await run(...args, '--json');
      if (result.code !== 0)
        throw new Error(
          `workspace-hub ${args.join(' ')} failed (${result.code}): ${result.stderr}`,
        );
      return JSON.parse(result.stdout);
    },
    async fails(...args) {
      const result = await run(...args);
      expect(result.code, `workspace-hub ${args.join(' ')}: ${result.stdout}`).toBe(1);
      return result.stderr;
    },
    writeConfig,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Runs `body` on a new project whose server.yaml is `config`, and removes the project after it. */
export async function withProject<T>(
  config: Record<string, unknown> | undefined,
  body: (project: Project) => Promise<T>,
): Promise<T> {
  const project = await createProject(config);
  try {
    return await body(project);
  } finally {
    await project.remove();
  }
}

/** A {@link Project} for the enclosing describe block, on a test database of its own. */
export interface UsedProject extends Omit<Project, 'remove'> {
  /** The database its server.yaml names in `db`. */
  readonly database: TestDatabase;
}

/**
 * Creates a new `kind` database and a project whose server.yaml is `{ db, ...config }` before the
 * block's tests (beforeAll), migrated first when `migrate` is set; removes both after them. With
 * `kind` null there is no `db` section: the project runs on the embedded default database. `config`
 * may be a function, called in beforeAll, for values only known then (a free port).
 */
export function useCliProject(
  kind: DriverKind | null,
  config: Record<string, unknown> | (() => Record<string, unknown>) = {},
  { migrate = false } = {},
): UsedProject {
  let database: TestDatabase | undefined;
  let project: Project | undefined;
  beforeAll(async () => {
    database = kind ? await createTestDatabase(kind) : undefined;
    project = await createProject({
      ...(database ? { db: database.config } : {}),
      ...(typeof config === 'function' ? config() : config),
    });
    if (migrate) {
      const migrated = await project.run('migrate');
      expect(migrated.code, migrated.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await project?.remove();
    await database?.drop();
  });
  const created = () => project ?? notYet();
  return {
    get dir() {
      return created().dir;
    },
    get database() {
      if (!kind)
        throw new Error(
          'This project runs on the embedded default database: it has no test database.',
        );
      return database ?? notYet();
    },
    run: (...args) => created().run(...args),
    json: (...args) => created().json(...args),
    fails: (...args) => created().fails(...args),
    writeConfig: (name, value) => created().writeConfig(name, value),
  };
}

function notYet(): never {
  throw new Error('The CLI project is created in beforeAll: read it inside tests and hooks.');
}

/** Quiet logs keep test output readable; the CLI's own output is unaffected. */
export const quietLogging = { logging: { level: 'error' } };

export interface RunningServer {
  child: ChildProcess;
  url: string;
  /** Everything the server printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `workspace-hub start <args>` in `project`'s directory for the enclosing describe block: started
 * in beforeAll (declare the project first, so its own beforeAll has run), stopped in afterAll.
 * Read it inside tests and hooks.
 */
export function useServer(
  project: { readonly dir: string },
  args: readonly string[],
  options: SpawnOptions & { runtime?: 'node' | 'deno' } = {},
): RunningServer {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer(project.dir, args, options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  const running = () => {
    if (!server) throw new Error('The server starts in beforeAll: read it inside tests and hooks.');
    return server;
  };
  return {
    get child() {
      return running().child;
    },
    get url() {
      return running().url;
    },
    stdout: () => running().stdout(),
    stderr: () => running().stderr(),
    stop: () => running().stop(),
  };
}

/**
 * Starts `workspace-hub start <args>` and waits for the "listening on" line; on Node unless
 * `options.runtime` is 'deno' (`deno run cli/deno.ts start`, served by Deno.serve). `options.env`
 * adds environment variables.
 */
export function startServer(
  cwd: string,
  args: readonly string[],
  options: SpawnOptions & { runtime?: 'node' | 'deno'; env?: Record<string, string> } = {},
): Promise<RunningServer> {
  const deno = options.runtime === 'deno';
  const [file, argv] = deno
    ? [DENO, ['run', '--allow-all', '--config', DENO_CONFIG, DENO_CLI, 'start', ...args]]
    : command(['start', ...args], options);
  const env = {
    ...childEnv(),
    ...(deno ? { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' } : {}),
    ...options.env,
  };
  const child = spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (\S+)/.exec(stdout);
      if (match) {
        resolve({
          child,
          url: match[1]!,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    exited.then((code) =>
      reject(new Error(`server exited with ${code} before listening: ${stderr}`)),
    );
  });
}
