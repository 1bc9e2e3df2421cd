/**
 * `/console`: an administrator's overview, a member's start page (signed out: the sign-in page,
 * which the frame shows). Its form saves the member's initials and colour.
 */
import { ApiError } from '../api-client.ts';
import { failedForm } from '../forms.tsx';
import { definePage } from '../page.ts';
import { overviewView } from './overview.tsx';
import { PROFILE_FIELDS, startView } from './start.tsx';

export const homePage = definePage({
  path: '',
  summary:
    "The console's first page: the sign-in page, an administrator's overview, or a member's start page",
  admin: false,
  nav: 'Home',
  get: (page) => (page.me.user.role === 'admin' ? overviewView(page.api) : startView(page)),
  async post(page, fields) {
    const body = { initials: fields.initials, color: fields.color };
    try {
      await page.api.send('PUT', '/auth/profile/avatar', body);
      return { redirect: '?saved' };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return { ...(await startView(page, failedForm(fields, error, PROFILE_FIELDS))), status: 400 };
    }
  },
});
