/**
 * `/console`: an administrator's overview, a member's start page (signed out: the sign-in page,
 * which the frame shows). Its form saves the member's initials and colour.
 */
import { definePage } from '../page.ts';
import { overviewView } from './overview.tsx';
import { saveProfile } from './profile-form.tsx';
import { startView } from './start.tsx';

export const homePage = definePage({
  path: '',
  summary:
    "The console's first page: the sign-in page, an administrator's overview, or a member's start page",
  admin: false,
  nav: 'Home',
  get: (page) => (page.me.user.role === 'admin' ? overviewView(page.api) : startView(page)),
  post: (page, fields) => saveProfile(page, fields, '?saved', (form) => startView(page, form)),
});
