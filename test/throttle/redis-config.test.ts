import { describe, expect, it } from 'vitest';
import { redisSchema } from '../../kernel/redis/config.ts';

describe('redis config section', () => {
  it('fills every default from an empty section', () => {
    expect(redisSchema.parse({})).toEqual({
      host: '127.0.0.1',
      port: 6379,
      password: undefined,
      db: 0,
      keyPrefix: 'workspace-hub:',
      maxFailures: 10,
      windowSeconds: 900,
      blockSeconds: 900,
      maxFailuresPerIp: 100,
      connectTimeoutMillis: 2000,
    });
  });

  it('accepts numbers and booleans as strings, as environment interpolation yields them', () => {
    const config = redisSchema.parse({ port: '6380', db: '2', maxFailures: '5' });
    expect(config).toMatchObject({ port: 6380, db: 2, maxFailures: 5 });
  });

  it('appends a colon to a key prefix that lacks one and leaves an empty prefix alone', () => {
    expect(redisSchema.parse({ keyPrefix: 'team-a' }).keyPrefix).toBe('team-a:');
    expect(redisSchema.parse({ keyPrefix: 'team-a:' }).keyPrefix).toBe('team-a:');
    expect(redisSchema.parse({ keyPrefix: '' }).keyPrefix).toBe('');
  });

  it('treats an empty password as no password', () => {
    expect(redisSchema.parse({ password: '' }).password).toBeUndefined();
    expect(redisSchema.parse({ password: 'pw' }).password).toBe('pw');
  });

  it('allows 0 for maxFailuresPerIp to turn the per-IP limit off', () => {
    expect(redisSchema.parse({ maxFailuresPerIp: 0 }).maxFailuresPerIp).toBe(0);
  });

  it.each([
    ['port', 0],
    ['port', 65536],
    ['port', ''],
    ['port', '63 79'],
    ['db', 16],
    ['db', 1.5],
    ['maxFailures', 0],
    ['windowSeconds', 0],
    ['blockSeconds', -1],
    ['maxFailuresPerIp', -1],
    ['host', ''],
  ])('rejects %s = %j', (key, value) => {
    expect(redisSchema.safeParse({ [key]: value }).success).toBe(false);
  });

  it('rejects unknown keys, so a typo fails at boot', () => {
    expect(redisSchema.safeParse({ maxFailure: 3 }).success).toBe(false);
  });
});
