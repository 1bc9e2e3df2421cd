/**
 * Every console page, in the order of the navigation. A new page is a file beside this one
 * (`definePage` in ../page.ts) and one line here; the plugin mounts its routes and documents them
 * in `/openapi.json` from this list.
 */
import type { ConsolePage } from '../page.ts';
import { auditExportPage } from './audit-export.ts';
import { auditPage } from './audit.tsx';
import { collectionPage } from './collection.tsx';
import { collectionsPage } from './collections.tsx';
import { historyPage } from './history.tsx';
import { homePage } from './home.tsx';
import { invitationsPage } from './invitations.tsx';
import { noticesPage } from './notices.tsx';
import { profilePage } from './profile.tsx';
import { settingsPage } from './settings.tsx';
import { tenantsPage } from './tenants.tsx';
import { tokensPage } from './tokens.tsx';
import { trashPage } from './trash.tsx';
import { userPage } from './user.tsx';
import { usersPage } from './users.tsx';
import { workspacePage } from './workspace.tsx';

export const pages: readonly ConsolePage[] = [
  homePage,
  collectionsPage,
  collectionPage,
  trashPage,
  historyPage,
  noticesPage,
  profilePage,
  usersPage,
  userPage,
  tokensPage,
  invitationsPage,
  workspacePage,
  auditPage,
  auditExportPage,
  settingsPage,
  tenantsPage,
];
