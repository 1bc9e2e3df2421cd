/**
 * What the users pages read of the API, with the shapes it answers: the user list (one cached
 * answer for the whole tenant), and the LLM and run-result usage of the users a page shows, asked
 * for all of them at once.
 */
import type { EntityAccessField } from '../../../kernel/identity/access.ts';
import { ApiError, type ConsoleApi } from '../api-client.ts';

/** A user as the API answers it; its access lists are the kernel's (access-lists.ts). */
export interface UserRecord extends Record<EntityAccessField, string[]> {
  id: string;
  name: string;
  role: 'user' | 'admin';
  avatarInitials: string;
  avatarColor: string;
  llmAccess: boolean;
  llmModels: string[];
  llmMonthlyTokenLimit: number | null;
  createdAt: string;
  identityProvider?: { issuer: string; subject: string };
  warnings: string[];
}

export interface RunResultUsage {
  userId: string;
  count: number;
  bytes: number;
  limits: { count: number | null; bytes: number | null };
}

/** What each shown user used: LLM tokens this month, and stored run results. */
export interface Usage {
  period: string;
  tokens: ReadonlyMap<string, number>;
  runs: ReadonlyMap<string, RunResultUsage>;
}

export const listUsers = async (api: ConsoleApi) =>
  (await api.get<{ users: UserRecord[] }>('/admin/users')).users;

/** The usage of `users` (one page of them): two requests, whatever their number. */
export async function usageOf(api: ConsoleApi, users: readonly UserRecord[]): Promise<Usage> {
  if (users.length === 0) return { period: '', tokens: new Map(), runs: new Map() };
  const ids = users.map((user) => encodeURIComponent(user.id)).join(',');
  const [llm, runs] = await Promise.all([
    api.get<{ period: string; users: { userId: string; totalTokens: number }[] }>(
      `/admin/llm/usage?userIds=${ids}`,
    ),
    api.get<{ users: RunResultUsage[] }>(`/admin/run-results/usage?userIds=${ids}`),
  ]);
  return {
    period: llm.period,
    tokens: new Map(llm.users.map((entry) => [entry.userId, entry.totalTokens])),
    runs: new Map(runs.users.map((entry) => [entry.userId, entry])),
  };
}

/** Bytes as people read them (KiB, MiB). */
export function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The user a form names by id, or by name in any case; else a 400 for the form's `user` field, as
 * the API would answer an unknown name.
 */
export function namedUser(users: readonly UserRecord[], typed: string | undefined): UserRecord {
  const text = (typed ?? '').trim();
  const user =
    users.find((candidate) => candidate.id === text) ??
    users.find((candidate) => candidate.name.toLowerCase() === text.toLowerCase());
  if (!user) throw new ApiError(400, `user: No user is named “${text}”.`, 'validation_failed');
  return user;
}
