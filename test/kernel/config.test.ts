import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../kernel/config/errors.ts';
import { interpolateString } from '../../kernel/config/interpolate.ts';
import { loadConfig, parseConfig } from '../../kernel/config/load.ts';
import { runResultsSchema } from '../../plugins/entities/run-results/usage.ts';

const noPlugins = {};

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config loading', () => {
  it('uses loopback port 8788 and the embedded database when there is no file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hub-config-'));
    const { path, config } = await loadConfig({ cwd: dir, env: {}, pluginSections: noPlugins });
    expect(path).toBeNull();
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8788 });
    expect(config.db).toEqual({ driver: 'sqlite', path: './data/hub.db', synchronous: 'normal' });
    expect(config.redis).toBeUndefined();
    expect(config.multitenancy.enabled).toBe(false);
    expect(config.collaboration.e2ee).toBe(false);
  });

  it('reads server.yaml from the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hub-config-'));
    await writeFile(join(dir, 'server.yaml'), 'server:\n  port: 9100\n');
    const { path, config } = await loadConfig({ cwd: dir, env: {}, pluginSections: noPlugins });
    expect(path).toBe(join(dir, 'server.yaml'));
    expect(config.server.port).toBe(9100);
  });

  it('fails when an explicit --config file does not exist', async () => {
    await expect(
      loadConfig({
        explicitPath: '/nonexistent/hub.yaml',
        cwd: '/',
        env: {},
        pluginSections: noPlugins,
      }),
    ).rejects.toThrow(/Config file not found/);
  });

  it('names the YAML path of a bad value', () => {
    const error = errorOf(() => parseConfig('server:\n  port: 70000\n', noPlugins, {}));
    expect(error.path).toBe('server.port');
    expect(error.message).toContain('server.port');
  });

  it('names an unknown key inside a section', () => {
    const error = errorOf(() => parseConfig('server:\n  prot: 80\n', noPlugins, {}));
    expect(error.path).toBe('server.prot');
    expect(error.message).toContain('unknown key');
  });

  it('names an unknown top-level section', () => {
    expect(errorOf(() => parseConfig('databse:\n  driver: sqlite\n', noPlugins, {})).path).toBe(
      'databse',
    );
  });

  it('rejects an unknown database driver naming db.driver', () => {
    const error = errorOf(() => parseConfig('db:\n  driver: oracle\n', noPlugins, {}));
    expect(error.path).toBe('db.driver');
    expect(error.message).toContain('sqlite, postgres, mysql, firestore');
  });

  it('never repeats the value of a secret key in a message', () => {
    const error = errorOf(() =>
      parseConfig(
        'db:\n  driver: postgres\n  database: hub\n  password: 12345678\n',
        noPlugins,
        {},
      ),
    );
    expect(error.message).toContain('db.password: expected a string');
    expect(error.message).not.toContain('12345678');
    const url = errorOf(() =>
      parseConfig('server:\n  publicUrl: https://alice:hunter2@hub.example.com\n', noPlugins, {}),
    );
    expect(url.message).toContain('server.publicUrl');
    expect(url.message).not.toContain('hunter2');
  });

  it('refuses the removed pglite driver, naming sqlite and saying there is no converter', () => {
    const error = errorOf(() =>
      parseConfig('db:\n  driver: pglite\n  dataDir: ./data\n', noPlugins, {}),
    );
    expect(error.path).toBe('db.driver');
    expect(error.message).toMatch(/no longer supported; use "driver: sqlite"/);
    expect(error.message).toMatch(/no converter/);
  });

  it('reads the sqlite path and synchronous level, and refuses an unknown level', () => {
    const config = parseConfig(
      'db:\n  driver: sqlite\n  path: /var/lib/hub/hub.db\n  synchronous: full\n',
      noPlugins,
      {},
    );
    expect(config.db).toEqual({
      driver: 'sqlite',
      path: '/var/lib/hub/hub.db',
      synchronous: 'full',
    });
    expect(
      errorOf(() => parseConfig('db:\n  driver: sqlite\n  synchronous: off\n', noPlugins, {})).path,
    ).toBe('db.synchronous');
  });

  it('shows the offending line of a YAML syntax error, the one before it and a caret under the column', () => {
    const message = errorOf(() =>
      parseConfig('server:\n  port: 8788\n host: 0.0.0.0\n', noPlugins, {}, 'server.yaml'),
    ).message;
    expect(message).toBe(
      'server.yaml: invalid YAML: All mapping items must start at the same column at line 3, column 1:\n' +
        '  2 |   port: 8788\n' +
        '  3 |  host: 0.0.0.0\n' +
        '    | ^',
    );
  });

  it('points the caret of a YAML syntax error at its column, showing a tab as one character', () => {
    const message = errorOf(() => parseConfig('server:\n\tport: 1\n', noPlugins, {})).message;
    expect(message.split('\n').slice(1)).toEqual(['  1 | server:', '  2 | →port: 1', '    | ^']);
    const quoted = errorOf(() =>
      parseConfig('logging:\n  level: info\n  format: [json\nserver: {}\n', noPlugins, {}),
    ).message;
    const [, ...excerpt] = quoted.split('\n');
    const caret = excerpt.at(-1)!.indexOf('^') - '    | '.length;
    const lineNumber = Number(/at line (\d+)/.exec(quoted)![1]);
    const column = Number(/column (\d+)/.exec(quoted)![1]);
    expect(caret).toBe(column - 1);
    expect(excerpt.at(-2)).toContain(`${lineNumber} | `);
  });

  it('masks a credential-like value on the excerpt of a YAML syntax error', () => {
    const message = errorOf(() =>
      parseConfig('db:\n  url: postgres://hub:s3cret@db/hub\n port: 1\n', noPlugins, {}),
    ).message;
    expect(message).not.toContain('s3cret');
    expect(message).toContain('|   url: ' + '*'.repeat('postgres://hub:s3cret@db/hub'.length));
  });

  it('masks credentials in a flow mapping, on the lines of a block scalar and in a URL of the excerpt', () => {
    const excerptOf = (text: string) =>
      errorOf(() => parseConfig(text, noPlugins, {}))
        .message.split('\n')
        .slice(1);
    expect(
      excerptOf('llm: { providers: [{ name: a, apiKey: sk-live-SECRET1 }] }\nlogging: : x\n')[0],
    ).toBe('  1 | llm: { providers: [{ name: a, apiKey: ****************}] }');
    expect(
      excerptOf('sso:\n  oidc:\n    clientSecret: >-\n      SECRET2\n    issuer: : x\n').slice(
        0,
        2,
      ),
    ).toEqual(['  4 |       *******', '  5 |     issuer: : x']);
    expect(
      excerptOf('plugins:\n  catalogs: [https://ci:SECRET3@c.example/c.json]\nlogging: : x\n')[0],
    ).toBe('  2 |   catalogs: [https://ci:*******@c.example/c.json]');
  });

  it('reports invalid YAML without a stack trace', () => {
    expect(errorOf(() => parseConfig('server: [unclosed\n', noPlugins, {})).message).toMatch(
      /invalid YAML/,
    );
  });

  it('interpolates environment variables, with defaults, into string values', () => {
    const config = parseConfig(
      'server:\n  port: ${PORT}\n  host: ${HOST:-0.0.0.0}\ndb:\n  driver: postgres\n  user: ${DB_USER}\n  database: hub\n  password: $${NOT_A_VAR}\n',
      noPlugins,
      { PORT: '9200', DB_USER: 'alice' },
    );
    expect(config.server).toMatchObject({ port: 9200, host: '0.0.0.0' });
    expect(config.db).toMatchObject({
      driver: 'postgres',
      user: 'alice',
      password: '${NOT_A_VAR}',
    });
  });

  it('treats an empty variable as missing unless a default is given', () => {
    expect(() => interpolateString('${EMPTY}', { EMPTY: '' }, 'db.password')).toThrow(
      'Missing environment variable EMPTY for config key db.password',
    );
    expect(interpolateString('${EMPTY:-}', { EMPTY: '' }, 'x')).toBe('');
  });

  it('validates plugin sections with their own schemas', () => {
    const sections = {
      plugins: z.strictObject({ catalogs: z.array(z.url()).default([]) }).optional(),
    };
    expect(
      parseConfig('plugins:\n  catalogs: [https://example.com/c.json]\n', sections, {}).plugins,
    ).toEqual({ catalogs: ['https://example.com/c.json'] });
    expect(
      errorOf(() => parseConfig('plugins:\n  catalogs: [not a url]\n', sections, {})).path,
    ).toBe('plugins.catalogs.0');
  });

  it('gives runResults team defaults, takes 0 as no limit and names a bad value', () => {
    const sections = { runResults: runResultsSchema };
    expect(parseConfig('', sections, {}).runResults).toEqual({
      maxPerUser: 1000,
      maxBytesPerUser: 256 * 1024 * 1024,
    });
    expect(
      parseConfig('runResults:\n  maxPerUser: 0\n  maxBytesPerUser: "0"\n', sections, {})
        .runResults,
    ).toEqual({ maxPerUser: 0, maxBytesPerUser: 0 });
    expect(errorOf(() => parseConfig('runResults:\n  maxPerUser: -1\n', sections, {})).path).toBe(
      'runResults.maxPerUser',
    );
    expect(
      errorOf(() => parseConfig('runResults:\n  maxBytesPerUser: 1.5\n', sections, {})).path,
    ).toBe('runResults.maxBytesPerUser');
    expect(errorOf(() => parseConfig('runResults:\n  maxCount: 5\n', sections, {})).path).toBe(
      'runResults.maxCount',
    );
  });

  it('accepts e2ee only as a YAML boolean', () => {
    expect(parseConfig('collaboration:\n  e2ee: true\n', noPlugins, {}).collaboration.e2ee).toBe(
      true,
    );
    expect(errorOf(() => parseConfig('collaboration:\n  e2ee: "true"\n', noPlugins, {})).path).toBe(
      'collaboration.e2ee',
    );
  });

  it('reports every problem of a file at once, misspelled keys first', () => {
    const error = errorOf(() =>
      parseConfig(
        'server:\n  port: 70000\nmultitenancy:\n  enabled: maybe\nlogging:\n  levle: debug\n',
        noPlugins,
        {},
      ),
    );
    expect(error.problems).toEqual([
      { path: 'logging.levle', message: 'unknown key (did you mean level?)' },
      { path: 'server.port', message: 'must be at most 65535, got 70000' },
      { path: 'multitenancy.enabled', message: 'expected true or false, got "maybe"' },
    ]);
    expect(error.message).toBe(
      [
        'server.yaml: 3 problems:',
        '  logging.levle: unknown key (did you mean level?)',
        '  server.port: must be at most 65535, got 70000',
        '  multitenancy.enabled: expected true or false, got "maybe"',
      ].join('\n'),
    );
  });

  it('names a misspelled key as unknown even when the section also lacks the key it meant', () => {
    const error = errorOf(() =>
      parseConfig('db:\n  driver: postgres\n  user: hub\n  databse: hub\n', noPlugins, {}),
    );
    expect(error.path).toBe('db.databse');
    expect(error.problems[0]).toEqual({
      path: 'db.databse',
      message: 'unknown key (did you mean database?)',
    });
    expect(error.problems[1]).toEqual({ path: 'db.database', message: 'missing (required)' });
  });

  it('suggests the closest section for a misspelled section name', () => {
    expect(errorOf(() => parseConfig('servr:\n  port: 80\n', noPlugins, {})).message).toBe(
      'server.yaml: servr: unknown section (did you mean server?)',
    );
  });

  it('says what was given for a value of the wrong type', () => {
    expect(errorOf(() => parseConfig('server:\n  port: eighty\n', noPlugins, {})).message).toBe(
      'server.yaml: server.port: expected an integer, got "eighty"',
    );
    expect(
      errorOf(() => parseConfig('collaboration:\n  e2ee: "true"\n', noPlugins, {})).message,
    ).toBe('server.yaml: collaboration.e2ee: expected true or false, got "true" (quoted text)');
    expect(errorOf(() => parseConfig('logging:\n  level: loud\n', noPlugins, {})).message).toBe(
      'server.yaml: logging.level: expected one of debug, info, warn, error, silent, got "loud"',
    );
  });

  it('calls every whole-number key an integer, whichever way its schema spells it', () => {
    expect(errorOf(() => parseConfig('redis:\n  db: 1.5\n', noPlugins, {})).message).toBe(
      'server.yaml: redis.db: expected an integer, got 1.5',
    );
    expect(errorOf(() => parseConfig('redis:\n  maxFailures: many\n', noPlugins, {})).message).toBe(
      'server.yaml: redis.maxFailures: expected an integer, got "many"',
    );
  });

  it('reports every missing environment variable with the other problems', () => {
    const error = errorOf(() =>
      parseConfig(
        'db:\n  driver: postgres\n  user: ${DB_USER}\n  database: ${DB_NAME}\nserver:\n  port: x\n',
        noPlugins,
        { DB_NAME: '' },
      ),
    );
    expect(error.problems).toEqual([
      { path: 'db.user', message: 'Missing environment variable DB_USER for config key db.user' },
      {
        path: 'db.database',
        message: 'Missing environment variable DB_NAME for config key db.database',
      },
      { path: 'server.port', message: 'expected an integer, got "x"' },
    ]);
  });

  it('accepts server.publicUrl as an http(s) URL and refuses anything else', () => {
    expect(
      parseConfig('server:\n  publicUrl: https://hub.example.com/\n', noPlugins, {}).server
        .publicUrl,
    ).toBe('https://hub.example.com');
    expect(
      errorOf(() => parseConfig('server:\n  publicUrl: hub.example.com\n', noPlugins, {})).path,
    ).toBe('server.publicUrl');
  });
});

describe('metrics.public', () => {
  it('is false unless set, so /metrics without a token stays on this host; YAML or ${ENV} turn it on', () => {
    expect(parseConfig('server:\n  port: 8788\n', noPlugins, {}).metrics).toEqual({
      enabled: true,
      public: false,
    });
    expect(parseConfig('metrics:\n  enabled: true\n', noPlugins, {}).metrics.public).toBe(false);
    expect(parseConfig('metrics:\n  public: true\n', noPlugins, {}).metrics.public).toBe(true);
    const fromEnv = parseConfig('metrics:\n  public: ${HUB_METRICS_PUBLIC}\n', noPlugins, {
      HUB_METRICS_PUBLIC: 'true',
    });
    expect(fromEnv.metrics.public).toBe(true);
  });

  it('rejects a value that is not a boolean, naming metrics.public', () => {
    const error = errorOf(() => parseConfig('metrics:\n  public: everyone\n', noPlugins, {}));
    expect(error.path).toBe('metrics.public');
    expect(error.message).toContain('metrics.public');
  });
});
