/**
 * `workspace-hub reload`: makes the running server re-read its configuration file, as SIGHUP and
 * `POST /admin/config/reload` do, and prints each section's outcome. The server is found through
 * the PID file `start` writes in the data directory (see pid-file.ts), so this works however the
 * server was started — including under `npm start`, where a SIGHUP sent to npm would kill npm
 * instead of reaching the hub.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineCommand } from 'citty';
import { commonArgs, jsonArg, parseCount } from '../args.ts';
import { CliError, EXIT } from '../errors.ts';
import { print, printJson, printTable } from '../output.ts';

interface SectionResult {
  section: string;
  status: string;
  error?: string;
}
type Outcome =
  | { ok: true; sections: SectionResult[]; others?: SectionResult[] }
  | { ok: false; fatalError: string; detail?: string };

/**
 * The `db` section's data directory, read from the file without validating it: the server resolves
 * `${VAR}`s with its own environment, which this shell may not have, and reports errors itself.
 */
async function configuredDb(configOption: string | undefined): Promise<unknown> {
  const path = configOption ? resolve(configOption) : resolve('server.yaml');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!configOption && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`Config file not found: ${path}`, EXIT.config);
  }
  const [{ parse }, { describeYamlError }] = await Promise.all([
    import('../yaml.ts'),
    import('../../kernel/config/yaml-error.ts'),
  ]);
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new CliError(describeYamlError(error, text, path), EXIT.config);
  }
  const db = (document as { db?: { path?: unknown } } | null)?.db;
  const file = db?.path;
  if (typeof file !== 'string' || !file.includes('${')) return db;
  const { interpolateString } = await import('../../kernel/config/interpolate.ts');
  try {
    return { ...db, path: interpolateString(file, process.env, 'db.path') };
  } catch (error) {
    throw new CliError(`${path}: ${(error as Error).message}`, EXIT.config);
  }
}

/**
 * A reload the server refused. A variable it lacks is missing from the server's environment (the
 * one it started with), which this shell's cannot change: say where to set it.
 */
function refusal(fatalError: string): CliError {
  const hint = fatalError.includes('Missing environment variable')
    ? '\nThe running server resolves ${…} in its own environment, the one it started with (for a systemd service: its Environment= and EnvironmentFile=), not in this shell: set the variable there and restart the server.'
    : '';
  return new CliError(`Reload failed, nothing changed: ${fatalError}${hint}`);
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The `reload` command. */
export const reloadCommand = defineCommand({
  meta: {
    name: 'workspace-hub reload',
    description:
      "Make the running server re-read its configuration file and print what changed (the server resolves ${VAR}s in its own environment, not this shell's)",
  },
  args: {
    timeout: {
      type: 'string',
      valueHint: 'seconds',
      description: "How long to wait for the server's answer (default 30)",
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const seconds =
      args.timeout === undefined ? 30 : parseCount('timeout', args.timeout, { min: 1 })!;
    const { dataDirectory, isHubRunning, readPidFile, readReloadRecord, PID_FILE } =
      await import('../pid-file.ts');
    const dir = dataDirectory(await configuredDb(args.config));
    const info = readPidFile(dir);
    if (!info) {
      throw new CliError(
        `No running server found: ${resolve(dir, PID_FILE)} does not exist. Run this where the server was started, with the same --config.`,
        EXIT.noServer,
      );
    }
    if (!isHubRunning(info.pid)) {
      throw new CliError(
        `No running server found: ${resolve(dir, PID_FILE)} names process ${info.pid}, which is not a running hub (stale file from a crash?).`,
        EXIT.noServer,
      );
    }
    const sent = Date.now();
    process.kill(info.pid, 'SIGHUP');
    let outcome: Outcome | undefined;
    for (const deadline = sent + seconds * 1000; Date.now() < deadline; await sleep(50)) {
      const record = readReloadRecord(dir);
      if (record && record.pid === info.pid && record.at >= sent) {
        outcome = record.outcome as Outcome;
        break;
      }
    }
    if (!outcome)
      throw new CliError(
        `Sent SIGHUP to the server (pid ${info.pid}), but it did not report the outcome within ${seconds} s; see its log.`,
      );
    if (!outcome.ok) throw refusal(outcome.detail ?? outcome.fatalError);
    // The HTTP answer lists only the sections the desktop client knows; here every one is shown.
    const sections = [...outcome.sections, ...(outcome.others ?? [])];
    const failed = sections.filter((entry) => entry.status === 'failed');
    if (args.json) printJson({ pid: info.pid, sections });
    else {
      print(`Reloaded the configuration of the server at ${info.url} (pid ${info.pid}).`);
      printTable(
        ['SECTION', 'STATUS', 'DETAIL'],
        sections.map((entry) => [entry.section, entry.status, entry.error ?? '']),
      );
    }
    if (failed.length > 0) {
      if (!args.json)
        process.stderr.write(
          `Failed: ${failed.map((entry) => `${entry.section} (${entry.error ?? 'no reason given'})`).join('; ')}\n`,
        );
      process.exitCode = EXIT.failed;
    }
  },
});
